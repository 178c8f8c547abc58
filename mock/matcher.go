package mock

import (
	"bytes"
	"encoding/json"
	"sort"
	"sync"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/transport"
)

// DefaultLookahead is how many recorded requests past the first one not
// yet asked the mock searches for a request asked out of recorded order.
const DefaultLookahead = 100_000

// matcher finds a session's recorded answers. It is owned by one
// connection; the index and the entries it reads are shared with every
// connection and never written.
type matcher struct {
	idx       *index
	all       []entry // the session's
	base      int     // where entries start in all
	entries   []entry // the session's, from the rewind point on
	from      int64   // notifications recorded before seq from are not sent
	lookahead int
	next      int              // entries before next have all been asked
	used      map[int]struct{} // entries after next that have been asked
	blk       answerBlock      // where the answers with a live id are made
}

// answerBlock hands out the bytes of answers made with the live id
// (idxReply) from blocks of answerBlockSize, where each was an
// allocation of its own; each capped at its length, so that appending
// to one never writes into the next. A block lives as long as any answer
// in it: small, so that an answer kept (a report's failure, the browser
// view) holds little more than its own.
type answerBlock []byte

const (
	answerBlockSize = 8 << 10
	answerMax       = 1 << 10 // longer answers get their own allocation
)

// space returns an empty slice of capacity n: from the block when n is
// small, else of its own. A nil block gives its own.
func (b *answerBlock) space(n int) []byte {
	if b == nil || n > answerMax {
		return make([]byte, 0, n)
	}
	if len(*b) < n {
		*b = make([]byte, answerBlockSize)
	}
	s := (*b)[:0:n]
	*b = (*b)[n:]
	return s
}

// scratch is what answering one request needs for a moment: pooled, so
// that connections, thousands at once in load replays, hold none.
type scratch struct {
	canon canon
	buf   []byte // lines read back from the tape
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// putScratch returns sc to the pool.
func putScratch(sc *scratch) {
	if cap(sc.buf) > 64<<10 { // do not keep a huge answer's buffer
		sc.buf = nil
	}
	scratchPool.Put(sc)
}

// newMatcher returns a matcher over a session's entries that answers as
// the recording did from seq from on.
func newMatcher(idx *index, entries []entry, lookahead int, from int64) matcher {
	// By index, reading only seq: the index may be hashing params meanwhile (see index.canonical).
	i := sort.Search(len(entries), func(j int) bool { return entries[j].seq >= from })
	return matcher{idx: idx, all: entries, base: i, entries: entries[i:], from: from, lookahead: max(lookahead, 0)}
}

// answer returns the recorded answer to req with req's id, or a JSON-RPC
// error saying that the tape has none, and the server notifications
// recorded before that answer, to be sent first. With aside (a message
// not on the tape) it counts no entry as asked.
func (m *matcher) answer(req jsonrpc.Message, aside bool) (notes [][]byte, ans []byte) {
	method, ok := m.idx.methods[req.Method]
	if !ok {
		return nil, noAnswer(req)
	}
	sc := scratchPool.Get().(*scratch)
	defer putScratch(sc)
	var e *entry
	inOrder := !aside && m.inOrder(method, req.Params())
	if !inOrder {
		m.idx.canonical()
	}
	switch {
	case aside:
		e = m.peek(method, sc.canon.hash(req.Params()))
	case inOrder:
		e = &m.entries[m.next]
		m.use(m.next)
	default:
		e = m.find(method, sc.canon.hash(req.Params()))
	}
	if e == nil || e.ans == 0 {
		return nil, noAnswer(req)
	}
	return idxReply(m.idx, e, req, m.from, sc, &m.blk)
}

// idxReply returns e's recorded answer, with req's id, and the server
// notifications recorded before it from seq from on; e has an answer.
// An answer made anew with req's id takes its bytes from blk.
func idxReply(idx *index, e *entry, req jsonrpc.Message, from int64, sc *scratch, blk *answerBlock) (notes [][]byte, ans []byte) {
	for _, n := range idx.notesOf(e) {
		if n.seq < from {
			continue
		}
		msg, err := idx.at(n.at, n.seq, &sc.buf)
		if err != nil {
			return nil, unreadable(req, err)
		}
		if idx.file != nil {
			msg = bytes.Clone(msg) // out of buf, which the next read reuses
		}
		notes = append(notes, msg)
	}
	msg, err := idx.at(e.ans, -1, &sc.buf)
	if err != nil {
		return nil, unreadable(req, err)
	}
	if e.idEnd > 0 { // in memory, its id where the index found it
		id := msg[e.idAt:e.idEnd]
		if bytes.Equal(id, req.ID) {
			return notes, msg // the index's own bytes, which no one writes
		}
		out := blk.space(len(msg) - len(id) + len(req.ID))
		out = append(append(append(out, msg[:e.idAt]...), req.ID...), msg[e.idEnd:]...)
		return notes, out
	}
	rec, err := jsonrpc.Parse(msg)
	if err != nil { // parsed once already, when the tape was indexed
		return nil, unreadable(req, errRead)
	}
	return notes, rec.WithID(req.ID) // a copy, out of buf
}

// inOrder reports whether the first entry not asked yet is a request of
// method with these very params bytes: the request a replay of the tape
// asks next, matched without canonicalizing its params (the entry find
// would pick, as no entry comes before it).
func (m *matcher) inOrder(method uint32, params []byte) bool {
	if m.next >= len(m.entries) {
		return false
	}
	e := &m.entries[m.next]
	return e.method == method && e.raw != 0 && e.raw == rawHash(params)
}

// find marks as asked, and returns, the first entry not asked yet with
// this method and params hash, looking no further than lookahead entries
// past the first one not asked; nil if there is none.
func (m *matcher) find(method uint32, params uint64) *entry {
	i := m.unasked(method, params)
	if i < 0 {
		return nil
	}
	m.use(i)
	return &m.entries[i]
}

// peek returns, without marking it asked, the entry find would, or when
// there is none the last entry asked with this method and params hash;
// nil if the session has none.
func (m *matcher) peek(method uint32, params uint64) *entry {
	if i := m.unasked(method, params); i >= 0 {
		return &m.entries[i]
	}
	last := -1
	a, b := m.idx.keysOf(m.all).matching(m.all, method, params)
	for _, r := range [][]uint32{a, b} {
		if len(r) > 0 {
			last = max(last, int(r[len(r)-1])-m.base)
		}
	}
	if last < 0 {
		return nil
	}
	return &m.entries[last]
}

// nearby is how many entries past the first one not asked unasked looks
// at one by one before it asks the keys: a replay asks in recorded
// order, mostly, and finds its entry among them.
const nearby = 8

// unasked is the index of the first entry not asked yet with this method
// and params hash, within lookahead entries past the first one not
// asked; -1 if there is none. Past the nearby entries it looks only at
// those with the method and params hash (see keys), so that a request
// the session does not have costs the same however long the session is.
func (m *matcher) unasked(method uint32, params uint64) int {
	end := len(m.entries)
	if m.lookahead < end-m.next {
		end = m.next + m.lookahead + 1
	}
	near := min(end, m.next+nearby)
	for i := m.next; i < near; i++ {
		if m.fits(i, method, params) {
			return i
		}
	}
	examined := near - m.next
	if near == end {
		m.idx.examined.Add(int64(examined)) // a miss: for tests
		return -1
	}
	a, b := m.idx.keysOf(m.all).matching(m.all, method, params)
	for k := range merged(from(a, m.base+near), from(b, m.base+near)) {
		i := k - m.base
		if i >= end {
			break
		}
		examined++
		if _, used := m.used[i]; !used {
			return i
		}
	}
	m.idx.examined.Add(int64(examined)) // a miss: for tests
	return -1
}

// fits reports whether entry i, not asked yet, has this method and params
// hash (or was recorded redacted).
func (m *matcher) fits(i int, method uint32, params uint64) bool {
	e := &m.entries[i]
	if e.method != method || (e.params != params && e.params != anyParams) {
		return false
	}
	_, used := m.used[i]
	return !used
}

// use marks entry i as asked. The entries asked in recorded order move
// next on and take no memory; only those asked ahead of it are kept.
func (m *matcher) use(i int) {
	if i != m.next {
		if m.used == nil {
			m.used = map[int]struct{}{}
		}
		m.used[i] = struct{}{}
		return
	}
	for m.next++; len(m.used) > 0; m.next++ {
		if _, ok := m.used[m.next]; !ok {
			return
		}
		delete(m.used, m.next)
	}
}

// unreadable is the answer to req when its recorded answer cannot be read
// back from the tape.
func unreadable(req jsonrpc.Message, err error) []byte {
	return jsonrpc.ErrorResponse(req.ID, mcp.CodeInternal, "replayctl mock: cannot read the answer to "+transport.Clip(req.Method)+" from the tape: "+err.Error(), nil)
}

func noAnswer(req jsonrpc.Message) []byte {
	return jsonrpc.ErrorResponse(req.ID, mcp.CodeMethodNotFound, "replayctl mock: the tape has no answer to "+transport.Clip(req.Method)+" with these params", nil)
}

// badMessage is a good server's answer to a message that is not JSON-RPC:
// -32700 when it is not JSON, -32600 when it is JSON but not a valid
// request; the id is null, as it cannot be read.
func badMessage(msg []byte) []byte {
	if !json.Valid(msg) {
		return jsonrpc.ErrorResponse(nil, mcp.CodeParseError, "Parse error", nil)
	}
	return jsonrpc.ErrorResponse(nil, mcp.CodeInvalidRequest, "Invalid Request", nil)
}
