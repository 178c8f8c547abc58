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

// collectorName is the report's own consumer of the stream.
const collectorName = "report"

// startEvents starts the event stream of a run whose clock starts at
// start. Its first consumer is the report's collector (lossless, never
// abandoned: every verdict is in the report), then a controller's (live,
// for its subscribers), then the configured ones (Config.Events). An
// interrupted run stops waiting for the configured lossless consumers
// (event.Stream.Abandon). stop closes the stream if endEvents has not.
func (e *Engine) startEvents(ctx context.Context, start time.Time, col *report.Collector) (stop func()) {
	consumers := []event.Consumer{collectorConsumer(col)}
	if e.ctl != nil {
		consumers = append(consumers, e.ctl.Watch(start))
	}
	e.ev = event.New(start, append(consumers, e.cfg.Events...), event.WithBehind(func(c string) {
		if c == collectorName {
			return // in memory: it catches up at once
		}
		e.log.Warn().Str("consumer", c).Msg("events: the consumer fell behind; the replay waits for it (its buffer is full)")
	}))
	stopAbandon := context.AfterFunc(ctx, e.ev.Abandon)
	return func() {
		stopAbandon()
		_ = e.ev.Close() // a no-op after endEvents; Run may return before it
	}
}

// collectorConsumer is the report's reader of the stream: it adds each
// verdict (and the fault injected into its message) to col, which it
// owns until the stream is closed.
func collectorConsumer(col *report.Collector) event.Consumer {
	return event.Consumer{
		Name: collectorName, Types: []event.Type{event.Judged, event.Dialled}, Kept: true,
		Handle: func(batch []event.Event) error {
			for i := range batch {
				ev := &batch[i]
				if ev.Type == event.Dialled {
					col.AddDialled(ev.Session)
					continue
				}
				if ev.Fault != nil {
					col.AddFault(*ev.Fault)
				}
				if ev.Result != nil {
					col.AddFigured(ev.Result, report.Figures{Lag: ev.Lag, Held: ev.Held, Latency: ev.Latency, HasLag: ev.HasLag, HasHeld: ev.HasHeld, HasLatency: ev.HasLatency})
				}
			}
			return nil
		},
	}
}

// endEvents emits the end of the run, closes the stream and returns what
// the report should say of it: a consumer that failed, fell behind, or
// (a live one) lost events. The collector's own figures are left out.
func (e *Engine) endEvents(runErr error) []string {
	ev := event.Event{Type: event.RunEnded, Seq: -1}
	if runErr != nil {
		ev.Detail = e.cfg.Redactor.String(runErr.Error())
	}
	e.ev.Emit(time.Now(), ev)
	err := e.ev.Close()
	var notes []string
	for _, st := range e.ev.Stats() {
		if st.Name == collectorName && st.Err == nil {
			continue
		}
		switch {
		case st.Err != nil:
			notes = append(notes, fmt.Sprintf("events: %s failed and has no events after that: %v", st.Name, st.Err))
		case st.Live && st.Lost > 0:
			notes = append(notes, fmt.Sprintf("events: %s (a live view) lost %d events: it was slower than the replay", st.Name, st.Lost))
		case st.Lost > 0:
			notes = append(notes, fmt.Sprintf("events: %s lost %d events after the replay was interrupted", st.Name, st.Lost))
		}
		if st.Stalls > 0 {
			notes = append(notes, fmt.Sprintf("events: %s fell behind: the replay waited for it %d times, %s in all", st.Name, st.Stalls, report.FormatDuration(st.Stalled)))
		}
	}
	if err != nil {
		e.log.Warn().Err(err).Msg("events")
	}
	return notes
}

// resultBlock is how many judged results judgedEvent takes from one
// allocation: the results the events point to are never written again
// once emitted, so a block lives while any of its events is buffered
// (at most resultBlock × 320 bytes more than one result each).
const resultBlock = 64

// newResult is where validate judges a result: the next of a block,
// which the result's judged event then points to (judgedEvent), so that
// the 320 bytes of a result are written once, not copied from judge to
// the event.
func (e *Engine) newResult() *report.Result {
	if len(e.results) == 0 {
		e.results = make([]report.Result, resultBlock)
	}
	r := &e.results[0]
	e.results = e.results[1:]
	return r
}

// judgedEvent tells the verdict on r (scrubbed: see Engine.scrub; from
// newResult), with the figures the report counts of it, the result itself
// and the fault injected into its message (nil: none). The result's bytes
// go only to a controller's replay (the debugger shows them; see
// event.Event.Result): without one they are cleared in r. r is the
// event's once emitted: not to be written after.
func (e *Engine) judgedEvent(r *report.Result, fault *report.Fault) {
	f := r.Figures()
	ev := event.Event{Type: event.Judged, Session: r.Session, Seq: r.Seq, Method: r.Method, Name: r.Name, Kind: r.Kind, Dir: r.Dir,
		Verdict: string(r.Verdict), Detail: r.Err,
		Lag: f.Lag, Held: f.Held, Latency: f.Latency, HasLag: f.HasLag, HasHeld: f.HasHeld, HasLatency: f.HasLatency,
		Fault: fault, Result: r}
	if len(r.Differences) > 0 {
		ev.Differences = make([]event.Difference, len(r.Differences))
		for i, d := range r.Differences {
			ev.Differences[i] = event.Difference(d)
		}
	}
	if e.ctl == nil {
		r.Out, r.Answer, r.Recorded = nil, nil, nil
	}
	if e.ctl == nil && !e.judgedAt.IsZero() {
		// Emitted with the rest of the receive's verdicts (emitJudged).
		// A controller is told of each verdict (Judged) after its event.
		e.judged = append(e.judged, ev)
		return
	}
	at := e.judgedAt // validate's clock read for the batch r came in
	if at.IsZero() {
		at = time.Now()
	}
	e.ev.Emit(at, ev)
}

// emitJudged emits the judged events of one receive's outcomes, kept by
// judgedEvent, in one EmitAll: each consumer's lock is taken once for
// them, not once a verdict.
func (e *Engine) emitJudged() {
	e.ev.EmitAll(e.judgedAt, e.judged)
	clear(e.judged) // the results they point to are the consumers' now
	e.judged = e.judged[:0]
}
