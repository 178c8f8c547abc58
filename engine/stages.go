package engine

import (
	"context"
	"fmt"

	"github.com/replayctl/replayctl/engine/session"
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

// receive takes a value from in (ok false: in is closed) unless ctx is
// done first. While in holds values it takes one with a receive that
// does not wait, a fraction of the cost of the select.
func receive[T any](ctx context.Context, in <-chan T) (v T, ok bool, err error) {
	select {
	case v, ok = <-in:
		return v, ok, nil
	default:
	}
	select {
	case v, ok = <-in:
		return v, ok, nil
	case <-ctx.Done():
		return v, false, ctx.Err()
	}
}

// stale reports whether an item belongs to an epoch before the current one.
func (e *Engine) stale(it *Item) bool { return it.Epoch < e.epoch.Load() }

// transform gives every client request a fresh id (its own id space per
// session and per replay); the session's actor maps the answer back.
func (e *Engine) transform(ctx context.Context, in <-chan *Item, out chan<- *Item) error {
	defer close(out)
	ids := transformer.NewIDs()
	var sent outBlock           // the bytes of the messages with fresh ids
	nth := make(map[string]int) // chaos: calls of each method per session so far
	for {
		it, ok, err := receive(ctx, in)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if e.stale(it) {
			continue
		}
		if ok, _ := e.cfg.Filter.keep(&it.Rec, &it.RPC); !ok && !it.End {
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
			var fresh [20]byte
			it.Out, it.SentID = sent.withID(it, ids.AppendFresh(fresh[:0], it.Rec.Session))
		}
		if err := send(ctx, out, it); err != nil {
			return err
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
	if oc.Delay != 0 || oc.Error != nil || oc.ExpectEdits != nil {
		it.Rules = &session.Ruled{Delay: oc.Delay, InjectError: oc.Error, ExpectEdits: oc.ExpectEdits}
	}
	return true, nil
}

// outBlock hands out the bytes of the messages transform sends with a
// fresh id from blocks of outBlockSize, where each was an allocation of
// its own (and its id another). Each is capped at its length: appending
// to one never writes into the next. A block lives as long as any message
// in it: small, so that a result kept for its bytes (the browser view
// keeps some, counting their length) holds little more than its own.
type outBlock []byte

const (
	outBlockSize = 8 << 10
	outMax       = 1 << 10 // longer messages get their own allocation
)

// withID returns the message to send with the fresh id (the recorded
// bytes, or what the rules made of them, with only the id changed), and
// the id: its bytes inside the message, or, when the message has no id
// to change, on their own.
func (b *outBlock) withID(it *Item, id []byte) (out, sentID []byte) {
	rpc := it.RPC // the parsed view of the recorded bytes applies
	if it.Rewritten {
		var err error
		if rpc, err = jsonrpc.Parse(it.Out); err != nil || rpc.ID == nil {
			return it.Out, b.take(id)
		}
	}
	start, end, _ := rpc.IDSpan()
	n := len(rpc.Raw) - (end - start) + len(id)
	if n > outMax {
		out = rpc.WithID(id)
	} else {
		out = rpc.AppendWithID(b.space(n), id)
	}
	return out, out[start : start+len(id) : start+len(id)]
}

// take returns a copy of p from the block.
func (b *outBlock) take(p []byte) []byte { return append(b.space(len(p)), p...) }

// space returns an empty slice of capacity n from the block.
func (b *outBlock) space(n int) []byte {
	if len(*b) < n {
		*b = make([]byte, outBlockSize)
	}
	s := (*b)[:0:n]
	*b = (*b)[n:]
	return s
}
