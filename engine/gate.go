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
	"github.com/replayctl/replayctl/engine/session"
	"github.com/replayctl/replayctl/scheduler"
)

// gateOf is a replay's gate (session.Gate): the controller's, or at
// stepped the Step channel; nil when there is none.
func gateOf(ctl *controller.Controller, cfg *Config) session.Gate {
	switch {
	case ctl != nil:
		return ctlGate{ctl}
	case cfg.Speed.Mode == scheduler.Stepped && cfg.Step != nil:
		return stepGate(cfg.Step)
	}
	return nil
}

// ctlGate is a controller's gate.
type ctlGate struct{ c *controller.Controller }

// Pass asks the controller's gate whether it may go. It blocks while the
// gate is closed (paused, idle, waiting for a step), and returns when it
// may go, when it is stale, or with ErrStopped or ctx.Err().
func (g ctlGate) Pass(ctx context.Context, it *Item) session.Admission {
	a, err := g.c.Admit(ctx, condMsg(it, it.Out), it.Epoch)
	switch {
	case errors.Is(err, controller.ErrStale):
		return session.Admission{}
	case errors.Is(err, controller.ErrStopped):
		return session.Admission{Err: ErrStopped}
	case err != nil:
		return session.Admission{Err: err}
	}
	return session.Admission{Pass: true, HeldFrom: a.HeldFrom, HeldUntil: a.HeldUntil, Replace: a.Replace}
}

// stepGate lets one message through per value received (stepped).
type stepGate <-chan struct{}

// Pass waits for the next step; ErrStepsEnded when the channel is closed.
// The wait is the gate holding the message (HeldFrom, HeldUntil): replay
// time stands still meanwhile, so the time a person takes to step is not
// the message's lag.
func (g stepGate) Pass(ctx context.Context, _ *Item) session.Admission {
	from := time.Now()
	select {
	case _, ok := <-g:
		if !ok {
			return session.Admission{Err: ErrStepsEnded}
		}
		return session.Admission{Pass: true, HeldFrom: from, HeldUntil: time.Now()}
	case <-ctx.Done():
		return session.Admission{Err: ctx.Err()}
	}
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

// ErrStepsEnded ends a stepped replay whose step input ended before the
// tape did.
var ErrStepsEnded = errors.New("stepped replay: the input ended before the tape (each line read sends one message)")
