package engine

import (
	"context"
	"fmt"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transformer"
)

// send delivers v on out unless ctx is done first. While out has room
// it takes a send that does not wait, a fraction of the cost of the
// select (which locks ctx's channel too).
func send[T any](ctx context.Context, out chan<- T, v T) error {
	select {
	case out <- v:
		return nil
	default:
	}
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
// session and per replay); the session's actor maps the answer back.
func (e *Engine) transform(ctx context.Context, in <-chan *Item, out chan<- *Item) error {
	defer close(out)
	ids := transformer.NewIDs()
	nth := make(map[string]int) // chaos: calls of each method per session so far
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
			if it.Rec.Dir == tape.C2S && e.cfg.Rules != nil {
				keep, err := e.applyRules(it)
				if err != nil {
					return err
				}
				if !keep {
					e.counters.filtered.Add(1)
					continue
				}
			}
			if it.Rec.Dir == tape.C2S && !it.End {
				e.restore(it)
			}
			if it.Paced() && !it.End && e.cfg.Hooks.BeforeSend != nil && !e.beforeSend(it) {
				e.counters.filtered.Add(1)
				continue
			}
			if it.Rec.Dir == tape.C2S && e.cfg.Chaos != nil && !it.End {
				e.faultFor(it, nth)
			}
			if it.Rec.Dir == tape.C2S && it.RPC.Kind == jsonrpc.KindRequest {
				it.SentID = ids.Fresh(it.Rec.Session)
				it.Out = withID(it, it.SentID)
			}
			if err := send(ctx, out, it); err != nil {
				return err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// applyRules runs the transformation rules over a client message: what to
// send, whether at all, how much later, and what answer to expect. It
// reports false for a dropped message.
func (e *Engine) applyRules(it *Item) (bool, error) {
	oc, err := e.cfg.Rules.Apply(condMsg(it, it.Rec.Msg))
	if err != nil {
		return false, fmt.Errorf("transform seq %d: %w", it.Rec.Seq, err)
	}
	if oc.Drop {
		return false, nil
	}
	if oc.Out != nil {
		it.Out, it.Rewritten = oc.Out, true
	}
	it.Delay, it.InjectError, it.ExpectEdits = oc.Delay, oc.Error, oc.ExpectEdits
	return true, nil
}

// withID is the message to send with the fresh id: the recorded bytes, or
// what the rules made of them, with only the id changed.
func withID(it *Item, id []byte) []byte {
	if !it.Rewritten { // the parsed view of the recorded bytes applies
		return it.RPC.WithID(id)
	}
	rpc, err := jsonrpc.Parse(it.Out)
	if err != nil || rpc.ID == nil {
		return it.Out
	}
	return rpc.WithID(id)
}
