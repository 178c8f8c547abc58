package session

// The session's connection and the end of its tape: failures, passing the
// end on, a controller's inject and rewind.

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

func (x *Actor) targetDied(ss *session, err error) error {
	if cerr := ss.conn.Err(); cerr != nil {
		return fmt.Errorf("%w: session %s: %w", ErrTarget, ss.name, cerr)
	}
	return fmt.Errorf("%w: session %s: %w", ErrTarget, ss.name, err)
}

// overLimit reports whether the session's connection ended because the
// target sent a message over the transport's size limit (err, or the
// connection's Err, is a *transport.TooLargeError). That ends the replay
// as a failed target even under chaos: the limit stopped the connection,
// not a fault.
func overLimit(ss *session, err error) bool {
	if _, ok := errors.AsType[*transport.TooLargeError](err); ok {
		return true
	}
	if ss.conn == nil {
		return false
	}
	_, ok := errors.AsType[*transport.TooLargeError](ss.conn.Err())
	return ok
}

// sentOrDropped tells a controller that a client message it let through is
// on the wire, or will never be.
func (x *Actor) sentOrDropped(it *Item) { x.sink.Sent(it) }

// passEnd counts the session at the end of the tape once nothing is in
// flight; the last session there passes the end on.
func (x *Actor) passEnd(ctx context.Context) error {
	if x.end == nil || len(x.ss.backlog) > 0 {
		return nil
	}
	if x.rq.live > 0 {
		// Everything recorded before the end has gone by: an answered
		// request with no recorded answer has none, and what a seek left
		// of an older epoch will never be reported.
		if err := x.rq.settleAtEnd(ctx); err != nil || x.rq.live > 0 {
			return err
		}
	}
	end := x.end
	x.end = nil
	if x.env.stale(end) || !x.sink.End(end.Epoch) {
		return nil
	}
	return x.emit(ctx, &Outcome{Epoch: end.Epoch, Req: end, End: true})
}

// settleAtEnd finishes the answered requests whose recorded answer the
// tape does not have, and forgets those of an older epoch. A
// subscriptions/listen (2026-07-28) the recording left open is a stream
// the client closed when it was done: it is finished too, with what it
// delivered (notifications, counted or compared as any), and its stream
// closes with the connection.
func (r *requests) settleAtEnd(ctx context.Context) error {
	x := r.x
	ss := x.ss
	var done []*pend
	for p := range ss.sent.all() {
		switch {
		case x.env.stale(p.req):
			ss.sent.del(p.key)
			ss.byRec.del(p.recKey)
			if !p.answered() {
				p.givenUp()
			}
			if ss.waitFor == p {
				ss.waitFor = nil
			}
			p.replaced = true // gone: the timer and lists skip it
			x.rq.live--
		case p.answered() && p.expected == nil:
			done = append(done, p)
		case x.rq.endListen(p):
			done = append(done, p)
		}
	}
	slices.SortFunc(done, func(a, b *pend) int { return a.sent.Compare(b.sent) })
	for _, p := range done {
		if err := x.rq.finish(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// endListen ends a subscriptions/listen (2026-07-28) the recording left
// open, once nothing more can be recorded for its session: it was a
// stream the client closed when it was done. It reports whether it did.
func (r *requests) endListen(p *pend) bool {
	if p.answered() || p.expected != nil || p.req.RPC.Method != mcp.MethodSubscriptionsListen {
		return false
	}
	p.sess.inflight--
	p.listenEnded = true
	return true
}

// rewind makes the connection, if it can (the mock), answer as recorded
// from seq on, after a seek.
func (x *Actor) rewind(seq int64) error {
	if rw, ok := x.ss.conn.(transport.Rewinder); ok {
		if err := rw.Rewind(seq); err != nil {
			return fmt.Errorf("rewind session %s to seq %d: %w", x.ss.name, seq, err)
		}
	}
	return nil
}

// targetErr wraps err as a failure of the target, once.
func targetErr(what string, err error) error {
	if errors.Is(err, ErrTarget) {
		return fmt.Errorf("%s: %w", what, err)
	}
	return fmt.Errorf("%w: %s: %w", ErrTarget, what, err)
}

// emitEnd tells validate that the session has finished (Hooks.OnSessionEnd),
// why if it stopped early. validate reads until every actor has returned,
// so this goes through although ctx may be done.
func (x *Actor) emitEnd(ctx context.Context, err error) {
	if err == nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	end := &Item{Rec: tape.Message{Seq: -1, Session: x.ss.name}}
	x.emit(context.WithoutCancel(ctx), &Outcome{Epoch: x.env.Epoch(), Req: end, SessionEnd: true, Err: err})
	_ = x.flush(context.WithoutCancel(ctx))
}
