package main

// hpong's answer to a body: the slow server's (slowmcp.Parse and
// slowmcp.Answer) byte for byte, with a fast path for the tools/call
// every client of bench-tail.sh sends that allocates nothing. The fast
// path takes only bodies whose answer it can tell for certain is what
// encoding/json would make of them: anything else (another method, an
// escape in a key or in the text, a key that differs from "id",
// "method", "params", "arguments" or "text" only by case, a repeated
// key, a value of another type) goes the slow server's way.
// FuzzAnswerBody holds the two ways to the same bytes.

import (
	"bytes"

	"github.com/replayctl/replayctl/internal/testserver/slowmcp"
)

// bodyAnswer is what hpong answers to a POST body: the HTTP status
// (200, 202 or 400), the JSON answer (nil for 202) and the message as
// its arrival line names it.
type bodyAnswer struct {
	status int
	msg    slowmcp.Message
}

// answerBody appends b's answer to dst (nothing for a 202) and returns
// the extended dst with the status and the message read, for the log.
// The fast path allocates nothing.
func answerBody(dst, b []byte) ([]byte, bodyAnswer) {
	if id, text, ok := fastCall(b); ok {
		dst = append(dst, `{"jsonrpc":"2.0","id":`...)
		dst = append(dst, id...)
		dst = append(dst, `,"result":{"content":[{"type":"text","text":`...)
		dst = append(dst, text...)
		dst = append(dst, `}]}}`...)
		return dst, bodyAnswer{status: 200, msg: slowmcp.Message{Kind: slowmcp.Request, Method: toolsCall, ID: id}}
	}
	m := slowmcp.Parse(b)
	switch m.Kind {
	case slowmcp.Notification, slowmcp.Response:
		return dst, bodyAnswer{status: 202, msg: m}
	case slowmcp.Invalid:
		return append(dst, slowmcp.Answer(m)...), bodyAnswer{status: 400, msg: m}
	}
	return append(dst, slowmcp.Answer(m)...), bodyAnswer{status: 200, msg: m}
}

const toolsCall = "tools/call"

// maxDepth is how deep the fast path follows nested values; deeper
// bodies go the slow server's way.
const maxDepth = 64

// fastCall recognises a tools/call request whose answer needs no
// decoding: a JSON object with the id (a number, or a string with no
// white space in its raw bytes: the slow server keeps it as sent), the
// method "tools/call" and params.arguments.text a string of printable
// ASCII with no escape, or no text at all ("ok", as slowmcp answers).
// It returns the raw id and the text as the answer writes it, quotes
// included; ok false: not such a body (or not valid JSON), for the
// slow server's way.
func fastCall(b []byte) (id, text []byte, ok bool) {
	s := scanner{b: b}
	s.ws()
	if s.i >= len(b) || b[s.i] != '{' {
		return nil, nil, false
	}
	var method, params []byte
	var seen [3]bool // id, method, params: a key twice is the slow server's (encoding/json keeps the last)
	fine := s.object(func(key, val []byte) bool {
		f := field(key, "id", "method", "params")
		if f == -2 || f >= 0 && seen[f] {
			return false
		}
		switch f {
		case 0:
			id = val
		case 1:
			method = val
		case 2:
			params = val
		}
		if f >= 0 {
			seen[f] = true
		}
		return true
	})
	s.ws()
	if !fine || s.i != len(b) || !seen[0] || !seen[1] || string(method) != `"`+toolsCall+`"` {
		return nil, nil, false
	}
	switch {
	case id[0] == '"' || id[0] == '-' || id[0] >= '0' && id[0] <= '9':
		if bytes.ContainsAny(id, " \t\r\n") {
			return nil, nil, false
		}
	default: // null, true, an object: the slow server's way
		return nil, nil, false
	}
	text, ok = argumentsText(params)
	return id, text, ok
}

// argumentsText is the answer's text for params (raw JSON, nil when
// absent): arguments.text as written, or "ok" when there is none.
func argumentsText(params []byte) ([]byte, bool) {
	const okText = `"ok"`
	if params == nil {
		return []byte(okText), true
	}
	args, ok := member(params, "arguments", '{')
	if !ok {
		return nil, false
	}
	if args == nil {
		return []byte(okText), true
	}
	text, ok := member(args, "text", '"')
	if !ok || text == nil {
		return []byte(okText), ok
	}
	for _, c := range text[1 : len(text)-1] {
		if c < 0x20 || c > 0x7e || c == '\\' {
			return nil, false
		}
	}
	return text, true
}

// member returns the value of obj's member name (raw JSON; nil when
// absent); ok false when obj is not an object or names it in a way the
// fast path leaves alone (twice, by another case, or escaped), or when
// the value does not begin with want ('{' or '"': an object or a
// string; anything else decodes into slowmcp's struct as a type error
// or a null, the slow server's way).
func member(obj []byte, name string, want byte) (val []byte, ok bool) {
	if obj[0] != '{' {
		return nil, false
	}
	s := scanner{b: obj}
	seen := false
	fine := s.object(func(key, v []byte) bool {
		switch field(key, name) {
		case 0:
			if seen {
				return false
			}
			seen, val = true, v
		case -2:
			return false
		}
		return true
	})
	if !fine || val != nil && val[0] != want {
		return nil, false
	}
	return val, true
}

// field says which of names key (raw, between its quotes) is: its
// index, -1 for none, -2 for a key the fast path leaves alone: escaped,
// not ASCII (encoding/json folds some such keys to ASCII letters) or
// one of names in another case (encoding/json matches field names
// without case).
func field(key []byte, names ...string) int {
	for _, c := range key {
		if c == '\\' || c >= 0x80 {
			return -2
		}
	}
	for i, n := range names {
		if string(key) == n {
			return i
		}
		if bytes.EqualFold(key, []byte(n)) {
			return -2
		}
	}
	return -1
}

// scanner walks JSON in b from i, checking it as it goes.
type scanner struct {
	b     []byte
	i     int
	depth int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value passes one JSON value; false when it is not one (or is nested
// deeper than maxDepth).
func (s *scanner) value() bool {
	s.ws()
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return s.object(nil)
	case c == '[':
		return s.array()
	case c == '"':
		return s.str()
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return false
}

// object passes the object at s.i, calling member (when not nil) with
// each key (raw, between its quotes) and value (raw); false when it is
// not an object or member says so.
func (s *scanner) object(member func(key, val []byte) bool) bool {
	if s.depth++; s.depth > maxDepth {
		return false
	}
	s.i++ // '{'
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		s.depth--
		return true
	}
	for {
		s.ws()
		k := s.i
		if s.i >= len(s.b) || s.b[s.i] != '"' || !s.str() {
			return false
		}
		key := s.b[k+1 : s.i-1]
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.ws()
		v := s.i
		if !s.value() {
			return false
		}
		if member != nil && !member(key, s.b[v:s.i]) {
			return false
		}
		if end, ok := s.next('}'); end || !ok {
			return ok
		}
	}
}

func (s *scanner) array() bool {
	if s.depth++; s.depth > maxDepth {
		return false
	}
	s.i++ // '['
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		s.depth--
		return true
	}
	for {
		if !s.value() {
			return false
		}
		if end, ok := s.next(']'); end || !ok {
			return ok
		}
	}
}

// next passes what follows a member or an element: a comma (end false)
// or the closing byte of its object or array (end true, one level up);
// ok is false for anything else.
func (s *scanner) next(closing byte) (end, ok bool) {
	s.ws()
	if s.i >= len(s.b) {
		return false, false
	}
	switch s.b[s.i] {
	case ',':
		s.i++
		return false, true
	case closing:
		s.i++
		s.depth--
		return true, true
	}
	return false, false
}

// str passes the string at s.i (its opening quote): no control
// character, escapes as JSON has them. Bytes that are not UTF-8 pass,
// as encoding/json takes them.
func (s *scanner) str() bool {
	s.i++ // '"'
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if s.i+1 >= len(s.b) {
				return false
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) {
					return false
				}
				for _, h := range s.b[s.i+2 : s.i+6] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return false
					}
				}
				s.i += 6
			default:
				return false
			}
		default:
			s.i++
		}
	}
	return false
}

// number passes -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *scanner) number() bool {
	if s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.digits() == 0:
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}

func (s *scanner) digits() int {
	n := 0
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

func (s *scanner) literal(word string) bool {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}
