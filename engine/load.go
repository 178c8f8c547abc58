package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"unsafe"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
)

// seekReq asks the loader to go on from seq, in a new epoch.
type seekReq struct {
	seq  int64
	done chan error
}

// load reads the tape and sends one item per message, in tape order. It
// closes out when the tape ends, and repositions the reader when a seek
// arrives (the rest of the pipeline drops the older epoch).
func (e *Engine) load(ctx context.Context, r source, out chan<- *Item) error {
	defer close(out)
	var (
		next  *Item
		epoch = e.epoch.Load()
		eof   bool
		// sessions seen, for the report; small (one entry per session)
		sessions = make(map[string]struct{})
		last     string // the session of the message before, in sessions
		items    itemBlock
	)
	for {
		if next == nil && !eof {
			m, err := r.Next()
			switch {
			case errors.Is(err, io.EOF):
				eof = true
				e.counters.loadedAll.Store(true)
				if e.ctl != nil { // tell the controller once all is judged
					next = &Item{Epoch: epoch, End: true, Rec: tape.Message{Seq: -1}}
				}
			case err != nil:
				if ctx.Err() != nil {
					return ctx.Err() // the read was stopped with the run (taken)
				}
				return err
			default:
				next = items.newItem(epoch, &m)
				if next.RPC.Kind == jsonrpc.KindInvalid {
					e.noteInvalid(r, m)
				}
				e.counters.loaded.Add(1)
				if m.Session != last || len(sessions) == 0 { // most come after one of their session
					last = m.Session
					if _, seen := sessions[m.Session]; !seen {
						sessions[m.Session] = struct{}{}
						e.counters.sessions.Store(int64(len(sessions)))
					}
				}
			}
		}
		var outCh chan<- *Item
		if next != nil {
			outCh = out
		} else if e.seeks == nil {
			return nil // nobody can send us back: the tape is done
		}
		if next != nil && e.seeks == nil {
			// Nobody can send us back: while out has room, a send that
			// does not wait (a fraction of the select's cost) will do.
			select {
			case out <- next:
				next = nil
				continue
			default:
			}
		}
		select {
		case outCh <- next:
			next = nil
		case s := <-e.seeks:
			// The epoch moves only with the reader: a seek that fails
			// (past the end of the tape) leaves everything as it was.
			// Bumped before it was tried, it made every item loaded
			// after it stale, the end of the tape included, and a step
			// then waited for a message that never came.
			err := r.SeekSeq(s.seq)
			if err == nil {
				next, eof, epoch = nil, false, e.epoch.Add(1)
			}
			s.done <- err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// newItem wraps a recorded message. A message that is not valid JSON-RPC
// is kept as it is: a client message is sent as recorded (tapes of faulty
// clients are worth replaying), a server one is only counted.
func newItem(epoch uint64, m tape.Message) *Item {
	it := new(Item)
	fillItem(it, epoch, &m)
	return it
}

// fillItem fills a zero item (fresh from new or from a fresh block) field
// by field: assigning a whole Item literal wrote all its bytes again,
// a third of the loader's item building in a CPU profile.
func fillItem(it *Item, epoch uint64, m *tape.Message) {
	it.Epoch = epoch
	it.Rec = *m
	it.Out = m.Msg
	// The tape reader's parse, where it has one, written in place.
	if err := m.RPCTo(&it.RPC); err != nil {
		it.RPC = jsonrpc.Message{Raw: m.Msg, Kind: jsonrpc.KindInvalid}
	}
}

// itemBlock hands out the loader's items from blocks of itemsPerBlock,
// one allocation per block where there was one per message. A block
// lives as long as any of its items; an item is never reused.
type itemBlock []Item

// itemsPerBlock is as many items as fit in itemBlockBytes, one of the
// runtime's size classes (runtime/sizeclasses.go: 12,288 bytes, three
// pages, none left over): a block of a round count of items (32 of 432
// bytes) was rounded up to the next class, 4% of it unused.
const (
	itemBlockBytes = 12 << 10
	itemsPerBlock  = itemBlockBytes / int(unsafe.Sizeof(Item{}))
)

// newItem is newItem, from the block (m is copied, not kept).
func (b *itemBlock) newItem(epoch uint64, m *tape.Message) *Item {
	if len(*b) == 0 {
		*b = make([]Item, itemsPerBlock)
	}
	it := &(*b)[0]
	*b = (*b)[1:]
	fillItem(it, epoch, m)
	return it
}

// noteInvalid warns, for the report, of a recorded message that is not
// valid JSON-RPC: a client one is sent as recorded, a server one is not
// compared. Called by the loader only; read by Run after the stages end.
func (e *Engine) noteInvalid(r source, m tape.Message) {
	e.invalid++
	if e.invalid > 20 {
		return
	}
	_, err := jsonrpc.Parse(m.Msg)
	where := fmt.Sprintf("line %d (seq %d)", m.Line, m.Seq)
	if tr, ok := r.(interface{ Path() string }); ok {
		where = tr.Path() + " " + where
	}
	note := fmt.Sprintf("%s: the recorded %s message is not valid JSON-RPC (%v); ", where, m.Dir, err)
	if m.Dir == tape.C2S {
		note += "it is sent as recorded"
	} else {
		note += "it is not compared"
	}
	e.loadNotes = append(e.loadNotes, note)
	e.log.Warn().Msg(note)
}
