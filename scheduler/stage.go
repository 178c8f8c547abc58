package scheduler

import (
	"context"
	"time"
)

// Run is the schedule stage: it receives items from in, waits until each is
// due (p.Wait with offset(item)), stamps it with its Timing and sends it on
// out, in order. stamp may be nil; offset may be nil for speeds that ignore
// offsets (fast, stepped, fixed, rps), and then counts every item as 0.
//
// Run's goroutine owns p for as long as it runs: nothing else may call p's
// methods until Run returns. Speed and pause changes reach it through the
// channels given to New with WithControl and WithPauseControl; Run reads them
// while it waits for an item, for its due time and to send it, so a change
// never waits for the pipeline and the controller never blocks on Run for
// long.
//
// Run closes out when it returns. It returns nil when in is closed and every
// item has been sent, ctx.Err() as soon as ctx is done (the item in hand is
// dropped), or the error of Wait.
func Run[T any](ctx context.Context, p *Pacer, in <-chan T, out chan<- T,
	offset func(T) time.Duration, stamp func(*T, Timing)) error {
	defer close(out)
	if offset == nil {
		offset = func(T) time.Duration { return 0 }
	}
	for {
		item, ok, err := receive(ctx, p, in)
		if err != nil || !ok {
			return err
		}
		t, err := p.Wait(ctx, offset(item))
		if err != nil {
			return err
		}
		if stamp != nil {
			stamp(&item, t)
		}
		if err := send(ctx, p, out, item); err != nil {
			return err
		}
	}
}

// receive returns the next item from in (ok false once in is closed),
// applying control changes while it waits.
func receive[T any](ctx context.Context, p *Pacer, in <-chan T) (item T, ok bool, err error) {
	for {
		select {
		case <-ctx.Done():
			return item, false, ctx.Err()
		case item, ok = <-in:
			return item, ok, nil
		case s, ok := <-p.speedCh:
			p.onSpeed(s, ok)
		case v, ok := <-p.pauseCh:
			p.onPause(v, ok)
		}
	}
}

// send sends item on out, applying control changes while it waits.
func send[T any](ctx context.Context, p *Pacer, out chan<- T, item T) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case out <- item:
			return nil
		case s, ok := <-p.speedCh:
			p.onSpeed(s, ok)
		case v, ok := <-p.pauseCh:
			p.onPause(v, ok)
		}
	}
}
