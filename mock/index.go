package mock

import (
	"errors"
	"fmt"
	"io"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
)

// index is what the matcher needs of a tape: each recorded session's
// client requests, in tape order, each with its recorded answer. It is
// built once and then only read, by every connection at once.
type index struct {
	sessions map[string][]entry
}

// entry is one recorded client request and what the server recorded in
// return. Its byte slices are the index's own copies.
type entry struct {
	seq    int64
	method string
	params []byte // nil when the request had none
	answer []byte // the recorded answer, with its recorded id; nil: none
	notes  []note // server notifications recorded before the answer
}

// note is a recorded server notification.
type note struct {
	seq int64
	msg []byte
}

// readIndex reads the tape at path once, from start to end, and indexes
// it. An error reading the tape is returned, whichever session it is in.
func readIndex(path string, opts []tape.Option) (*index, error) {
	r, err := tape.Open(path, opts...)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var b builder
	for {
		msg, err := r.Next()
		if errors.Is(err, io.EOF) {
			return b.index(), nil
		}
		if err != nil {
			return nil, fmt.Errorf("mock: %w", err)
		}
		b.add(msg)
	}
}

// builder indexes a tape's messages, given in tape order.
type builder struct {
	sessions map[string]*building
	// unanswered holds, by session and request id, the indexes of the
	// requests still waiting for an answer, latest last.
	unanswered map[waitKey][]int
	methods    map[string]string // one copy of each method name
	arena      arena
	entries    int
}

// building is a session's part of the index while it is built.
type building struct {
	entries []entry
	notes   []note // server notifications since the session's last answer
}

type waitKey struct{ session, id string }

// add indexes one message: a client request becomes an entry; a server
// answer goes to the latest request of its session with its id and no
// answer yet, with the server notifications recorded since the last
// answer. Everything else is dropped, as are messages that are not
// JSON-RPC.
func (b *builder) add(msg tape.Message) {
	rpc, err := jsonrpc.Parse(msg.Msg)
	if err != nil {
		return
	}
	if b.sessions == nil {
		b.sessions = map[string]*building{}
		b.unanswered = map[waitKey][]int{}
		b.methods = map[string]string{}
	}
	switch {
	case msg.Dir == tape.C2S && rpc.Kind == jsonrpc.KindRequest:
	case msg.Dir == tape.S2C && (rpc.Kind == jsonrpc.KindResponse || rpc.Kind == jsonrpc.KindError || rpc.Kind == jsonrpc.KindNotification):
	default:
		return // a client's notification or answer, a server's request, a batch: never matched
	}
	s := b.sessions[msg.Session]
	if s == nil {
		s = &building{}
		b.sessions[msg.Session] = s
	}
	switch {
	case msg.Dir == tape.C2S:
		method, ok := b.methods[rpc.Method]
		if !ok {
			method = rpc.Method
			b.methods[method] = method
		}
		k := waitKey{msg.Session, jsonrpc.IDKey(rpc.ID)}
		b.unanswered[k] = append(b.unanswered[k], len(s.entries))
		s.entries = append(s.entries, entry{seq: msg.Seq, method: method, params: b.arena.copy(rpc.Params())})
		b.entries++
	case rpc.Kind == jsonrpc.KindResponse || rpc.Kind == jsonrpc.KindError:
		k := waitKey{msg.Session, jsonrpc.IDKey(rpc.ID)}
		waiting := b.unanswered[k]
		if len(waiting) == 0 {
			return // an answer to no request of the session: dropped
		}
		e := &s.entries[waiting[len(waiting)-1]]
		if waiting = waiting[:len(waiting)-1]; len(waiting) == 0 {
			delete(b.unanswered, k)
		} else {
			b.unanswered[k] = waiting
		}
		e.answer = b.arena.copy(msg.Msg)
		e.notes, s.notes = s.notes, nil
	case rpc.Kind == jsonrpc.KindNotification:
		s.notes = append(s.notes, note{seq: msg.Seq, msg: b.arena.copy(msg.Msg)})
	}
}

// index returns what was built, each session's entries carved from one
// array of the exact size.
func (b *builder) index() *index {
	idx := &index{sessions: make(map[string][]entry, len(b.sessions))}
	all := make([]entry, 0, b.entries)
	for name, s := range b.sessions {
		start := len(all)
		all = append(all, s.entries...)
		idx.sessions[name] = all[start:len(all):len(all)]
	}
	return idx
}

// arena hands out copies of small byte slices from shared blocks: one
// allocation per block rather than per message, and none of the tape
// reader's blocks, which also hold what the index drops, kept alive.
type arena struct{ block []byte }

const (
	arenaBlock = 64 << 10 // bytes per block
	arenaMax   = 4 << 10  // larger slices get their own allocation
)

// copy returns a copy of b capped at its length, or nil for an empty b.
func (a *arena) copy(b []byte) []byte {
	switch {
	case len(b) == 0:
		return nil
	case len(b) > arenaMax:
		return append([]byte(nil), b...)
	case len(a.block) < len(b):
		a.block = make([]byte, arenaBlock)
	}
	c := a.block[:len(b):len(b)]
	copy(c, b)
	a.block = a.block[len(b):]
	return c
}
