package engine

// The gate: what a client message passes, once due, before its session
// sends it. There is one: the controller's (Attach), which pauses, steps
// and stops at breakpoints; in stepped mode without a controller, each
// value of Config.Step lets one message through the same way.

import (
	"context"
	"errors"
	"time"

	"github.com/replayctl/replayctl/controller"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/scheduler"
)

// gated reports whether the replay's client messages pass a gate.
func (e *Engine) gated() bool {
	return e.ctl != nil || (e.cfg.Speed.Mode == scheduler.Stepped && e.cfg.Step != nil)
}

// admission is the gate's answer for a message.
type admission struct {
	it   *Item
	pass bool // false: the message is stale (a seek went past it): drop it
	// heldFrom and heldUntil say when the gate held the message closed;
	// replay time stood still meanwhile.
	heldFrom, heldUntil time.Time
	// replace, when not nil, is sent instead of the message (ModifyNext).
	replace []byte
	err     error
}

// pass asks the gate whether it may go. It blocks while the gate is
// closed (paused, idle, waiting for a step), and returns when it may go,
// when it is stale, or with ErrStopped, ErrStepsEnded or ctx.Err().
func (e *Engine) pass(ctx context.Context, it *Item) admission {
	if e.ctl == nil { // stepped: one value of Step per message
		select {
		case _, ok := <-e.cfg.Step:
			if !ok {
				return admission{it: it, err: ErrStepsEnded}
			}
			return admission{it: it, pass: true}
		case <-ctx.Done():
			return admission{it: it, err: ctx.Err()}
		}
	}
	a, err := e.ctl.Admit(ctx, condMsg(it, it.Out), it.Epoch)
	switch {
	case errors.Is(err, controller.ErrStale):
		return admission{it: it}
	case errors.Is(err, controller.ErrStopped):
		return admission{it: it, err: ErrStopped}
	case err != nil:
		return admission{it: it, err: err}
	}
	return admission{it: it, pass: true, heldFrom: a.HeldFrom, heldUntil: a.HeldUntil, replace: a.Replace}
}

// admitted applies what the gate said to the message it let through: the
// time it held the message closed moves the message's due time, and
// replay time stood still meanwhile for every session (sh.Hold); a one-off
// modification replaces the message, keeping its fresh id.
func (a admission) admitted(sh *scheduler.Shared) {
	it := a.it
	if held := a.heldUntil.Sub(a.heldFrom); held > 0 {
		it.Timing.Due = it.Timing.Due.Add(held)
		sh.Hold(a.heldFrom, a.heldUntil)
	}
	if a.replace != nil {
		it.Out = a.replace
		if rpc, err := jsonrpc.Parse(a.replace); err == nil && rpc.Kind == jsonrpc.KindRequest && it.SentID != nil {
			it.Out = rpc.WithID(it.SentID)
		}
	}
	it.admitted = true
}

// askGate asks the gate for the session's next message on a goroutine of
// the actor's, so that the actor goes on reading answers while the gate
// is closed; gateDone brings the answer.
func (x *actor) askGate(ss *session, it *Item) {
	ss.gating = it
	x.sends.Go(func() {
		a := x.e.pass(x.ctx, it)
		select {
		case x.gateDone <- a:
		case <-x.ctx.Done():
		}
	})
}

// gateAnswered takes the gate's answer in: a message let through is sent
// when its session may go on; a stale one is dropped.
func (x *actor) gateAnswered(ctx context.Context, a admission) error {
	ss := x.ss
	if ss.gating != a.it {
		return nil // a seek dropped it meanwhile
	}
	ss.gating = nil
	if a.err != nil {
		return a.err
	}
	if !a.pass {
		if len(ss.backlog) > 0 && ss.backlog[0] == a.it {
			x.pop(ss)
		}
		return x.drain(ctx, ss)
	}
	a.admitted(x.e.timing)
	return x.drain(ctx, ss)
}

// followPauses stops replay time while the controller has the replay
// paused: no session brings a message to the gate then, and due times
// move by the pause. It returns when the controller stops or ctx is done.
func (e *Engine) followPauses(ctx context.Context) error {
	pauses := e.ctl.PauseEvents()
	for {
		select {
		case pause, ok := <-pauses:
			switch {
			case !ok: // the controller stopped: nobody is left to resume
				e.timing.Resume(time.Now())
				return nil
			case pause:
				e.timing.Pause(time.Now())
			default:
				e.timing.Resume(time.Now())
			}
		case <-ctx.Done():
			return nil
		}
	}
}

// ErrStopped ends the pipeline when the controller has stopped (its Stop,
// e.g. the control protocol's "stop"): Run returns it with the report of
// what was replayed until then.
var ErrStopped = errors.New("engine: the controller stopped the replay")

// sleep waits for d, or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ErrStepsEnded ends a stepped replay whose step input ended before the
// tape did.
var ErrStepsEnded = errors.New("stepped replay: the input ended before the tape (each line read sends one message)")
