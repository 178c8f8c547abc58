package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/replayctl/replayctl/controller"
	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/report"
)

// journal keeps the results the engine reports, for the commands that
// show what a replay did (continue, inject, and what a step or a stop
// leaves). It reads them from the replay's event stream (consumer): every
// verdict, lossless (a debugging session is one tape at a person's pace;
// it never holds the replay up).
type journal struct {
	mu      sync.Mutex // guards results, paced and checked: the stream's goroutine adds, the REPL takes
	results []report.Result
	// paced counts the verdicts on messages the controller's gate let
	// through: what its Status.Judged counts (see catchUp).
	paced int64
	// checked counts the results compared with the recording (passed,
	// warned or failed), as the report's validation.checked does.
	checked int64
	added   chan struct{} // signalled (never blocks) when a result is added
}

func newJournal() *journal { return &journal{added: make(chan struct{}, 1)} }

// consumer is the journal's reader of the event stream: its judged
// events, each with its result (bytes included: a controlled replay's).
func (j *journal) consumer() event.Consumer {
	return event.Consumer{Name: "the debugger", Types: []event.Type{event.Judged}, Handle: func(batch []event.Event) error {
		for i := range batch {
			if r := batch[i].Result; r != nil {
				j.add(*r)
			}
		}
		return nil
	}}
}

// add keeps one result; it does not block.
func (j *journal) add(r report.Result) {
	j.mu.Lock()
	j.results = append(j.results, r)
	if gated(r) {
		j.paced++
	}
	switch r.Verdict {
	case report.Passed, report.Warned, report.Failed:
		j.checked++
	}
	j.mu.Unlock()
	select {
	case j.added <- struct{}{}:
	default:
	}
}

// gated reports whether r is of a message the controller's gate let
// through and counts as judged: a client message of the tape (not an
// answer to the server, not injected).
func gated(r report.Result) bool {
	return r.Dir == report.DirC2S && r.Seq >= 0 && r.Kind != report.KindResponse && r.Kind != report.KindError
}

// catchUp waits, until timeout at most, for the journal to hold the
// verdicts on judged gated messages, as many as the controller has
// judged: the stream hands them over a batch at a time, a little after
// the controller counts them.
func (j *journal) catchUp(ctx context.Context, judged int64, timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		j.mu.Lock()
		n := j.paced
		j.mu.Unlock()
		if n >= judged {
			return nil
		}
		select {
		case <-j.added:
		case <-deadline.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// checkedSoFar is how many results added were compared with the
// recording.
func (j *journal) checkedSoFar() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.checked
}

// take returns the results added since the last take.
func (j *journal) take() []report.Result {
	j.mu.Lock()
	defer j.mu.Unlock()
	rs := j.results
	j.results = nil
	return rs
}

// debugger is one `replayctl debug` session: the REPL's side of it.
type debugger struct {
	c              *controller.Controller
	look           func(seq int64) (controller.Msg, bool)
	j              *journal
	out            io.Writer
	p              painter
	timeout        time.Duration // the answer timeout: bounds the waits for results
	width          func() int    // the output's width now, in columns
	last           *report.Result
	defaultSession string // the first session: inject's
	// unjudged is how many released messages will never be judged (they
	// were in flight when a seek dropped them), for settle.
	unjudged int64
}

func (d *debugger) printf(format string, a ...any) { fmt.Fprintf(d.out, format, a...) }

// cols is the width lines are fitted to: the terminal's, read again for
// each use (it can be resized), or defaultWidth.
func (d *debugger) cols() int {
	w := defaultWidth
	if d.width != nil {
		w = d.width()
	}
	return max(w, minWidth)
}

// printWrapped prints s with each line wrapped to the width.
func (d *debugger) printWrapped(s string) { d.printf("%s\n", wrap(s, d.cols())) }

// show prints a result: what was sent, what came back and the verdict;
// on a failure the recorded answer too.
func (d *debugger) show(r report.Result) {
	if r.Dir != report.DirC2S {
		return
	}
	sent := r.Out
	if sent == nil {
		if m, found := d.look(r.Seq); found {
			sent = m.Raw
		}
	}
	d.printf("%s\n", d.p.dim(sentLine(r.Seq, r.Method, sent, d.cols())))
	if r.Answer != nil {
		d.printf("%s\n", answerLine("← ", r.Answer, d.cols()))
	}
	d.printf("%s\n", verdictLine(d.p, r, d.cols()))
	if r.Verdict == report.Failed && r.Recorded != nil {
		d.printf("%s\n", d.p.dim(answerLine("recorded ← ", r.Recorded, d.cols())))
	}
	if r.Kind == report.KindRequest {
		rr := r
		d.last = &rr
	}
}

// current is the next client message at or after the status's seq.
func (d *debugger) current(st controller.Status) (controller.Msg, bool) {
	for s := st.Seq; s < st.Seq+10000; s++ {
		m, ok := d.look(s)
		if !ok {
			return controller.Msg{}, false
		}
		if m.Dir == report.DirC2S {
			return m, true
		}
	}
	return controller.Msg{}, false
}

// settle waits until every released message that can still be judged has
// been (a breakpoint can stop the replay while the answer to the message
// before it is on its way), then prints what was judged since the last
// command, and where the replay stopped.
func (d *debugger) settle(ctx context.Context, shown []report.Result) error {
	st, err := d.waitJudged(ctx)
	if err != nil {
		return err
	}
	if err := d.j.catchUp(ctx, st.Judged, d.timeout+time.Second); err != nil {
		return err
	}
	for _, r := range d.j.take() {
		if r.Seq < 0 || slices.ContainsFunc(shown, func(s report.Result) bool { return s.Seq == r.Seq && s.Session == r.Session }) {
			continue
		}
		d.show(r)
	}
	d.where(st)
	return nil
}

// waitJudged waits, a timeout at most, for released == judged (less the
// ones a seek dropped) and returns the status then.
func (d *debugger) waitJudged(ctx context.Context) (controller.Status, error) {
	updates, unsubscribe := d.c.Subscribe(16)
	defer unsubscribe()
	st, err := d.c.Status(ctx)
	if err != nil {
		return st, err
	}
	deadline := time.NewTimer(d.timeout + time.Second)
	defer deadline.Stop()
	for st.Judged+d.unjudged < st.Released && st.State != controller.Running {
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

// where prints why the replay stopped and what comes next.
func (d *debugger) where(st controller.Status) {
	switch {
	case st.State == controller.Ended:
		d.printf("■ end of the tape (seek to replay more)\n")
		return
	case st.State == controller.Running:
		d.printf("▶ running\n")
		return
	case st.Reason == "pause", strings.HasPrefix(st.Reason, "breakpoint"), strings.HasPrefix(st.Reason, "error"):
		d.printf("%s\n", d.p.bold("⏸ "+st.Reason))
	}
	if m, ok := d.current(st); ok {
		d.printf("next: seq %s\n", strings.TrimSpace(msgLine(m, false, d.cols())))
	} else {
		d.printf("next: seq %d\n", st.Seq)
	}
}
