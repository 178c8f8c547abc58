package engine

import (
	"context"
	"errors"
	"time"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/controller"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/tape"
)

// schedule holds each client message until it is due. Recorded answers
// are not paced: they pass at once, right behind the message before them.
// The first paced message of an epoch is due at once (the pacer is
// re-based), so a replay, or a seek, starts without the tape's leading
// silence; later ones keep their recorded offsets from it.
func (e *Engine) schedule(ctx context.Context, in <-chan *Item, out chan<- *Item) error {
	defer close(out)
	opts := []scheduler.Option{scheduler.WithControl(e.speeds)}
	if e.ctl != nil {
		opts = append(opts, scheduler.WithPauseControl(e.ctl.PauseEvents()))
	}
	p := scheduler.New(e.cfg.Speed, opts...)
	epoch := ^uint64(0)
	burst := 0 // chaos: messages still to send at once
	var hs handshakes
	for {
		select {
		case it, ok := <-in:
			var err error
			if !ok {
				return nil
			}
			if e.stale(it) {
				continue
			}
			if e.perSession { // each session paces its own messages
				if err := send(ctx, out, it); err != nil {
					return err
				}
				continue
			}
			if it.paced() {
				hs.sent(it)
				if it.Epoch != epoch {
					epoch = it.Epoch
					p.Rebase()
				}
				var tm scheduler.Timing
				if burst > 0 { // a burst fault: sent at once, not when due
					burst--
					now := time.Now()
					tm = scheduler.Timing{Due: now, Released: now}
				} else if tm, err = p.Wait(ctx, time.Duration(it.Rec.TUS)*time.Microsecond); err != nil {
					return err
				}
				if it.Fault != nil && it.Fault.Kind == chaos.Burst {
					burst = it.Fault.BurstSize() - 1
				}
				it.Timing = tm
				if it.Delay > 0 { // add_delay: later than due, on purpose
					if err := sleep(ctx, it.Delay); err != nil {
						return err
					}
				}
				if err := e.stepGate(ctx); err != nil {
					return err
				}
				pass, err := e.admit(ctx, p, it)
				if err != nil {
					return err
				}
				if !pass {
					continue
				}
			}
			if err := send(ctx, out, it); err != nil {
				return err
			}
			if e.cfg.Speed.ByTime() && hs.answers(it) {
				// The clock starts again when the live handshake is done.
				at, err := e.waitHandshake(ctx, it.Rec.Session, it.Epoch)
				if err != nil {
					return err
				}
				p.Anchor(at, usec(it.Rec.TUS))
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// handshake says that a session's live handshake, sent in an epoch,
// completed at a time.
type handshake struct {
	session string
	epoch   uint64
	at      time.Time
}

// handshook tells a globally paced schedule that a session's live
// handshake has completed. It never blocks: with nobody waiting, the news
// is dropped once the channel's buffer is full.
func (e *Engine) handshook(h handshake) {
	if e.perSession || !e.cfg.Speed.ByTime() {
		return
	}
	select {
	case e.handshakes <- h:
	default:
	}
}

// waitHandshake waits, at most the replay's timeout, for the session's
// live handshake of this epoch to complete, and returns when it did (now,
// if it did not in time: the replay goes on and the answer is judged
// late). News of an earlier epoch (before a seek) is dropped.
func (e *Engine) waitHandshake(ctx context.Context, session string, epoch uint64) (time.Time, error) {
	t := time.NewTimer(e.cfg.Timeout)
	defer t.Stop()
	for {
		select {
		case h := <-e.handshakes:
			if h.session == session && h.epoch >= epoch {
				return h.at, nil
			}
		case <-t.C:
			return time.Now(), nil
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		}
	}
}

// handshakes follows, for the schedule stage, each session's recorded
// initialize request so that its recorded answer can be recognised.
type handshakes map[string]string // session → the id of its initialize

func (h *handshakes) sent(it *Item) {
	if it.Injected || it.RPC.Method != mcp.MethodInitialize {
		return
	}
	if *h == nil {
		*h = make(handshakes)
	}
	(*h)[it.Rec.Session] = jsonrpc.IDKey(it.RPC.ID)
}

// answers reports whether it is the recorded answer to its session's
// initialize (once).
func (h handshakes) answers(it *Item) bool {
	if it.Rec.Dir != tape.S2C || !isAnswer(it.RPC.Kind) {
		return false
	}
	id, ok := h[it.Rec.Session]
	if !ok || id != jsonrpc.IDKey(it.RPC.ID) {
		return false
	}
	delete(h, it.Rec.Session)
	return true
}

// stepGate, in stepped mode, waits for one step token per message.
func (e *Engine) stepGate(ctx context.Context) error {
	if e.cfg.Speed.Mode != scheduler.Stepped || e.cfg.Step == nil {
		return nil
	}
	select {
	case _, ok := <-e.cfg.Step:
		if !ok {
			return ErrStepsEnded
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// admit asks the controller's gate, if there is one, whether it may go
// (it blocks while the replay is paused). A stale message is dropped; the
// time the gate held the message does not count as replay time; a one-off
// modification replaces the message, keeping its fresh id.
func (e *Engine) admit(ctx context.Context, p *scheduler.Pacer, it *Item) (bool, error) {
	if e.ctl == nil {
		return true, nil
	}
	a, err := e.ctl.Admit(ctx, condMsg(it, it.Out), it.Epoch)
	switch {
	case errors.Is(err, controller.ErrStale):
		return false, nil
	case errors.Is(err, controller.ErrStopped):
		return false, ErrStopped
	case err != nil:
		return false, err
	}
	if a.Held() > 0 {
		p.Pause(a.HeldFrom)
		p.Resume(a.HeldUntil)
		it.Timing.Due = it.Timing.Due.Add(a.Held())
	}
	if a.Replace != nil {
		it.Out = a.Replace
		if rpc, err := jsonrpc.Parse(a.Replace); err == nil && rpc.Kind == jsonrpc.KindRequest && it.SentID != nil {
			it.Out = rpc.WithID(it.SentID)
		}
	}
	return true, nil
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
