package controller

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/tape"
)

// Option configures a Controller.
type Option func(*Controller)

// WithLogger sets the logger; the controller logs through a child with
// stage=controller. The default discards.
func WithLogger(l zerolog.Logger) Option {
	return func(c *Controller) { c.log = l.With().Str("stage", "controller").Logger() }
}

// WithOnError sets what a failed, error or timeout verdict does; the
// default is OnErrorPause.
func WithOnError(p OnError) Option { return func(c *Controller) { c.onError = p } }

// WithStartRunning makes Start run the replay instead of pausing it before
// the first message.
func WithStartRunning() Option { return func(c *Controller) { c.startRunning = true } }

// WithSpeed sets the speed Status reports until SetSpeed changes it (the
// speed the engine was configured with).
func WithSpeed(s scheduler.Speed) Option { return func(c *Controller) { c.speed = s } }

// WithRedactor hides the replay's secrets from every line the control
// protocol writes (Serve): errors, notes, results. The engine's results
// come redacted already; this catches the rest.
func WithRedactor(r *tape.Redactor) Option { return func(c *Controller) { c.redactor = r } }

// Controller is the command actor of a replay: one goroutine (Run) owns
// the replay's state; the engine's pipeline reports to it (Admit, Sent,
// Judged, End) and commands come from any goroutine. See the package
// documentation for the protocol.
type Controller struct {
	r            Replay
	log          zerolog.Logger
	onError      OnError
	startRunning bool
	redactor     *tape.Redactor // set before Run, read-only after

	cmds     chan command
	gates    chan *gateReq
	withdraw chan *gateReq
	events   chan event
	pauseCh  chan bool
	quit     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
	ran      atomic.Bool

	subs     subscribers
	watchers watchers

	// Everything below is owned by Run's goroutine.
	state     State
	reason    string
	budget    int // releases left in the current step; 0: none or no limit
	step      *stepRun
	seeking   int
	minEpoch  uint64
	held      []*gateReq // waiting at the gate, in arrival order
	unsent    seqCount   // released, not yet Sent
	unjudged  seqCount   // released, not yet Judged
	pausers   []chan reply
	waiters   []chan reply
	bps       []*breakpoint
	lastBP    int
	modify    []byte
	speed     scheduler.Speed
	next      int64
	standOn   int64 // the seq a seek paused before, until a release; -1: none
	last      *report.Result
	released  int64
	sent      int64
	judged    int64
	note      string
	pacerWant bool // the pause state the pacer should have
	pacerSent bool // the last one sent on pauseCh
	published Status
}

// New returns a controller for r. Call Run on a goroutine of its own, then
// Start.
func New(r Replay, opts ...Option) *Controller {
	c := &Controller{
		r:        r,
		standOn:  -1,
		log:      zerolog.Nop(),
		cmds:     make(chan command),
		gates:    make(chan *gateReq),
		withdraw: make(chan *gateReq),
		events:   make(chan event),
		pauseCh:  make(chan bool),
		quit:     make(chan struct{}),
		done:     make(chan struct{}),
		state:    Idle,
	}
	for _, o := range opts {
		o(c)
	}
	c.pacerWant = true // the gate is closed until Start
	c.published = c.status()
	c.subs.last = c.published
	return c
}

// PauseEvents returns the channel of the gate's state for the replay's
// clock (the engine stops the replay time its sessions share while it is
// paused): true when the gate closes (pause, a step done, a breakpoint,
// an error), false when it opens. The controller never blocks on it:
// while the reader is not reading, changes are folded and only the latest
// state is sent. It is closed when Run returns (which resumes the clock).
// Time a message spends held in the gate is returned by Admit.
func (c *Controller) PauseEvents() <-chan bool { return c.pauseCh }

// Run is the controller's goroutine. It returns nil after Stop, ctx.Err()
// when ctx is done, or ErrAlreadyRunning if Run was called before. When it
// returns, every blocked Admit and command returns ErrStopped and the
// subscribers' channels are closed.
func (c *Controller) Run(ctx context.Context) error {
	if !c.ran.CompareAndSwap(false, true) {
		return ErrAlreadyRunning
	}
	defer close(c.done)
	defer c.shutdown()
	for {
		var pauseOut chan<- bool
		if c.pacerWant != c.pacerSent {
			pauseOut = c.pauseCh
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-c.quit:
			return nil
		case cmd := <-c.cmds:
			c.handle(cmd)
		case g := <-c.gates:
			c.admit(g)
		case g := <-c.withdraw:
			c.unadmit(g)
		case ev := <-c.events:
			c.onEvent(ev)
		case pauseOut <- c.pacerWant:
			c.pacerSent = c.pacerWant
		}
		c.settle()
	}
}

// settle lets the held messages through that may now pass, answers the
// commands whose condition now holds, and publishes the status.
func (c *Controller) settle() {
	c.pump()
	if c.step != nil && stepDone(c.budget, c.step.pending.n) {
		c.step.reply <- reply{results: c.step.results}
		c.step = nil
	}
	if len(c.pausers) > 0 && (c.unsent.n == 0 || c.state == Running) {
		for _, p := range c.pausers {
			p <- reply{status: c.status()}
		}
		c.pausers = nil
	}
	if len(c.waiters) > 0 && c.stopped() {
		st := c.status()
		for _, w := range c.waiters {
			w <- reply{status: st}
		}
		c.waiters = nil
	}
	c.pacerWant = c.state != Running
	c.publish()
}

// stopped reports whether the replay has come to rest: paused with
// nothing released left unsent, or ended.
func (c *Controller) stopped() bool {
	return c.state == Ended || (c.state == Paused && c.unsent.n == 0 && c.seeking == 0)
}

// pause closes the gate for reason.
func (c *Controller) pause(reason string) {
	c.state, c.reason, c.budget = Paused, reason, 0
}

func (c *Controller) shutdown() {
	c.state, c.budget = Stopped, 0
	for _, g := range c.held {
		g.reply <- gateReply{err: ErrStopped}
	}
	c.held = nil
	if c.step != nil {
		c.step.reply <- reply{results: c.step.results, err: ErrStopped}
		c.step = nil
	}
	for _, p := range append(c.pausers, c.waiters...) {
		p <- reply{status: c.status(), err: ErrStopped}
	}
	c.pausers, c.waiters = nil, nil
	c.publish()
	c.subs.closeAll()
	c.watchers.closeAll()
	close(c.pauseCh)
	c.log.Debug().Msg("stopped")
}

// status is the current snapshot, without a subscriber's Dropped.
func (c *Controller) status() Status {
	st := Status{
		State:    c.state,
		Seq:      c.next,
		Reason:   c.reason,
		Speed:    c.speed.String(),
		Last:     c.last,
		Released: c.released,
		Sent:     c.sent,
		Judged:   c.judged,
		Note:     c.note,
	}
	if len(c.held) > 0 {
		st.Seq = c.held[0].m.Seq
	}
	return st
}

// publish sends the status to the subscribers when it has changed.
func (c *Controller) publish() {
	st := c.status()
	if st == c.published {
		return
	}
	c.published = st
	c.subs.publish(st)
}

// stepRun is a Step waiting for its messages to be judged.
type stepRun struct {
	reply   chan reply
	pending seqCount // released by this step, not yet judged
	results []report.Result
}

// seqCount is a multiset of seqs (virtual sessions share seqs).
type seqCount struct {
	m map[int64]int
	n int
}

func (s *seqCount) add(seq int64) {
	if s.m == nil {
		s.m = make(map[int64]int)
	}
	s.m[seq]++
	s.n++
}

// remove takes one seq out and reports whether it was there.
func (s *seqCount) remove(seq int64) bool {
	k := s.m[seq]
	if k == 0 {
		return false
	}
	if k == 1 {
		delete(s.m, seq)
	} else {
		s.m[seq] = k - 1
	}
	s.n--
	return true
}

func (s *seqCount) reset() { clear(s.m); s.n = 0 }

// now is the controller's clock (a fake one under testing/synctest).
func now() time.Time { return time.Now() }
