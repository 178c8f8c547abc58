package mock

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/replayctl/replayctl/jsonrpc"
)

// DefaultLookahead is how many recorded requests past the first one not
// yet asked the mock searches for a request asked out of recorded order.
const DefaultLookahead = 100_000

// matcher finds a session's recorded answers. It is owned by one
// connection; the entries it reads are shared with every connection of
// the session and never written.
type matcher struct {
	entries   []entry // the session's, from the rewind point on
	from      int64   // notifications recorded before seq from are not sent
	lookahead int
	next      int              // entries before next have all been asked
	used      map[int]struct{} // entries after next that have been asked
}

// newMatcher returns a matcher over a session's entries that answers as
// the recording did from seq from on.
func newMatcher(entries []entry, lookahead int, from int64) matcher {
	i, _ := slices.BinarySearchFunc(entries, from, func(e entry, seq int64) int { return cmp.Compare(e.seq, seq) })
	return matcher{entries: entries[i:], from: from, lookahead: max(lookahead, 0)}
}

// answer returns the recorded answer to req with req's id, or a JSON-RPC
// error saying that the tape has none, and the server notifications
// recorded before that answer, to be sent first.
func (m *matcher) answer(req jsonrpc.Message) (notes [][]byte, ans []byte) {
	e := m.find(req.Method, req.Params())
	if e == nil || e.answer == nil {
		return nil, noAnswer(req)
	}
	rec, err := jsonrpc.Parse(e.answer)
	if err != nil { // parsed once already, when the tape was indexed
		return nil, noAnswer(req)
	}
	for _, n := range e.notes {
		if n.seq >= m.from {
			notes = append(notes, n.msg)
		}
	}
	return notes, rec.WithID(req.ID)
}

// find marks as asked, and returns, the first entry not asked yet with
// this method and params, looking no further than lookahead entries past
// the first one not asked; nil if there is none.
func (m *matcher) find(method string, params []byte) *entry {
	end := len(m.entries)
	if m.lookahead < end-m.next {
		end = m.next + m.lookahead + 1
	}
	for i := m.next; i < end; i++ {
		e := &m.entries[i]
		if e.method != method {
			continue
		}
		if _, used := m.used[i]; used || !sameJSON(e.params, params) {
			continue
		}
		m.use(i)
		return e
	}
	return nil
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

// sameJSON reports whether two JSON values are equal: byte-equal, or equal
// once decoded (key order and spacing aside).
func sameJSON(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	// Spacing and key order cannot make one side many times the other:
	// do not decode a megabyte to learn that it differs from 60 bytes.
	if la, lb := len(a), len(b); max(la, lb) > 4*min(la, lb)+256 {
		return false
	}
	var va, vb any
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	if da.Decode(&va) != nil || db.Decode(&vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

func noAnswer(req jsonrpc.Message) []byte {
	method, _ := json.Marshal("replayctl mock: the tape has no answer to " + req.Method + " with these params")
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":%s}}`, req.ID, method)
}

// badMessage is a good server's answer to a message that is not JSON-RPC:
// -32700 when it is not JSON, -32600 when it is JSON but not a valid
// request; the id is null, as it cannot be read.
func badMessage(msg []byte) []byte {
	if !json.Valid(msg) {
		return []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
	}
	return []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`)
}
