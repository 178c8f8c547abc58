package engine

import (
	"context"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transformer"
)

// send delivers v on out unless ctx is done first.
func send[T any](ctx context.Context, out chan<- T, v T) error {
	select {
	case out <- v:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stale reports whether an item belongs to an epoch before the current one.
func (e *Engine) stale(it *Item) bool { return it.Epoch < e.epoch.Load() }

// transform gives every client request a fresh id (its own id space per
// session and per replay); the answer is mapped back by execute.
func (e *Engine) transform(ctx context.Context, in <-chan *Item, out chan<- *Item) error {
	defer close(out)
	ids := transformer.NewIDs()
	for {
		select {
		case it, ok := <-in:
			if !ok {
				return nil
			}
			if e.stale(it) {
				continue
			}
			if ok, _ := e.cfg.Filter.keep(it.Rec, it.RPC); !ok && !it.End {
				e.counters.filtered.Add(1)
				continue
			}
			if it.Rec.Dir == tape.C2S && it.RPC.Kind == jsonrpc.KindRequest {
				it.SentID = ids.Fresh(it.Rec.Session)
				it.Out = it.RPC.WithID(it.SentID)
			}
			if err := send(ctx, out, it); err != nil {
				return err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
