package jsonrpc

import (
	"math"
	"unsafe"
)

// Kept is a Message without its bytes: what Parse found, small enough to
// travel beside the bytes it was parsed from (tape.Message carries one),
// so that their users do not parse them again. Keep makes one; Of gives
// the Message back for those same bytes, and for no others. The zero Kept
// holds nothing.
type Kept struct {
	at   *byte  // the first byte of the Raw parsed: Of is given those bytes or none
	n    uint32 // len(Raw)
	kind Kind
	// method is 1 + the method's index in knownMethods, or 0 for none: a
	// Kept holds no string, its only pointer is at (the garbage
	// collector's work per message it travels with).
	method uint8
	// id, and params (a request, a notification), result (a response) or
	// error (an error): a message has one of the three.
	id, body span32
}

// span32 is a span in 32 bits a side.
type span32 struct{ start, end uint32 }

// Keep returns m without its bytes. A message that is not valid, empty,
// of 4 GiB or more, of a method that is not one of MCP's, or with a member
// of another kind than its own (the params of a response) is not kept: Of
// then reports false.
func Keep(m Message) Kept {
	if m.Kind == KindInvalid || len(m.Raw) == 0 || len(m.Raw) > math.MaxUint32 {
		return Kept{}
	}
	body := m.body()
	if m.params != *body && m.params.ok() || m.result != *body && m.result.ok() || m.errv != *body && m.errv.ok() {
		return Kept{}
	}
	var method uint8
	if m.Method != "" {
		i, ok := methodIndex[m.Method]
		if !ok {
			return Kept{}
		}
		method = i + 1
	}
	return Kept{at: unsafe.SliceData(m.Raw), n: uint32(len(m.Raw)), kind: m.Kind, method: method,
		id: narrow(m.id), body: narrow(*body)}
}

// body is the member a message of m's kind has besides its id.
func (m *Message) body() *span {
	switch m.Kind {
	case KindResponse:
		return &m.result
	case KindError:
		return &m.errv
	}
	return &m.params
}

// Of returns the Message k was kept from, if raw is its bytes: the same
// slice of the same memory, not an equal copy (bytes changed in place
// since are not noticed: the caller owns that). It reports false for any
// other raw and for the zero Kept; parse raw then.
func (k Kept) Of(raw []byte) (m Message, ok bool) {
	ok = k.Into(raw, &m)
	return m, ok
}

// Into is Of, written into *m (every field of it), where the caller keeps
// the Message: a Message built, returned and copied again into its place
// cost more than the rest of Of (it is 136 bytes). When it reports false,
// *m is as it was.
func (k Kept) Into(raw []byte, m *Message) bool {
	if k.at == nil || len(raw) != int(k.n) || unsafe.SliceData(raw) != k.at {
		return false
	}
	// Each field once: a pointer stored into a heap Message (an item's)
	// goes through the write barrier's check.
	var method string
	if k.method != 0 {
		method = knownMethods[k.method-1]
	}
	id := widen(k.id)
	var idv []byte
	if id.ok() {
		idv = raw[id.start:id.end:id.end]
	}
	m.Raw, m.Kind, m.Method, m.ID = raw, k.kind, method, idv
	m.id, m.params, m.result, m.errv = id, span{}, span{}, span{}
	*m.body() = widen(k.body)
	return true
}

func narrow(s span) span32 { return span32{uint32(s.start), uint32(s.end)} }
func widen(s span32) span  { return span{int(s.start), int(s.end)} }
