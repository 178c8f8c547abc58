package debug

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/replayctl/replayctl/controller"
	"github.com/replayctl/replayctl/internal/editdist"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
)

// ErrNothingJudged is View's error before any answer was judged.
var ErrNothingJudged = errors.New("no answer judged yet; step first")

// Standing is where the replay stands, for status: the controller's
// status, the seq of the next client message, and how many answers were
// compared with the recording (the summary's count: a notification sent
// is not).
type Standing struct {
	Status  controller.Status
	Next    int64
	Checked int64
}

// Status returns where the replay stands. The verdicts reach the session
// a little after the controller counts them: Status waits for them (the
// answer timeout at most), so that Checked counts them.
func (s *Session) Status(ctx context.Context) (Standing, error) {
	st, err := s.c.Status(ctx)
	if err != nil {
		return Standing{}, err
	}
	if err := s.j.catchUp(ctx, st.Judged, s.timeout+time.Second); err != nil {
		return Standing{}, err
	}
	next := st.Seq
	if m, ok := s.current(st); ok {
		next = m.Seq
	}
	return Standing{Status: st, Next: next, Checked: s.j.checkedSoFar()}, nil
}

// Line is one message of List: the tape's message, as it may be shown,
// and whether it is the next client message.
type Line struct {
	Msg     controller.Msg
	Current bool
}

// List returns the tape's messages around the next client message,
// around of them on each side.
func (s *Session) List(ctx context.Context, around int64) ([]Line, error) {
	st, err := s.c.Status(ctx)
	if err != nil {
		return nil, err
	}
	cur := st.Seq
	if m, ok := s.current(st); ok {
		cur = m.Seq
	}
	var lines []Line
	for seq := max(cur-around, 0); seq <= cur+around; seq++ {
		m, ok := s.look(seq)
		if !ok {
			break
		}
		lines = append(lines, Line{Msg: m, Current: seq == cur})
	}
	return lines, nil
}

// Message returns the tape's message with that seq, as it may be shown
// (credentials masked, secrets redacted: Shown).
func (s *Session) Message(seq int64) (controller.Msg, bool) { return s.look(seq) }

// Next returns the next client message, as it may be shown; false at the
// end of the tape.
func (s *Session) Next(ctx context.Context) (controller.Msg, bool, error) {
	st, err := s.c.Status(ctx)
	if err != nil {
		return controller.Msg{}, false, err
	}
	m, ok := s.current(st)
	return m, ok, nil
}

// View is the expected-vs-actual view of the last request judged: what
// the target answered (Actual) and what the tape recorded (Expected),
// whole, nil when there is none (a timeout has no answer), and how they
// differ.
type View struct {
	Seq         int64
	Method      string
	Verdict     report.Verdict
	Actual      json.RawMessage
	Expected    json.RawMessage
	Differences []report.Difference
	Err         string // why it failed, when no difference says it (a timeout, an error)
}

// View returns the expected-vs-actual view of the last request whose
// result was shown, or ErrNothingJudged.
func (s *Session) View() (View, error) {
	if s.last == nil {
		return View{}, ErrNothingJudged
	}
	return ViewOf(*s.last), nil
}

// ViewOf is the expected-vs-actual view of a result (one OnShow is
// handed, say).
func ViewOf(r report.Result) View {
	return View{Seq: r.Seq, Method: r.Method, Verdict: r.Verdict, Actual: r.Answer, Expected: r.Recorded,
		Differences: slices.Clone(r.Differences), Err: r.Err}
}

// Break adds a breakpoint before a message: a seq ("12"), a method
// ("tools/call") or an expression (`params.name == "echo"`).
func (s *Session) Break(ctx context.Context, spec string) (controller.Breakpoint, error) {
	return s.c.AddBreakpoint(ctx, spec)
}

// BreakWarning says why no message of the tape can stop the replay at
// bp: no client message has its method (the closest method is named, for
// a typo), or its seq is past the tape's end; "" when one may, and for
// an expression. Break keeps such a breakpoint (it may be meant for
// injected messages): a front end shows the warning beside it. It reads
// the tape (Lookup) and may be called from any goroutine.
func (s *Session) BreakWarning(bp controller.Breakpoint) string {
	switch bp.Kind {
	case controller.KindMethod:
		ms := s.Methods()
		if slices.Contains(ms, bp.Spec) {
			return ""
		}
		w := "no message of the tape has method " + bp.Spec
		if c := editdist.Closest(bp.Spec, ms); c != "" {
			w += " (did you mean " + c + "?)"
		}
		return w
	case controller.KindSeq:
		seq, err := strconv.ParseInt(bp.Spec, 10, 64)
		if err != nil {
			return ""
		}
		if _, ok := s.c.Lookup(seq); ok {
			return ""
		}
		n := int64(0) // the tape's seqs run from 0 up, as Methods reads them
		for ; ; n++ {
			if _, ok := s.c.Lookup(n); !ok {
				break
			}
		}
		if seq < n {
			return ""
		}
		msgs := "messages"
		if n == 1 {
			msgs = "message"
		}
		return fmt.Sprintf("the tape has %d %s: breakpoint %d is past its end", n, msgs, seq)
	}
	return ""
}

// Delete removes the breakpoint with that id.
func (s *Session) Delete(ctx context.Context, id int) error {
	if err := s.c.RemoveBreakpoint(ctx, id); err != nil {
		return fmt.Errorf("delete %d: %w", id, err)
	}
	return nil
}

// Breakpoints returns the breakpoints, with their hits.
func (s *Session) Breakpoints(ctx context.Context) ([]controller.Breakpoint, error) {
	return s.c.Breakpoints(ctx)
}

// SetSpeed sets the pacing of Continue.
func (s *Session) SetSpeed(ctx context.Context, speed scheduler.Speed) error {
	return s.c.SetSpeed(ctx, speed)
}

// Inject sends msg, a JSON-RPC message that is not on the tape, now, on
// the tape's first session, and waits (the answer timeout and a second at
// most) for its result, shown and returned; nil when none came (a
// notification has none).
func (s *Session) Inject(ctx context.Context, msg []byte) (*report.Result, error) {
	s.j.take()
	if err := s.c.Inject(ctx, s.defaultSession, msg); err != nil {
		return nil, err
	}
	// Its answer is reported with seq -1.
	deadline := time.NewTimer(s.timeout + time.Second)
	defer deadline.Stop()
	for {
		for _, r := range s.j.take() {
			if r.Seq < 0 {
				s.show(r)
				return &r, nil
			}
		}
		select {
		case <-s.j.added:
		case <-deadline.C:
			return nil, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Modify sends msg instead of the next client message, once.
func (s *Session) Modify(ctx context.Context, msg []byte) error { return s.c.ModifyNext(ctx, msg) }

// Timeout is the bound on each exchange with the target: the longest
// Inject waits for an answer (a second more).
func (s *Session) Timeout() time.Duration { return s.timeout }

// Methods returns the distinct methods of the tape's client messages,
// sorted: what break and seek complete to.
func (s *Session) Methods() []string {
	seen := map[string]bool{}
	var ms []string
	for seq := int64(0); ; seq++ {
		m, ok := s.c.Lookup(seq) // methods are not masked
		if !ok {
			break
		}
		if m.Dir == report.DirC2S && m.Method != "" && !seen[m.Method] {
			seen[m.Method] = true
			ms = append(ms, m.Method)
		}
	}
	slices.Sort(ms)
	return ms
}
