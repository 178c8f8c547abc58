package debug

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/replayctl/replayctl/controller"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/report"
)

// Place is where the replay stands after a move: the controller's status
// and the next client message (at or after Status.Seq), when the tape
// has one.
type Place struct {
	Status  controller.Status
	Next    controller.Msg
	HasNext bool
}

// Stopped reports whether the replay stopped at something a person should
// see named: a pause, a breakpoint or an error (Status.Reason says which).
func (p Place) Stopped() bool {
	r := p.Status.Reason
	return p.Status.State == controller.Paused && (r == "pause" || strings.HasPrefix(r, "breakpoint") || strings.HasPrefix(r, "error"))
}

// Begin starts the replay and replays the initialize handshake (the
// initialize request and the initialized notification of the tape's first
// session) one message at a time, showing each result, and stops before
// the message after it; a tape without them stops before its first
// message, as does every tape with StopAtStart. It then serves the control
// socket (WithControl). Call it first, once.
//
// An error of the handshake (an answer that failed, a timeout) is
// returned with the place it left; the session goes on. When Ended(err),
// the control socket is not served.
func (s *Session) Begin(ctx context.Context) (Place, error) {
	if err := s.c.Start(ctx); err != nil {
		return Place{}, err
	}
	if m, ok := s.look(0); ok {
		s.defaultSession = m.Session
	}
	var p Place
	var err error
	if s.stopAtStart {
		p, err = s.place(ctx)
	} else {
		p, err = s.handshake(ctx)
	}
	if !Ended(err) {
		s.readyOnce.Do(func() { close(s.ready) })
	}
	return p, err
}

// handshake steps through the initialize request and the initialized
// notification of the tape's first session, and stops before the message
// after them. A tape without them stops before its first message.
func (s *Session) handshake(ctx context.Context) (Place, error) {
	last := int64(-1)
	for seq := int64(0); seq < 10000; seq++ {
		m, ok := s.look(seq)
		if !ok {
			break
		}
		if m.Dir == report.DirC2S && m.Method == mcp.NotificationInitialized {
			last = seq
			break
		}
	}
	var shown []report.Result
	for {
		st, err := s.c.Status(ctx)
		if err != nil {
			return Place{}, err
		}
		m, ok := s.current(st)
		if !ok || m.Seq > last || st.State != controller.Paused || strings.HasPrefix(st.Reason, "error") {
			return s.settle(ctx, shown)
		}
		rs, err := s.c.Step(ctx, 1)
		for _, r := range rs {
			s.show(r)
		}
		shown = append(shown, rs...)
		if err != nil {
			return Place{}, err
		}
	}
}

// Step sends the next n client messages, one at a time, each judged,
// shows their results, and returns where the replay stopped, once every
// released message that can still be judged has been (within the answer
// timeout). Results judged late (an interrupted step's answer) are shown
// first.
//
// An interrupt (Controller.Interrupt, Ctrl-C) makes it return at once,
// even while it waits for an answer, with the place and an error wrapping
// controller.ErrInterrupted: the answer still awaited is shown when it
// has come, by the next Step or Continue.
func (s *Session) Step(ctx context.Context, n int) (Place, error) {
	s.showJudged()
	rs, err := s.c.Step(ctx, n)
	for _, r := range rs {
		s.show(r)
	}
	if errors.Is(err, controller.ErrInterrupted) {
		p, perr := s.place(ctx)
		if perr != nil {
			return p, perr
		}
		return p, err
	}
	if err != nil {
		return Place{}, err
	}
	return s.settle(ctx, rs)
}

// Continue resumes the replay and shows each result as it is judged, so
// that a paced replay is seen as it goes, until the replay stops (a
// breakpoint, a failed answer with on-error pause, a pause, the end of the
// tape); then it shows what was judged late and returns where it stopped.
func (s *Session) Continue(ctx context.Context) (Place, error) {
	s.showJudged() // late ones (an interrupted step's answer)
	if err := s.c.Resume(ctx); err != nil {
		return Place{}, err
	}
	wctx, cancel := context.WithCancel(ctx)
	stopped := make(chan error, 1)
	go func() {
		_, err := s.c.WaitStop(wctx)
		stopped <- err
	}()
	defer func() {
		cancel()
		<-stopped // drained or already received: the goroutine has ended
	}()
	for {
		select {
		case <-s.j.added:
			s.showJudged()
		case err := <-stopped:
			stopped <- err // for the deferred drain
			if err != nil {
				return Place{}, err
			}
			s.showJudged()
			return s.settle(ctx, nil)
		}
	}
}

// Pause stops a replay that runs: it returns once nothing more will be
// sent and what was sent is judged (within the answer timeout), with the
// results shown.
func (s *Session) Pause(ctx context.Context) (Place, error) {
	if err := s.c.Pause(ctx); err != nil {
		return Place{}, err
	}
	return s.settle(ctx, nil)
}

// Seek goes to seq. What was in flight is of the old position now: never
// judged, never shown; what was judged before and not shown is let go.
func (s *Session) Seek(ctx context.Context, seq int64) (Place, error) {
	if err := s.c.Seek(ctx, seq); err != nil {
		return Place{}, err
	}
	return s.sought(ctx)
}

// SeekMatch goes to the next client message after the current one that
// matches spec (a method or an expression, as a breakpoint's), as Seek
// does; controller.ErrNoMatch, wrapped, when none does.
func (s *Session) SeekMatch(ctx context.Context, spec string) (Place, error) {
	if _, err := s.c.SeekMatch(ctx, spec); err != nil {
		return Place{}, err
	}
	return s.sought(ctx)
}

// sought lets go of what was judged before a seek, and counts what was in
// flight (never to be judged now) for settle.
func (s *Session) sought(ctx context.Context) (Place, error) {
	st, err := s.c.Status(ctx)
	if err != nil {
		return Place{}, err
	}
	if err := s.j.catchUp(ctx, st.Judged, s.timeout+time.Second); err != nil {
		return Place{}, err
	}
	s.j.take()
	s.unjudged = st.Released - st.Judged
	return s.placeOf(st), nil
}

// showJudged shows the results judged since the last take (not those of
// injected messages: Inject shows its own).
func (s *Session) showJudged() {
	for _, r := range s.j.take() {
		if r.Seq >= 0 {
			s.show(r)
		}
	}
}

// settle waits until every released message that can still be judged has
// been (a breakpoint can stop the replay while the answer to the message
// before it is on its way), then shows what was judged since the last
// command (but what is in shown), and returns where the replay stopped.
func (s *Session) settle(ctx context.Context, shown []report.Result) (Place, error) {
	st, err := s.waitJudged(ctx)
	if err != nil {
		return Place{}, err
	}
	if err := s.j.catchUp(ctx, st.Judged, s.timeout+time.Second); err != nil {
		return Place{}, err
	}
	for _, r := range s.j.take() {
		if r.Seq < 0 || slices.ContainsFunc(shown, func(x report.Result) bool { return x.Seq == r.Seq && x.Session == r.Session }) {
			continue
		}
		s.show(r)
	}
	return s.placeOf(st), nil
}

// waitJudged waits, a timeout at most, for released == judged (less the
// ones a seek dropped) and returns the status then.
func (s *Session) waitJudged(ctx context.Context) (controller.Status, error) {
	updates, unsubscribe := s.c.Subscribe(16)
	defer unsubscribe()
	st, err := s.c.Status(ctx)
	if err != nil {
		return st, err
	}
	deadline := time.NewTimer(s.timeout + time.Second)
	defer deadline.Stop()
	for st.Judged+s.unjudged < st.Released && st.State != controller.Running {
		select {
		case u, ok := <-updates:
			if !ok {
				return st, controller.ErrStopped
			}
			st = u
		case <-deadline.C:
			return st, nil
		case <-ctx.Done():
			return st, ctx.Err()
		}
	}
	return st, nil
}

// place is where the replay stands now.
func (s *Session) place(ctx context.Context) (Place, error) {
	st, err := s.c.Status(ctx)
	if err != nil {
		return Place{}, err
	}
	return s.placeOf(st), nil
}

func (s *Session) placeOf(st controller.Status) Place {
	m, ok := s.current(st)
	return Place{Status: st, Next: m, HasNext: ok}
}

// current is the next client message at or after the status's seq.
func (s *Session) current(st controller.Status) (controller.Msg, bool) {
	m, ok := s.c.NextClient(st.Seq)
	if !ok {
		return controller.Msg{}, false
	}
	return s.look(m.Seq)
}
