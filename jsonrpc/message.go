package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// ErrInvalid is wrapped by every error Parse, ParseStrict and Batch return:
// the bytes are not JSON, or not a JSON-RPC 2.0 message. The wrapping
// error says why ("missing method", "id is an object", ...).
var ErrInvalid = errors.New("jsonrpc: invalid message")

// span is where a member's value sits in Raw; end == 0 means absent (a
// value never ends at offset 0, an object's '{' comes first).
type span struct{ start, end int }

func (s span) ok() bool { return s.end != 0 }

// Message is a view of one JSON-RPC message (or a batch). It keeps the
// exact bytes it was parsed from; ID and the member accessors return
// sub-slices of Raw, so a caller that reuses the buffer must copy first.
type Message struct {
	Raw    []byte // the exact bytes
	Kind   Kind
	Method string // requests and notifications
	// ID is the raw bytes of the id value (`1`, `"abc"`, `null`), nil when
	// the message has none.
	ID []byte

	id, params, result, errv span
}

// Params returns the raw bytes of the params member, or nil.
func (m Message) Params() []byte { return m.member(m.params) }

// Result returns the raw bytes of the result member, or nil.
func (m Message) Result() []byte { return m.member(m.result) }

// Error returns the raw bytes of the error member, or nil.
func (m Message) Error() []byte { return m.member(m.errv) }

func (m Message) member(s span) []byte {
	if !s.ok() {
		return nil
	}
	return m.Raw[s.start:s.end:s.end]
}

// ParseStrict is Parse for bytes from outside (the network, a user): it
// also checks that raw is well-formed JSON (as encoding/json.Valid does),
// and says "not valid JSON" when it is not, whatever else is wrong. An
// object is checked and parsed in one pass that recognises the members
// it records as it meets them (strictScan.scan); one with an escaped
// member name (rare) is parsed the general way, which decodes names.
func ParseStrict(raw []byte) (Message, error) {
	if i := jsonscan.SkipSpace(raw, 0); i < len(raw) && raw[i] == '{' {
		var s strictScan
		s.scan(raw, i, 0)
		switch {
		case s.escaped:
			return parse(raw, true)
		case s.end < 0 || jsonscan.SkipSpace(raw, s.end) != len(raw):
			return Message{Raw: raw}, errNotJSON
		}
		var m Message
		err := s.message(&m, raw)
		return m, err
	}
	if !jsonscan.Valid(raw) {
		return Message{Raw: raw}, errNotJSON
	}
	return parse(raw, false)
}

var errNotJSON = fmt.Errorf("%w: not valid JSON", ErrInvalid)

// Parse classifies raw as a JSON-RPC 2.0 message and finds its members.
// It checks the structure of the top-level object and the members it
// reads, not the grammar of the rest (see ParseStrict). A batch (a JSON
// array) has Kind KindBatch; Batch returns its parts. On error the
// returned Message has Kind KindInvalid and Raw set, and the error wraps
// ErrInvalid and says what is wrong.
func Parse(raw []byte) (Message, error) { return parse(raw, false) }

// ParseStrictAt is ParseStrict for the object that starts at doc[i] (its
// '{'), with anything after it: a message inside a larger document, read
// in the pass that finds it. It returns the message, its Raw doc[i:end],
// and end. When the object is not well-formed JSON, end is -1 and the
// error says so as ParseStrict's does; when it is, but not a valid
// JSON-RPC message, end is still its end.
func ParseStrictAt(doc []byte, i int) (m Message, end int, err error) {
	if i >= len(doc) || doc[i] != '{' {
		return Message{Raw: doc[i:]}, -1, errNotJSON
	}
	var s strictScan
	s.scan(doc, i, i)
	switch {
	case s.escaped:
		return parseObject(doc, i, true, true)
	case s.end < 0:
		return Message{Raw: doc[i:]}, -1, errNotJSON
	}
	err = s.message(&m, doc[i:s.end:s.end])
	return m, s.end, err
}

// parse is Parse; strict (an object only) also checks the grammar of all
// of raw in the same pass.
func parse(raw []byte, strict bool) (Message, error) {
	m := Message{Raw: raw}
	if i := jsonscan.SkipSpace(raw, 0); i < len(raw) && raw[i] == '[' {
		if err := checkBatch(raw, i); err != nil {
			return m, err
		}
		m.Kind = KindBatch
		return m, nil
	}
	m, _, err := parseObject(raw, 0, strict, false)
	return m, err
}

// parseObject parses the object in doc: all of doc, or with at the one
// that starts at doc[base] (strict only), and returns its end (-1 when it
// is not well-formed JSON).
func parseObject(doc []byte, base int, strict, at bool) (Message, int, error) {
	m := Message{Raw: doc}
	var version, method span
	var dup string
	var seen uint8
	member := func(mb jsonscan.Member) bool {
		key := mb.Key
		if mb.KeyEscaped {
			key = unescapeKey(key)
		}
		var bit uint8
		var dst *span
		var name string
		switch string(key) {
		case "jsonrpc":
			bit, dst, name = 1, &version, "jsonrpc"
		case "id":
			bit, dst, name = 2, &m.id, "id"
		case "method":
			bit, dst, name = 4, &method, "method"
		case "params":
			bit, dst, name = 8, &m.params, "params"
		case "result":
			bit, dst, name = 16, &m.result, "result"
		case "error":
			bit, dst, name = 32, &m.errv, "error"
		default:
			return true
		}
		if seen&bit != 0 {
			dup = name
			return false
		}
		seen |= bit
		*dst = span{mb.Start - base, mb.End - base}
		return true
	}
	var err error
	end := len(doc)
	switch {
	case at:
		if end, err = jsonscan.MembersValidAt(doc, base, member); err == nil {
			m.Raw = doc[base:end:end]
		} else {
			m.Raw = doc[base:]
		}
	case strict:
		err = jsonscan.MembersValid(doc, member)
	default:
		err = jsonscan.Members(doc, member)
	}
	if err != nil && strict {
		return Message{Raw: m.Raw}, -1, errNotJSON
	}
	if err != nil {
		return m, -1, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if dup != "" {
		m, err := invalid(m, "member %q appears twice", dup)
		return m, end, err
	}
	if err := m.classify(version, method); err != nil {
		return Message{Raw: m.Raw}, end, err
	}
	return m, end, nil
}

func invalid(m Message, format string, args ...any) (Message, error) {
	return Message{Raw: m.Raw}, fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// classify checks the members found and sets Kind, ID and Method.
func (m *Message) classify(version, method span) error {
	raw := m.Raw
	if !version.ok() {
		return fmt.Errorf("%w: missing \"jsonrpc\" member", ErrInvalid)
	}
	if v := raw[version.start:version.end]; string(v) != `"2.0"` && decodeString(v) != "2.0" {
		return fmt.Errorf("%w: jsonrpc is not \"2.0\" (got %.40s)", ErrInvalid, v)
	}
	if m.id.ok() {
		switch raw[m.id.start] {
		case '{':
			return fmt.Errorf("%w: id is an object", ErrInvalid)
		case '[':
			return fmt.Errorf("%w: id is an array", ErrInvalid)
		case 't', 'f':
			return fmt.Errorf("%w: id is a boolean", ErrInvalid)
		}
		m.ID = raw[m.id.start:m.id.end:m.id.end]
	}
	if m.params.ok() {
		if c := raw[m.params.start]; c != '{' && c != '[' {
			return fmt.Errorf("%w: params is not an object or array", ErrInvalid)
		}
	}
	switch {
	case method.ok():
		if m.result.ok() {
			return fmt.Errorf("%w: both method and result", ErrInvalid)
		}
		if m.errv.ok() {
			return fmt.Errorf("%w: both method and error", ErrInvalid)
		}
		v := raw[method.start:method.end]
		if v[0] != '"' {
			return fmt.Errorf("%w: method is not a string", ErrInvalid)
		}
		name, ok := methodName(v)
		if !ok {
			return fmt.Errorf("%w: method is not a valid JSON string", ErrInvalid)
		}
		m.Method = name
		m.Kind = KindNotification
		if m.id.ok() {
			m.Kind = KindRequest
		}
	case m.result.ok() && m.errv.ok():
		return fmt.Errorf("%w: both result and error", ErrInvalid)
	case m.result.ok():
		if !m.id.ok() {
			return fmt.Errorf("%w: response without id", ErrInvalid)
		}
		m.Kind = KindResponse
	case m.errv.ok():
		if raw[m.errv.start] != '{' {
			return fmt.Errorf("%w: error is not an object", ErrInvalid)
		}
		if !m.id.ok() {
			return fmt.Errorf("%w: error response without id", ErrInvalid)
		}
		m.Kind = KindError
	default:
		return fmt.Errorf("%w: missing method, result or error", ErrInvalid)
	}
	return nil
}

// methodName decodes the quoted method value v. Common MCP methods are
// returned as constants so that parsing them does not allocate.
func methodName(v []byte) (string, bool) {
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') >= 0 {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", false
		}
		return s, true
	}
	if s, ok := knownMethod(inner); ok {
		return s, true
	}
	return string(inner), true
}

// decodeString decodes a JSON string value, or returns "" when v is not one.
func decodeString(v []byte) string {
	if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') < 0 {
		if len(v) >= 2 && v[0] == '"' {
			return string(v[1 : len(v)-1])
		}
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// unescapeKey decodes a member name that holds escapes (rare: only then
// does Parse allocate for a key). A name that does not decode is returned
// as is, and so matches no member Parse looks for.
func unescapeKey(k []byte) []byte {
	q := make([]byte, 0, len(k)+2)
	q = append(append(append(q, '"'), k...), '"')
	var s string
	if json.Unmarshal(q, &s) != nil {
		return k
	}
	return []byte(s)
}
