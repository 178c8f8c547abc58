package session

// The gate (Env.Gate): what a recorded client message passes, once due,
// before its session sends it.

import (
	"context"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/scheduler"
)

// gated is a gate's answer for one message.
type gated struct {
	it *Item
	Admission
}

// askGate asks the gate for the session's next message on a goroutine of
// the actor's, so that the actor goes on reading answers while the gate
// is closed; gateDone brings the answer.
func (r *sender) askGate(ss *session, it *Item) {
	x := r.x
	ss.gating = it
	x.sends.Go(func() {
		a := gated{it: it, Admission: x.env.Gate.Pass(x.ctx, it)}
		select {
		case x.gateDone <- a:
		case <-x.ctx.Done():
		}
	})
}

// gateAnswered takes the gate's answer in: a message let through is sent
// when its session may go on; a stale one is dropped.
func (r *sender) gateAnswered(ctx context.Context, a gated) error {
	x := r.x
	ss := x.ss
	if ss.gating != a.it {
		return nil // a seek dropped it meanwhile
	}
	ss.gating = nil
	if a.Err != nil {
		return a.Err
	}
	if !a.Pass {
		if len(ss.backlog) > 0 && ss.backlog[0] == a.it {
			x.pop(ss)
		}
		return x.drain(ctx, ss)
	}
	admit(a.it, a.Admission, x.env.Timing)
	return x.drain(ctx, ss)
}

// admit applies what the gate said to the message it let through: the
// time it held the message closed moves the message's due time, and
// replay time stood still meanwhile for every session (sh.Hold); a one-off
// modification replaces the message, keeping its fresh id.
func admit(it *Item, a Admission, sh *scheduler.Shared) {
	if held := a.HeldUntil.Sub(a.HeldFrom); held > 0 {
		if !it.Due.IsZero() { // else it is due when its session connects
			it.Due = it.Due.Add(held)
		}
		sh.Hold(a.HeldFrom, a.HeldUntil)
	}
	if a.Replace != nil {
		it.Out = a.Replace
		if rpc, err := jsonrpc.Parse(a.Replace); err == nil && rpc.Kind == jsonrpc.KindRequest && it.SentID != nil {
			it.Out = rpc.WithID(it.SentID)
		}
	}
	it.admitted = true
}
