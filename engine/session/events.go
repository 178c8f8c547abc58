package session

// What an actor tells the event stream (package event). What an event
// says of an error is redacted as a result is (Env.Redactor).

import (
	"context"
	"time"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/tape"
)

// emitter emits a session's events; with no stream every method does
// nothing, and an event of a type no consumer is given is not built (nor
// the clock read for it): see event.Stream.Wants.
type emitter struct {
	ev   *event.Stream // nil: no events
	red  *tape.Redactor
	name string // the session's
}

// message gives an event about the session's message it to the stream.
func (m emitter) message(at time.Time, typ event.Type, it *Item) {
	if !m.ev.Wants(typ) {
		return
	}
	m.ev.Emit(at, event.Event{Type: typ, Session: it.Rec.Session, Seq: it.Rec.Seq, Method: it.RPC.Method})
}

// about is an event of the session, of no message.
func (m emitter) about(at time.Time, typ event.Type, detail string) {
	if !m.ev.Wants(typ) {
		return
	}
	m.ev.Emit(at, event.Event{Type: typ, Session: m.name, Seq: -1, Detail: m.red.String(detail)})
}

// sent tells that it went out at sent: due (a paced message: when it fell
// due), then sent, with the time it was held.
func (m emitter) sent(it *Item, sent time.Time) {
	if m.ev == nil {
		return
	}
	if it.Paced() && m.ev.Wants(event.Due) {
		due := it.Due
		if due.IsZero() {
			due = sent
		}
		m.message(due, event.Due, it)
	}
	if !m.ev.Wants(event.Sent) {
		return
	}
	m.ev.Emit(sent, event.Event{Type: event.Sent, Session: it.Rec.Session, Seq: it.Rec.Seq, Method: it.RPC.Method,
		Kind: it.RPC.Kind.String(), Held: it.Held})
}

// held tells that the session's next message waits for the target, and
// why (session.holdReason).
func (m emitter) held(it *Item, reason string) {
	if !m.ev.Wants(event.Held) {
		return
	}
	m.ev.Emit(time.Now(), event.Event{Type: event.Held, Session: it.Rec.Session, Seq: it.Rec.Seq, Method: it.RPC.Method,
		Reason: reason})
}

// fault tells that the chaos fault of it was injected.
func (m emitter) fault(it *Item) {
	if it.Fault == nil || !m.ev.Wants(event.Fault) {
		return
	}
	m.ev.Emit(time.Now(), event.Event{Type: event.Fault, Session: it.Rec.Session, Seq: it.Rec.Seq, Method: it.RPC.Method,
		Reason: string(it.Fault.Kind), Detail: m.red.String(it.Fault.Report().Detail)})
}

// retry tells that it is sent again: attempt n, for reason.
func (m emitter) retry(it *Item, n int, reason string, cause error) {
	if !m.ev.Wants(event.Retry) {
		return
	}
	ev := event.Event{Type: event.Retry, Session: it.Rec.Session, Seq: it.Rec.Seq, Method: it.RPC.Method, Attempt: n, Reason: reason}
	if cause != nil {
		ev.Detail = m.red.String(cause.Error())
	}
	m.ev.Emit(time.Now(), ev)
}

// ended tells that the session has finished; why, if it stopped early
// (as emitEnd tells the sink).
func (m emitter) ended(ctx context.Context, err error) {
	if err == nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	detail := ""
	if err != nil {
		detail = err.Error()
	}
	m.about(time.Now(), event.SessionEnded, detail)
}

// faultInjectedAtSend reports whether f is injected as its message is
// sent (the rest, when its answer comes).
func faultInjectedAtSend(f *chaos.Fault) bool {
	return f != nil && (f.Kind.Outbound() || f.Kind == chaos.NetworkError)
}
