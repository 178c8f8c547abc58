package mock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
)

// DefaultLookahead is how many tape messages the mock reads past the last
// match while looking for a request it has not seen yet.
const DefaultLookahead = 100_000

// recorded is a recorded request of the session, waiting to be matched.
type recorded struct {
	method    string
	params    []byte
	idKey     string
	answer    jsonrpc.Message // the recorded answer, once read
	hasAnswer bool
	notes     [][]byte // server notifications recorded before the answer
	used      bool
}

// feedItem is one recorded message of the session, read ahead.
type feedItem struct {
	dir tape.Dir
	rpc jsonrpc.Message
	err error
}

// matcher finds recorded answers. It is owned by one connection; its
// tape is read ahead by the connection's reader goroutine into feed.
type matcher struct {
	feed      <-chan feedItem
	lookahead int
	eof       bool
	waiting   []*recorded // in recorded order; used ones trimmed from the front
	notes     [][]byte    // server notifications read since the last answer
}

// answer returns the recorded answer to req with req's id, or a JSON-RPC
// error saying that the tape has none, and the server notifications
// recorded before that answer, to be sent first.
func (m *matcher) answer(req jsonrpc.Message) (notes [][]byte, ans []byte, err error) {
	rec, err := m.find(req)
	if err != nil {
		return nil, nil, err
	}
	if rec == nil || !rec.hasAnswer {
		return nil, noAnswer(req), nil
	}
	return rec.notes, rec.answer.WithID(req.ID), nil
}

// find returns the first unused recorded request like req, reading ahead
// until its answer has been read too; nil if the tape has none.
func (m *matcher) find(req jsonrpc.Message) (*recorded, error) {
	params := req.Params()
	var match *recorded
	for _, w := range m.waiting {
		if !w.used && w.method == req.Method && sameJSON(w.params, params) {
			match = w
			break
		}
	}
	for read := 0; (match == nil || !match.hasAnswer) && !m.eof; read++ {
		if match == nil && read >= m.lookahead {
			break
		}
		rec, ok := <-m.feed
		if !ok {
			m.eof = true
			break
		}
		if rec.err != nil {
			m.eof = true
			return nil, fmt.Errorf("mock: %w", rec.err)
		}
		rpc := rec.rpc
		switch {
		case rec.dir == tape.C2S && rpc.Kind == jsonrpc.KindRequest:
			w := &recorded{method: rpc.Method, params: rpc.Params(), idKey: jsonrpc.IDKey(rpc.ID)}
			m.waiting = append(m.waiting, w)
			if match == nil && w.method == req.Method && sameJSON(w.params, params) {
				match = w
			}
		case rec.dir == tape.S2C && (rpc.Kind == jsonrpc.KindResponse || rpc.Kind == jsonrpc.KindError):
			m.attach(jsonrpc.IDKey(rpc.ID), rpc)
		case rec.dir == tape.S2C && rpc.Kind == jsonrpc.KindNotification:
			m.notes = append(m.notes, rpc.Raw)
		}
	}
	if match != nil {
		match.used = true
		m.trim()
	}
	return match, nil
}

// attach gives a recorded answer to the latest waiting request with its id.
func (m *matcher) attach(idKey string, answer jsonrpc.Message) {
	for i := len(m.waiting) - 1; i >= 0; i-- {
		if w := m.waiting[i]; w.idKey == idKey && !w.hasAnswer {
			w.answer, w.hasAnswer = answer, true
			w.notes, m.notes = m.notes, nil
			return
		}
	}
}

// trim forgets used requests at the front, so the window stays small when
// the replay follows the tape.
func (m *matcher) trim() {
	n := 0
	for n < len(m.waiting) && m.waiting[n].used {
		m.waiting[n] = nil
		n++
	}
	m.waiting = m.waiting[n:]
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

// readAhead sends the session's requests and answers, parsed, to feed
// until the tape ends or done is closed. Decoding the tape here, on its
// own goroutine, keeps it off the replay's critical path.
func readAhead(r *tape.Reader, from int64, feed chan<- feedItem, stop, done <-chan struct{}) {
	defer close(feed)
	for {
		msg, err := r.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		var it feedItem
		if err != nil {
			it.err = err
		} else if msg.Seq < from {
			continue
		} else if it.rpc, err = jsonrpc.Parse(msg.Msg); err != nil {
			continue
		}
		it.dir = msg.Dir
		select {
		case feed <- it:
		case <-stop:
			return
		case <-done:
			return
		}
		if it.err != nil {
			return
		}
	}
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
