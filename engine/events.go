package engine

// The event stream (package event): what the engine emits, and where.
// What an event says of an error is redacted as a result is (Redactor).
// Each event is emitted by the goroutine where the thing happens: a
// session's actor (dialled, anchored, held, due, sent, answered, fault,
// retry, reconnect, session ended), validate (judged), Run (run ended).

import (
	"context"
	"fmt"
	"time"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/report"
)

// startEvents starts the event stream of a run whose clock starts at
// start, when there are consumers (Config.Events); e.ev stays nil, and
// every emit a no-op, when there are none. An interrupted run stops
// waiting for its lossless consumers (event.Stream.Abandon). stop closes
// the stream if endEvents has not.
func (e *Engine) startEvents(ctx context.Context, start time.Time) (stop func()) {
	if len(e.cfg.Events) == 0 {
		return func() {}
	}
	e.ev = event.New(start, e.cfg.Events, event.WithBehind(func(c string) {
		e.log.Warn().Str("consumer", c).Msg("events: the consumer fell behind; the replay waits for it (its buffer is full)")
	}))
	stopAbandon := context.AfterFunc(ctx, e.ev.Abandon)
	return func() {
		stopAbandon()
		_ = e.ev.Close() // a no-op after endEvents; Run may return before it
	}
}

// endEvents emits the end of the run, closes the stream and returns what
// the report should say of it: a consumer that failed, fell behind, or
// (a live one) lost events.
func (e *Engine) endEvents(runErr error) []string {
	if e.ev == nil {
		return nil
	}
	ev := event.Event{Type: event.RunEnded, Seq: -1}
	if runErr != nil {
		ev.Detail = e.cfg.Redactor.String(runErr.Error())
	}
	e.ev.Emit(time.Now(), ev)
	err := e.ev.Close()
	var notes []string
	for _, st := range e.ev.Stats() {
		switch {
		case st.Err != nil:
			notes = append(notes, fmt.Sprintf("events: %s failed and has no events after that: %v", st.Name, st.Err))
		case st.Live && st.Lost > 0:
			notes = append(notes, fmt.Sprintf("events: %s (a live view) lost %d events: it was slower than the replay", st.Name, st.Lost))
		case st.Lost > 0:
			notes = append(notes, fmt.Sprintf("events: %s lost %d events after the replay was interrupted", st.Name, st.Lost))
		}
		if st.Stalls > 0 {
			notes = append(notes, fmt.Sprintf("events: %s fell behind: the replay waited for it %d times, %s in all", st.Name, st.Stalls, st.Stalled.Round(time.Millisecond)))
		}
	}
	if err != nil {
		e.log.Warn().Err(err).Msg("events")
	}
	return notes
}

// judgedEvent tells the verdict on r (scrubbed: see Engine.scrub), with
// the figures the report counts of it.
func (e *Engine) judgedEvent(r report.Result) {
	if e.ev == nil {
		return
	}
	f := r.Figures()
	ev := event.Event{Type: event.Judged, Session: r.Session, Seq: r.Seq, Method: r.Method, Kind: r.Kind, Dir: r.Dir,
		Verdict: string(r.Verdict), Detail: r.Err,
		Lag: f.Lag, Held: f.Held, Latency: f.Latency, HasLag: f.HasLag, HasHeld: f.HasHeld, HasLatency: f.HasLatency}
	if len(r.Differences) > 0 {
		ev.Differences = make([]event.Difference, len(r.Differences))
		for i, d := range r.Differences {
			ev.Differences[i] = event.Difference{Path: d.Path, Expected: d.Expected, Actual: d.Actual, Kind: d.Kind}
		}
	}
	e.ev.Emit(time.Now(), ev)
}
