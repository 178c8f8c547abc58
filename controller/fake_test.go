package controller

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
)

// fakeEngine is a small replay pipeline for the controller's tests:
// load → schedule (a real scheduler.Pacer, then the gate) → execute (the
// "target" is a log) → validate. Like the engine, stages drop items of an
// older epoch before pacing them and before judging them; unlike it, the
// execute stage does not, so that a stale message the gate lets through
// shows in the log (marked with "!").
type fakeEngine struct {
	c     *Controller
	tape  []fakeMsg
	speed scheduler.Speed
	fails map[int64]report.Verdict
	// sendDelay is the time execute takes to write a message;
	// answerDelay the time validate waits for its answer.
	sendDelay, answerDelay time.Duration

	epoch  atomic.Uint64
	seeks  chan fakeSeek
	speeds chan scheduler.Speed
	start  time.Time

	mu  sync.Mutex // guards log
	log []sentRec  // what reached the target, in order
}

type fakeMsg struct {
	Msg
	at time.Duration // recorded offset
}

type fakeItem struct {
	fakeMsg
	epoch uint64
}

type fakeSeek struct {
	seq   int64
	epoch uint64
	done  chan error
}

type sentRec struct {
	seq     int64
	stale   bool
	at      time.Duration
	raw     string
	session string // injected messages only
}

// newTape returns n client requests, seq 0..n-1, gap apart; seq 0 is
// initialize, the rest tools/call with arguments.message "m<seq>".
func newTape(n int, gap time.Duration) []fakeMsg {
	t := make([]fakeMsg, n)
	for i := range t {
		method := "tools/call"
		if i == 0 {
			method = "initialize"
		}
		t[i] = fakeMsg{at: time.Duration(i) * gap}
		t[i].Msg = Msg{
			Seq: int64(i), Session: "s1", Dir: "c2s", Kind: "request", Method: method,
			ID: strconv.Itoa(i),
		}
		t[i].setRaw()
	}
	return t
}

func (m *fakeMsg) setRaw() {
	m.Raw = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":{"arguments":{"message":"m%d"}}}`, m.Seq, m.Method, m.Seq)
}

// run runs the pipeline until ctx is done or the controller stops.
func (e *fakeEngine) run(ctx context.Context, wg *sync.WaitGroup) {
	e.seeks = make(chan fakeSeek)
	e.speeds = make(chan scheduler.Speed, 1)
	e.start = time.Now()
	loaded := make(chan fakeItem, 4) // read-ahead, as the engine's: stale items wait here
	released := make(chan fakeItem)
	sent := make(chan fakeItem, 64)
	wg.Go(func() { e.load(ctx, loaded) })
	wg.Go(func() { e.schedule(ctx, loaded, released) })
	wg.Go(func() { e.execute(ctx, released, sent) })
	wg.Go(func() { e.validate(ctx, sent) })
}

func (e *fakeEngine) load(ctx context.Context, out chan<- fakeItem) {
	pos, epoch := 0, e.epoch.Load()
	for {
		var outCh chan<- fakeItem
		var next fakeItem
		if pos < len(e.tape) {
			outCh, next = out, fakeItem{fakeMsg: e.tape[pos], epoch: epoch}
		}
		select {
		case outCh <- next:
			pos++
		case s := <-e.seeks:
			pos, epoch = int(s.seq), s.epoch
			s.done <- nil
		case <-ctx.Done():
			return
		}
	}
}

func (e *fakeEngine) stale(it fakeItem) bool { return it.epoch < e.epoch.Load() }

func (e *fakeEngine) schedule(ctx context.Context, in <-chan fakeItem, out chan<- fakeItem) {
	p := scheduler.New(e.speed, scheduler.WithSpin(0),
		scheduler.WithControl(e.speeds), scheduler.WithPauseControl(e.c.PauseEvents()))
	epoch := ^uint64(0)
	for {
		var it fakeItem
		select {
		case it = <-in:
		case <-ctx.Done():
			return
		}
		if e.stale(it) {
			continue
		}
		if it.epoch != epoch {
			epoch = it.epoch
			p.Rebase()
		}
		if _, err := p.Wait(ctx, it.at); err != nil {
			return
		}
		adm, err := e.c.Admit(ctx, it.Msg, it.epoch)
		switch {
		case errors.Is(err, ErrStale):
			continue
		case err != nil:
			return
		}
		if adm.Held() > 0 {
			p.Pause(adm.HeldFrom)
			p.Resume(adm.HeldUntil)
		}
		if adm.Replace != nil {
			it.Raw = adm.Replace
		}
		select {
		case out <- it:
		case <-ctx.Done():
			return
		}
	}
}

func (e *fakeEngine) execute(ctx context.Context, in <-chan fakeItem, out chan<- fakeItem) {
	for {
		var it fakeItem
		select {
		case it = <-in:
		case <-ctx.Done():
			return
		}
		if e.sendDelay > 0 {
			time.Sleep(e.sendDelay)
		}
		e.record(sentRec{seq: it.Seq, stale: e.stale(it), raw: string(it.Raw)})
		e.c.Sent(it.Seq)
		out <- it // buffered: never blocks in these tests
	}
}

func (e *fakeEngine) validate(ctx context.Context, in <-chan fakeItem) {
	for {
		var it fakeItem
		select {
		case it = <-in:
		case <-ctx.Done():
			return
		}
		if e.answerDelay > 0 {
			time.Sleep(e.answerDelay)
		}
		if e.stale(it) {
			continue
		}
		v, ok := e.fails[it.Seq]
		if !ok {
			v = report.Passed
		}
		e.c.Judged(report.Result{Seq: it.Seq, Session: it.Session, Method: it.Method, Dir: it.Dir, Kind: it.Kind, Verdict: v})
		if int(it.Seq) == len(e.tape)-1 {
			e.c.End()
		}
	}
}

func (e *fakeEngine) record(r sentRec) {
	e.mu.Lock()
	defer e.mu.Unlock()
	r.at = time.Since(e.start)
	e.log = append(e.log, r)
}

// takeLog returns the log since the last call.
func (e *fakeEngine) takeLog(from int) ([]sentRec, int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]sentRec(nil), e.log[from:]...), len(e.log)
}

// Replay:

func (e *fakeEngine) Seek(ctx context.Context, seq int64) error {
	if seq >= int64(len(e.tape)) {
		return fmt.Errorf("seq %d is past the end of the tape (%d messages)", seq, len(e.tape))
	}
	s := fakeSeek{seq: seq, epoch: e.epoch.Add(1), done: make(chan error, 1)}
	select {
	case e.seeks <- s:
	case <-ctx.Done():
		return ctx.Err()
	}
	return <-s.done
}

func (e *fakeEngine) SetSpeed(s scheduler.Speed) {
	select {
	case <-e.speeds:
	default:
	}
	e.speeds <- s
}

func (e *fakeEngine) Inject(_ context.Context, session string, msg []byte) error {
	if session == "nope" {
		return errors.New("no session nope")
	}
	e.record(sentRec{seq: -1, raw: string(msg), session: session})
	return nil
}

func (e *fakeEngine) Lookup(seq int64) (Msg, bool) {
	if seq < 0 || seq >= int64(len(e.tape)) {
		return Msg{}, false
	}
	return e.tape[seq].Msg, true
}

var _ Replay = (*fakeEngine)(nil)

func formatLog(recs []sentRec) string {
	if len(recs) == 0 {
		return "-"
	}
	var b strings.Builder
	for i, r := range recs {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch {
		case r.session != "":
			b.WriteString("inject:" + r.session)
		case r.stale:
			fmt.Fprintf(&b, "%d!", r.seq)
		default:
			fmt.Fprintf(&b, "%d", r.seq)
		}
	}
	return b.String()
}

func resultFor(m Msg) report.Result {
	return report.Result{Seq: m.Seq, Session: m.Session, Method: m.Method, Verdict: report.Passed}
}
