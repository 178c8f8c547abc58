package engine

import (
	"context"
	"time"

	"github.com/replayctl/replayctl/scheduler"
)

// schedule holds each client message until it is due. Recorded answers
// are not paced: they pass at once, right behind the message before them.
// The first paced message of an epoch is due at once (the pacer is
// re-based), so a replay, or a seek, starts without the tape's leading
// silence; later ones keep their recorded offsets from it.
func (e *Engine) schedule(ctx context.Context, in <-chan *Item, out chan<- *Item) error {
	defer close(out)
	p := scheduler.New(e.cfg.Speed, scheduler.WithControl(e.speeds))
	epoch := ^uint64(0)
	for {
		select {
		case it, ok := <-in:
			if !ok {
				return nil
			}
			if e.stale(it) {
				continue
			}
			if it.paced() {
				if it.Epoch != epoch {
					epoch = it.Epoch
					p.Rebase()
				}
				tm, err := p.Wait(ctx, time.Duration(it.Rec.TUS)*time.Microsecond)
				if err != nil {
					return err
				}
				it.Timing = tm
				if err := e.stepGate(ctx); err != nil {
					return err
				}
			}
			if err := send(ctx, out, it); err != nil {
				return err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// stepGate, in stepped mode, waits for one step token per message.
func (e *Engine) stepGate(ctx context.Context) error {
	if e.cfg.Speed.Mode != scheduler.Stepped || e.cfg.Step == nil {
		return nil
	}
	select {
	case _, ok := <-e.cfg.Step:
		if !ok {
			return context.Canceled
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
