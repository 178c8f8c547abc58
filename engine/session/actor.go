package session

// The session actor: one goroutine per replayed session.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/transport"
)

// Actor is one replayed session's goroutine, after the model of net/http's
// conn.serve: it owns the session's connection, its requests in flight and
// their deadlines, its clock, retries and reconnects, and reports what
// happens to its Sink. The router hands it the session's recorded
// messages through its mailbox (Put) and never waits for it; a slow or
// stuck target holds up this session only. What it shares with the other
// sessions is its Env, which it only reads.
type Actor struct {
	env  *Env
	sink Sink
	ss   *session
	mb   *mailbox
	ev   emitter

	// The actor's parts, each a concern of the one goroutine, with the
	// state it keeps: the requests in flight (pending.go), sending
	// (execute.go), what comes back (answers.go), chaos faults (chaos.go).
	rq *requests
	tx *sender
	rx *receiver
	fx *faults

	inputDone bool  // the mailbox is closed and emptied
	end       *Item // the end of the tape, passed on once all is judged
	// direct is the connection's stream of messages, read in the actor's
	// own select: nil while dialling and once the connection has ended.
	direct <-chan transport.Incoming
	taken  uint64        // messages taken from direct since its connection was made
	pace   alarm         // the head of the backlog falls due
	done   chan struct{} // closed when the actor returns
	// Sends made without waiting (async.go): their goroutines, how each
	// ended, and the context that stops them when the actor returns.
	sends    sync.WaitGroup
	sendDone chan sendResult
	gateDone chan gated // the gate's answer (gate.go)
	// resumed, while replay time stands still (a controller paused), is
	// closed when it runs again: the session's next message may be due.
	resumed <-chan struct{}
	ctx     context.Context
	cancel  context.CancelFunc
	// held is what this actor counts as held in the sink (Sink.Release): the
	// items in its backlog, its shuffled run and its held-back messages.
	held int
	// startAt is when the session may connect: its recorded start by the
	// run's clock (speeds that pace by recorded time), else at once.
	startAt time.Time
	live0   bool // connected: counted (Sink.Count, Connected)
	// sendAt, while drain hands a message on, is the clock read drain
	// made for it (zero: none): the first send takes it as its send time
	// rather than reading the clock again (sender.now).
	sendAt time.Time
	// batch is the sink when it takes batches (nil: one by one), outs the
	// outcomes not yet handed to it (emit, flush).
	batch BatchSink
	outs  []*Outcome
}

// New returns the actor of the session name, which may connect at
// startAt; Run runs it. env is shared and read only.
func New(env *Env, sink Sink, name string, startAt time.Time) *Actor {
	x := &Actor{
		env: env, sink: sink,
		ev:       emitter{ev: env.Events, red: env.Redactor, name: name},
		ss:       newSession(name, nil),
		mb:       newMailbox(),
		done:     make(chan struct{}),
		sendDone: make(chan sendResult),
		gateDone: make(chan gated),
		pace:     newAlarm(),
		startAt:  startAt,
	}
	if b, ok := sink.(BatchSink); ok {
		x.batch = b
	}
	x.rq = &requests{x: x, polls: make(chan *pend)}
	x.rq.timer = time.AfterFunc(time.Hour, x.rq.fire)
	x.rq.timer.Stop()
	x.tx = &sender{x: x}
	x.rx = &receiver{x: x, askTimer: stoppedTimer(), tapeTimer: stoppedTimer()}
	x.fx = &faults{x: x, chaosExpired: make(chan *pend)}
	return x
}

func stoppedTimer() *time.Timer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}

// Run is the actor's goroutine. It connects the session when its start
// comes, then replays what the mailbox brings until the input has ended
// (Close) and everything sent has been reported, or until ctx is done. An
// error that wraps transport.ErrTarget ends the whole replay; what was in
// flight is reported as failed first. Last of all it tells the sink it
// has ended (Sink.Ended).
func (x *Actor) Run(ctx context.Context) (err error) {
	x.ctx, x.cancel = context.WithCancel(ctx)
	// The session's end event, last of all.
	defer func() { x.ev.ended(ctx, err) }()
	if x.env.SessionEnds { // last: after what was in flight is reported
		defer func() { x.emitEnd(ctx, err) }()
	}
	defer x.sink.Ended(x)
	// What was judged, and what abandon reports, goes on before the sink
	// hears that the actor has ended; validate reads until every actor
	// has returned (see validate), so this goes through although ctx is
	// done.
	defer func() { _ = x.flush(context.WithoutCancel(ctx)) }()
	defer x.close()
	defer func() { x.sink.Release(x.held + x.mb.shut()) }()
	defer func() { // a failed target or an interrupt: what was in flight is reported, not lost
		cause := err
		if !errors.Is(cause, ErrTarget) {
			cause = context.Cause(ctx) // another session's target failed, or the run was stopped
		}
		switch {
		case errors.Is(cause, ErrTarget):
		case (errors.Is(cause, context.Canceled) || errors.Is(cause, context.DeadlineExceeded)) && !x.env.Controlled && ctx.Err() != nil:
			// Interrupted (a debugger's run always ends so: not there).
			cause = errInterrupted
		default:
			return
		}
		// validate reads until every actor has returned (see validate),
		// so these reports go through although ctx is done.
		x.rq.abandon(context.WithoutCancel(ctx), cause)
	}()
	early, err := x.firstGo(ctx)
	x.held += len(early.items) // held until handled: released on return if never
	if err != nil {
		return err
	}
	if err := x.connect(ctx); err != nil {
		return err
	}
	x.held -= len(early.items)
	sendsFirst(x.env, x.ss, early, x.ss.freeAt)
	if err := x.handleMail(ctx, early); err != nil {
		return err
	}
	quick := 0 // answers taken in a row without the select
	for !x.finished() {
		if err := x.passEnd(ctx); err != nil {
			return err
		}
		if x.finished() {
			break
		}
		x.rq.armTimer()
		x.account()
		// An answer waiting on the connection is the most common thing
		// to do next (the mock's is there before its Send returns): it is
		// taken with a receive that does not wait, which costs a fraction
		// of the select below over every source. At most maxQuick in a
		// row, so that the mailbox and the timers are looked at too.
		if x.direct != nil && quick < maxQuick {
			select {
			case inc, ok := <-x.direct:
				quick++
				if err := x.arriveDirect(ctx, inc, ok); err != nil {
					return err
				}
				continue
			default:
			}
		}
		quick = 0
		// About to wait: what the actor has judged so far goes on first.
		if err := x.flush(ctx); err != nil {
			return err
		}
		// Each case of the select costs every time the actor waits, and
		// most of the sources below are idle in most runs: those that
		// cannot fire now are nil channels, which the select leaves out.
		var pace, asked, tapeWait <-chan time.Time
		var polls, chaosExpired <-chan *pend
		var gateDone <-chan gated
		if !x.pace.at.IsZero() {
			pace = x.pace.C()
		}
		if x.ss.awaiting != nil || x.ss.notesWait {
			asked = x.rx.askTimer.C
		}
		if len(x.ss.liveAsks) > 0 {
			tapeWait = x.rx.tapeTimer.C
		}
		if len(x.fx.chaosTimers) > 0 { // their senders (chaosDeadline, poll)
			polls, chaosExpired = x.rq.polls, x.fx.chaosExpired
		}
		if x.env.Gate != nil {
			gateDone = x.gateDone
		}
		select {
		case <-x.mb.wake:
			if err := x.takeMail(ctx); err != nil {
				return err
			}
			if x.rq.due.Swap(false) { // the deadline timer fired (see fire)
				x.rq.armedAt = time.Time{}
				now := time.Now()
				if err := x.takeArrived(ctx, now); err != nil {
					return err
				}
				if err := x.rq.expire(ctx, now); err != nil {
					return err
				}
			}
		case inc, ok := <-x.direct:
			if err := x.arriveDirect(ctx, inc, ok); err != nil {
				return err
			}
		case r := <-x.sendDone:
			if err := x.tx.sendEnded(ctx, r); err != nil {
				return err
			}
		case <-x.resumed:
			x.resumed = nil
			if err := x.drain(ctx, x.ss); err != nil {
				return err
			}
		case a := <-gateDone:
			if err := x.tx.gateAnswered(ctx, a); err != nil {
				return err
			}
		case p := <-polls:
			if p.answered() { // ended while it waited (timed out, lost in a disconnect): reported already
				break
			}
			if err := x.rq.resend(ctx, p); err != nil {
				return err
			}
		case p := <-chaosExpired:
			if !p.answered() {
				if err := x.rq.timeOut(ctx, p, fmt.Sprintf("no answer within %s to a message with an injected fault (chaos)", min(chaosWait, x.env.Timeout))); err != nil {
					return err
				}
			}
		case <-pace:
			x.pace.fired()
			if err := x.drain(ctx, x.ss); err != nil {
				return err
			}
		case <-asked:
			if err := x.rx.askExpired(ctx); err != nil {
				return err
			}
		case <-tapeWait: // drain asks them again, and goes on if one was answered
			if err := x.drain(ctx, x.ss); err != nil {
				return err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// finished reports whether the actor has nothing left to do: the input
// has ended, nothing is in flight or held, the end of the tape is passed
// on, and no notification is waited for.
func (x *Actor) finished() bool {
	return x.inputDone && x.rq.live == 0 && len(x.ss.backlog) == 0 && x.end == nil && !x.ss.notesWait
}

// takeArrived takes what the connection had read by now before the
// deadlines are judged at now: an answer that came in time is no timeout
// because the actor was busy when it came (a Send the target was slow to
// take), nor because the timer won the select against it. From a
// connection that counts what it read (transport.ArrivalCounter) the
// actor receives until it has taken as many; from others, what waits on
// Incoming is taken. It stops at the first message read after now: what
// follows came later still.
func (x *Actor) takeArrived(ctx context.Context, now time.Time) error {
	q, _ := x.ss.conn.(transport.ArrivalCounter)
	for x.direct != nil {
		var inc transport.Incoming
		var ok bool
		select {
		case inc, ok = <-x.direct:
		default:
			if q == nil || q.Arrived() <= x.taken {
				return nil
			}
			select { // its reader's queue hands it on
			case inc, ok = <-x.direct:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if err := x.arriveDirect(ctx, inc, ok); err != nil {
			return err
		}
		if ok && inc.At.After(now) {
			return nil
		}
	}
	return nil
}

// maxQuick bounds the answers the actor takes in a row without looking
// at its other sources (Run); as many as a batch of outcomes holds, since
// the actor hands its outcomes on before it looks (flush).
const maxQuick = maxBatch

// arriveDirect handles what a receive from the connection's stream gave:
// a message, or (ok false) the news that the stream ended.
func (x *Actor) arriveDirect(ctx context.Context, inc transport.Incoming, ok bool) error {
	a := arrival{inc: inc}
	if ok {
		x.taken++
	} else {
		a = arrival{closed: true, err: x.ss.conn.Err()}
		x.direct = nil
	}
	return x.rx.arrive(ctx, a)
}

// arrival is a message from the session's connection, or (closed) the
// news that the connection ended.
type arrival struct {
	inc    transport.Incoming
	closed bool
	err    error
}

// connect dials the session's connection within the replay's timeout.
func (x *Actor) connect(ctx context.Context) error {
	began := time.Now()
	c, err := x.dial(ctx)
	if err != nil {
		return targetErr(fmt.Sprintf("connect session %s", x.ss.name), err)
	}
	now := time.Now()
	x.ev.about(now, event.Dialled, "in "+now.Sub(began).String())
	x.sink.Count(Connected) // from now on it replays: see queueLimit and spin
	x.live0 = true
	x.ss.setConn(c)
	x.direct, x.taken = c.Incoming(), 0
	// Messages released while the connection was being made were held by
	// the target's start-up (global pacing counts it as held, not lag).
	x.ss.freeAt = now
	return nil
}

// dial opens a connection for the session, within the replay's timeout.
func (x *Actor) dial(ctx context.Context) (transport.Conn, error) {
	dctx, cancel := context.WithTimeout(ctx, x.env.Timeout)
	defer cancel()
	c, err := x.env.Dialer.Dial(dctx, x.ss.name)
	switch {
	case err == nil:
		return c, nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case dctx.Err() != nil:
		return nil, fmt.Errorf("no connection within %s (the timeout): %w", x.env.Timeout, err)
	}
	return nil, err
}

// mail is what the mailbox held at a take.
type mail struct {
	items  []*Item
	reqs   []actorReq
	closed bool
}

// firstGo waits until the session may connect: its recorded start (at
// the speeds that pace by recorded time, startAt); at the speeds that pace
// by count (fixed, rps), until its first client message's shared ticket
// falls due (it takes it); with a gate, until the gate has let that
// message through (a debugger's session connects at its first step). So a
// session connects as its first message goes, as it did when a schedule
// stage released messages to the sessions, and the sessions of a long
// tape connect as their turn comes, not all at once. It returns what the
// mailbox brought meanwhile, for the loop; work for the actor (a
// controller's), or the end of an input with no client message to pace,
// ends the wait at once.
func (x *Actor) firstGo(ctx context.Context) (mail, error) {
	var early mail
	ss := x.ss
	t := stoppedTimer()
	defer t.Stop()
	for {
		if len(early.reqs) > 0 {
			return early, nil
		}
		it := firstPaced(x.env, early.items)
		switch {
		case it == nil && (early.closed || firstNotPaced(x.env, early.items)):
			return early, nil
		case it == nil || ss.gating == it:
		case it.admitted:
			return early, nil
		case time.Until(x.startAt) > 0:
			t.Reset(time.Until(x.startAt))
		default:
			if sp := x.env.Speed(); (sp.Mode == scheduler.Fixed || sp.Mode == scheduler.Rate) && it.Due.IsZero() {
				now := time.Now()
				due, ok := x.env.Timing.Take(now, x.spin(ss), it.Epoch)
				if !ok {
					t.Reset(due.Sub(now))
					break
				}
				ss.pacing, it.Due = ss.pacing.ticketed(pacedOf(it), due)
			}
			if x.env.Gate == nil {
				return early, nil
			}
			x.tx.askGate(ss, it)
		}
		select {
		case <-x.mb.wake:
			items, reqs, closed := x.mb.take()
			early.items = append(early.items, items...) // the mailbox reuses its slice
			clear(items)
			early.reqs, early.closed = append(early.reqs, reqs...), closed
		case <-t.C:
		case a := <-x.gateDone:
			if ss.gating != a.it {
				continue
			}
			ss.gating = nil
			switch {
			case a.Err != nil:
				return early, a.Err
			case !a.Pass: // stale: dropped
				early.items = slices.DeleteFunc(early.items, func(it *Item) bool { return it == a.it })
				x.sink.Release(1)
			default:
				admit(a.it, a.Admission, x.env.Timing)
			}
		case <-ctx.Done():
			return early, ctx.Err()
		}
	}
}

// firstNotPaced reports whether the first of items of the current epoch
// is a message that is not paced.
func firstNotPaced(env *Env, items []*Item) bool {
	for _, it := range items {
		if !it.End && !env.stale(it) {
			return !it.Paced() || it.Injected
		}
	}
	return false
}

// sendsFirst is called once connected: a first message the gate let
// through before the session connected is due now, the session's clock
// anchored on it (speeds that pace by recorded time), as due would have.
func sendsFirst(env *Env, ss *session, early mail, connected time.Time) {
	it := firstPaced(env, early.items)
	if it == nil || !it.admitted || !it.Due.IsZero() {
		return
	}
	it.Due = connected
	if sp := env.Speed(); sp.ByTime() {
		ss.pacing = ss.pacing.anchored(sp, connected, it.Rec.TUS, it.Epoch, env.Timing.Frozen())
	}
}

// firstPaced is the first of items of the current epoch, if it is a
// recorded client message that is paced; nil if there is none, or if the
// first is not paced (it needs the connection at once).
func firstPaced(env *Env, items []*Item) *Item {
	for _, it := range items {
		if it.End || env.stale(it) {
			continue
		}
		if !it.Paced() || it.Injected {
			return nil
		}
		return it
	}
	return nil
}

// takeMail takes what the router and the controller left in the mailbox.
func (x *Actor) takeMail(ctx context.Context) error {
	items, reqs, closed := x.mb.take()
	return x.handleMail(ctx, mail{items, reqs, closed})
}

// handleMail handles what the mailbox held.
func (x *Actor) handleMail(ctx context.Context, m mail) error {
	items, reqs, closed := m.items, m.reqs, m.closed
	x.sink.Release(len(items))
	for i, it := range items {
		items[i] = nil
		if err := x.handle(ctx, it); err != nil {
			return err
		}
	}
	for _, r := range reqs {
		err := r.fn(ctx, x)
		if ferr := x.flush(ctx); err == nil {
			err = ferr
		}
		r.done <- err
		if err != nil {
			return err
		}
	}
	if closed && !x.inputDone {
		if err := x.flushRun(ctx, x.ss); err != nil { // the last run of OrderRandom
			return err
		}
		x.inputDone = true
		if len(x.ss.liveAsks) > 0 { // no recorded twin comes now: drain asks them again
			return x.drain(ctx, x.ss)
		}
		return x.rq.settle(ctx, x.ss)
	}
	return nil
}

// account tells the sink how many items the actor holds, so that the
// router reads ahead only so far (Sink.Release).
func (x *Actor) account() {
	n := len(x.ss.backlog) + len(x.ss.run) + len(x.ss.heldBack)
	if d := n - x.held; d != 0 {
		x.held = n
		x.sink.Release(-d)
	}
}

// handle takes the next recorded message of the session: at once, or into
// its backlog while the session waits.
func (x *Actor) handle(ctx context.Context, it *Item) error {
	if x.env.stale(it) {
		x.sentOrDropped(it)
		return nil
	}
	if it.End {
		x.end = it
		return nil
	}
	ss := x.ss
	if x.env.Order == OrderRandom {
		// The handshake is never shuffled: it opens the conversation.
		if it.Paced() && !it.Injected && !mcp.IsHandshake(it.RPC.Method) {
			ss.run = append(ss.run, it) // shuffled when the run ends
			if len(ss.run) < maxRun {
				return nil
			}
			return x.flushRun(ctx, ss)
		}
		if err := x.flushRun(ctx, ss); err != nil {
			return err
		}
	}
	return x.take(ctx, ss, it)
}

// take queues a recorded message behind the session's backlog and
// replays what may go now. The live server's requests waiting in a held
// session are asked again only when it may settle one of them (see
// session.asksChecked): a session held through a long backlog rechecked
// each of them against the whole backlog on every push.
func (x *Actor) take(ctx context.Context, ss *session, it *Item) error {
	recheck := !ss.asksChecked || !ss.held(x.env.MaxInflight) || ss.movesAsks(it) // asksChecked: asks are waiting
	ss.push(it)
	return x.drainAfter(ctx, ss, recheck, true)
}

// drain replays the session's backlog for as long as the session may go
// on and its next message is due, then settles it if nothing more can be
// recorded for it.
func (x *Actor) drain(ctx context.Context, ss *session) error {
	return x.drainAfter(ctx, ss, true, false)
}

// drainAfter is drain; recheck: the live server's waiting requests are
// asked again first; pushed: called after a push (take), nothing else
// since the last drain.
func (x *Actor) drainAfter(ctx context.Context, ss *session, recheck, pushed bool) error {
	ss.asksChecked = false
	if recheck && (len(ss.liveAsks) > 0 || len(ss.asked) > 0) { // what the tape brought, or the session's release, may settle them
		if err := x.rx.recheckAsks(ctx); err != nil {
			return err
		}
	}
	popped := false
	for len(ss.backlog) > 0 {
		it := ss.backlog[0]
		if x.env.stale(it) {
			popped = true
			x.pop(ss)
			if ss.gating == it { // the gate drops it too
				ss.gating = nil
			}
			x.sentOrDropped(it)
			continue
		}
		if ss.awaiting != nil && x.env.stale(ss.awaiting) { // a seek went past it
			x.rx.endAwait(ss)
		}
		if ss.held(x.env.MaxInflight) {
			if !ss.blocked {
				x.ev.held(it, ss.holdReason(x.env.MaxInflight))
			}
			ss.blocked = true
			break
		}
		// One clock read for the message: when the session was let go
		// on, when the message was found due, and when it is sent, all
		// a moment apart (see sendAt).
		var now time.Time
		if ss.blocked { // the target's answers let the session go on now
			now = time.Now()
			ss.blocked, ss.freeAt = false, now
			if at := ss.answerAt; !at.IsZero() && at.Before(now) {
				ss.freeAt = at // the answer came then: free since
			}
		}
		if it.Paced() && !it.admitted {
			if ss.gating == it {
				break // at the gate
			}
			due, err := x.due(ctx, ss, it, &now)
			if err != nil {
				return err
			}
			if !due {
				break
			}
			if x.env.Gate != nil {
				x.tx.askGate(ss, it)
				break
			}
		}
		popped = true
		x.pop(ss)
		x.sendAt = now
		err := x.tx.process(ctx, ss, it)
		x.sendAt = time.Time{}
		if err != nil {
			return err
		}
	}
	// Held with nothing taken from the backlog: the waiting requests were
	// asked against it as it is now, but for the pushed message (which
	// take looked at). Anything else that happens drains again.
	ss.asksChecked = pushed && !popped && (len(ss.liveAsks) > 0 || len(ss.asked) > 0) && ss.held(x.env.MaxInflight)
	return x.rq.settle(ctx, ss)
}

func (x *Actor) pop(ss *session) { ss.pop() }

// close ends the connection and the actor's timers.
func (x *Actor) close() {
	if x.live0 {
		x.sink.Count(Disconnected)
	}
	close(x.done)
	x.cancel()
	x.rq.timer.Stop()
	x.pace.close()
	x.rx.askTimer.Stop()
	x.rx.tapeTimer.Stop()
	for _, t := range x.fx.chaosTimers {
		t.Stop()
	}
	if x.ss.conn != nil {
		if err := x.ss.conn.Close(); err != nil {
			x.env.Log.Debug().Str("session", x.ss.name).Err(err).Msg("close connection")
		}
	}
	x.sends.Wait()
}

// armTimer sets the timer for the oldest unanswered request's deadline
// unless it is set already for that time or an earlier one. Deadlines are
// in send order, so the timer is left as it is while requests are
// answered: it fires at most once a timeout (early, and expire finds
// nothing due) rather than being moved on every answer; the runtime's
// timer lock is not taken on every message.
func (r *requests) armTimer() {
	r.trim()
	if len(r.fifo) == 0 {
		return
	}
	d := r.fifo[r.head].deadline
	if !r.armedAt.IsZero() && !d.Before(r.armedAt) {
		return
	}
	r.armedAt = d
	r.timer.Reset(time.Until(d))
}

// trim drops the answered requests at the head of fifo. The slice's
// memory is reused from its start when it has emptied (or its dropped
// head is most of it), where slicing the head off had append allocate
// anew for every request of a session that waits for each answer.
func (r *requests) trim() {
	for r.head < len(r.fifo) && r.fifo[r.head].answered() {
		r.fifo[r.head] = nil
		r.head++
	}
	switch {
	case r.head == len(r.fifo):
		r.fifo, r.head = r.fifo[:0], 0
	case r.head >= 64 && 2*r.head >= len(r.fifo):
		n := copy(r.fifo, r.fifo[r.head:])
		clear(r.fifo[n:])
		r.fifo, r.head = r.fifo[:n], 0
	}
}

// fire is the timer's: it tells the actor through its mailbox's wake,
// which the actor waits on anyway, rather than a channel of its own in
// the actor's select.
func (r *requests) fire() {
	r.due.Store(true)
	r.x.mb.signal()
}

// sendBounded sends a message that is not a recorded request of its own
// (an answer to the server, a cancellation, a resend) on the session's
// connection within the replay's timeout: no write to the target waits
// longer than a request would. Whether the Send holds its caller is
// session.concurrent's (found once per connection), not a type assertion
// per send: an answer to the server goes this way for each of its asks.
func (r *sender) sendBounded(ctx context.Context, ss *session, msg []byte) error {
	x := r.x
	if ss.concurrent {
		if err := x.flush(ctx); err != nil {
			return err
		}
	}
	c := ss.conn
	return x.tx.bounded(ctx, func(ctx context.Context) error { return c.Send(ctx, msg) })
}

// bounded runs one write to the target within the replay's timeout.
func (r *sender) bounded(ctx context.Context, write func(context.Context) error) error {
	x := r.x
	wctx, cancel := context.WithTimeout(ctx, x.env.Timeout)
	defer cancel()
	return write(wctx)
}

func isRequest(it *Item) bool { return it.RPC.Kind == jsonrpc.KindRequest }

// errInterrupted is the fate of a request in flight when the replay was
// interrupted.
var errInterrupted = errors.New("the replay was interrupted before the answer came")

// interruptedBy reports whether a send failed by err because the run's
// deadline (ctx's) passed, and if so waits until ctx is done. A stdio
// connection's write, and a dial of net/http, take their deadline from
// ctx, and can fail by it a moment before ctx's own timer ends ctx,
// longer under load (the lean HTTP connection does not: it fails by ctx
// only once ctx is done): such a request did not time out by the
// replay's timeout, the replay was interrupted while it was in flight.
// ctx's deadline has passed, so the wait is short. own is the request's
// own deadline (zero: none): one that came before ctx's is a timeout.
func interruptedBy(ctx context.Context, err error, own time.Time) bool {
	d, ok := ctx.Deadline()
	if !ok || time.Now().Before(d) || !errors.Is(err, context.DeadlineExceeded) || !own.IsZero() && own.Before(d) {
		return false
	}
	<-ctx.Done()
	return true
}
