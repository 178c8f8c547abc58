package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/replayctl/replayctl/controller"
	"github.com/replayctl/replayctl/engine/session"
	"github.com/replayctl/replayctl/internal/match"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
)

// The engine is what a controller drives.
var _ controller.Replay = (*Engine)(nil)

// Attach puts a controller in charge of the replay: each session asks its
// gate before each recorded client message, once due, the session actors
// and validate report to it, and the loader stays open at the end of the tape so that the
// controller can seek back. Call before Run; the replay then ends when
// Run's ctx is done.
func (e *Engine) Attach(c *controller.Controller) {
	e.ctl = c
	e.seeks = make(chan seekReq)
}

// Seek repositions the replay at seq: the loader goes on from there, and
// every stage drops what it holds of the old epoch. It returns when the
// loader has moved, or when ctx is done. A seq the tape does not have (past
// its last message) is an error wrapping tape.ErrOutOfRange, and changes
// nothing: the epoch is bumped only once the loader has moved, so a failed
// seek drops nothing in flight.
func (e *Engine) Seek(ctx context.Context, seq int64) error {
	if e.seeks == nil {
		return errors.New("engine: seek needs a controller (Attach)")
	}
	req := seekReq{seq: seq, done: make(chan error, 1)}
	select {
	case e.seeks <- req:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-req.done:
		if err != nil {
			return err
		}
	case <-ctx.Done():
		return ctx.Err()
	}
	// A mock target must answer the messages from seq on as recorded again.
	for _, a := range e.actors.all() {
		if err := a.Rewind(ctx, seq); err != nil && !errors.Is(err, session.ErrEnded) {
			return err
		}
	}
	return nil
}

// Inject sends msg on the session's connection (the first session's when
// session is ""), as if the client had sent it; its answer, if any, is
// reported with seq -1. It returns once the message is on the wire.
func (e *Engine) Inject(ctx context.Context, session string, msg []byte) error {
	if e.seeks == nil {
		return errors.New("engine: inject needs a controller (Attach)")
	}
	rpc, err := jsonrpc.ParseStrict(msg)
	if err != nil {
		return fmt.Errorf("inject: %w", err)
	}
	it := &Item{
		Epoch: e.epoch.Load(), Injected: true,
		Rec: tape.Message{Seq: -1, Session: session, Dir: tape.C2S, Msg: msg},
		RPC: rpc, Out: msg, SentID: rpc.ID,
	}
	a := e.actors.first()
	if session != "" {
		a = e.actors.get(session)
	}
	if a == nil {
		return fmt.Errorf("inject: no session %q is connected yet", session)
	}
	return a.Inject(ctx, it)
}

// lookup reads single messages of the tape for a controller, on a reader
// of its own so that the loader is not disturbed.
type lookup struct {
	mu sync.Mutex // guards r: Lookup may be called from any goroutine
	r  *tape.Reader
}

// Lookup returns the tape's message with that seq.
func (e *Engine) Lookup(seq int64) (controller.Msg, bool) {
	e.look.mu.Lock()
	defer e.look.mu.Unlock()
	if e.look.r == nil {
		r, err := tape.OpenSource(e.cfg.Source, e.cfg.TapeOptions...)
		if err != nil {
			return controller.Msg{}, false
		}
		e.look.r = r
	}
	if e.look.r.SeekSeq(seq) != nil {
		return controller.Msg{}, false
	}
	m, err := e.look.r.Next()
	if err != nil || m.Seq != seq {
		return controller.Msg{}, false
	}
	cm := condMsg(newItem(0, m), m.Msg)
	cm.HTTP = m.HTTP
	return cm, true
}

func (e *Engine) closeLookup() {
	e.look.mu.Lock()
	defer e.look.mu.Unlock()
	if e.look.r != nil {
		e.look.r.Close()
		e.look.r = nil
	}
}

// condMsg is what conditions (transformation rules, breakpoints) see of an
// item whose bytes are raw.
func condMsg(it *Item, raw []byte) match.Msg {
	return match.Msg{
		Seq: it.Rec.Seq, Session: it.Rec.Session, Dir: string(it.Rec.Dir),
		Kind: it.RPC.Kind.String(), Method: it.RPC.Method, ID: string(it.RPC.ID),
		Raw: raw,
	}
}
