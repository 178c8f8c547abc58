package jsonrpc

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// WithID returns a new slice: Raw with the id value replaced by id, every
// other byte identical. id must be the bytes of a JSON string, number or
// null. A message without an id (a notification, a batch) comes back as
// an unchanged copy of Raw.
func (m Message) WithID(id []byte) []byte {
	n := len(m.Raw)
	if m.id.ok() {
		n += len(id) - (m.id.end - m.id.start)
	}
	return m.AppendWithID(make([]byte, 0, n), id)
}

// AppendWithID is WithID appending to dst, for callers that reuse buffers.
func (m Message) AppendWithID(dst, id []byte) []byte {
	if !m.id.ok() {
		return append(dst, m.Raw...)
	}
	dst = append(dst, m.Raw[:m.id.start]...)
	dst = append(dst, id...)
	return append(dst, m.Raw[m.id.end:]...)
}

// IDSpan returns the offsets of the id value inside Raw, and false when
// the message has no id.
func (m Message) IDSpan() (start, end int, ok bool) {
	return m.id.start, m.id.end, m.id.ok()
}

// IDKey returns the canonical map key of an id value, for matching answers
// to requests. Surrounding white space is dropped. Strings keep their
// quotes, so `"1"` and `1` are different keys, and escapes are resolved,
// so `"a"` and `"\u0061"` are the same key. Numbers are compared as text:
// `1` and `1.0` are different keys (servers echo ids as they got them).
// nil (no id) gives "".
func IDKey(id []byte) string {
	id = bytes.TrimSpace(id)
	if len(id) < 2 || id[0] != '"' || bytes.IndexByte(id, '\\') < 0 {
		return string(id)
	}
	var s string
	if json.Unmarshal(id, &s) != nil {
		return string(id)
	}
	return canonicalQuote(s)
}

// IDKeys returns IDKey(a) and IDKey(b), in one allocation where both are
// their own bytes (numbers, strings without escapes): a request's sent
// and recorded ids, keyed together.
func IDKeys(a, b []byte) (string, string) {
	a, b = bytes.TrimSpace(a), bytes.TrimSpace(b)
	if !ownKey(a) || !ownKey(b) {
		return IDKey(a), IDKey(b)
	}
	var sb strings.Builder
	sb.Grow(len(a) + len(b))
	sb.Write(a)
	sb.Write(b)
	both := sb.String()
	return both[:len(a)], both[len(a):]
}

// ownKey reports whether IDKey of id, trimmed, is id's own bytes.
func ownKey(id []byte) bool {
	return len(id) < 2 || id[0] != '"' || bytes.IndexByte(id, '\\') < 0
}

// canonicalQuote quotes s the way an escape-free JSON string would look:
// only '"', '\\' and control characters are escaped, so an id written
// without escapes maps to its own bytes.
func canonicalQuote(s string) string {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r < 0x20:
			b = append(b, `\u00`...)
			if r < 0x10 {
				b = append(b, '0')
			}
			b = strconv.AppendInt(b, int64(r), 16)
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return string(append(b, '"'))
}

// WithParams returns a new slice: Raw with the params value replaced by
// params (JSON), every other byte identical. A message without params
// comes back as an unchanged copy of Raw.
func (m Message) WithParams(params []byte) []byte {
	if !m.params.ok() {
		return bytes.Clone(m.Raw)
	}
	out := make([]byte, 0, len(m.Raw)+len(params)-(m.params.end-m.params.start))
	out = append(out, m.Raw[:m.params.start]...)
	out = append(out, params...)
	return append(out, m.Raw[m.params.end:]...)
}
