package debug

import (
	"context"
	"sync"
	"time"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/report"
)

// journal keeps the results the engine reports, for the commands that
// show what a replay did (Continue, Inject, and what a step or a stop
// leaves). It reads them from the replay's event stream (consumer): every
// verdict, lossless (a debugging session is one tape at a person's pace;
// it never holds the replay up).
type journal struct {
	mu      sync.Mutex // guards results, paced and checked: the stream's goroutine adds, the commands take
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
