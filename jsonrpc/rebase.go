package jsonrpc

import "bytes"

// Rebase returns the Message of raw, when raw is m's bytes with another id
// in the place of m's (what WithID and AppendWithID make of m), without
// parsing raw: it compares raw's bytes before and after that id with m's
// and reads the new id, a plain number or string. The result is what
// Parse(raw) returns. It reports false, and raw must be parsed, for any
// other raw: m not a valid message or without an id, other bytes besides
// the id, or a new id that is not an integer or a string of printable
// ASCII without escapes. A memory compare of raw's length replaces a
// parse: the replay's request with its fresh id (the recorded request's
// parse applies) and an answer that is the recorded one with the live id.
func (m Message) Rebase(raw []byte) (Message, bool) {
	if m.Kind == KindInvalid || m.Kind == KindBatch || !m.id.ok() {
		return Message{}, false
	}
	start, end := m.id.start, m.id.end
	tail := len(m.Raw) - end
	n := len(raw) - start - tail // the new id's length
	if n <= 0 || !bytes.Equal(raw[:start], m.Raw[:start]) || !bytes.Equal(raw[start+n:], m.Raw[end:]) {
		return Message{}, false
	}
	id := raw[start : start+n : start+n]
	if !plainID(id) {
		return Message{}, false
	}
	r := m
	r.Raw, r.ID = raw, id
	r.id.end = start + n
	d := n - (end - start)
	r.params, r.result, r.errv = r.params.after(end, d), r.result.after(end, d), r.errv.after(end, d)
	return r, true
}

// after is s moved by d when it lies after offset at.
func (s span) after(at, d int) span {
	if s.ok() && s.start >= at {
		return span{s.start + d, s.end + d}
	}
	return s
}

// plainID reports whether id is an integer (JSON's grammar: no leading
// zero) or a string of printable ASCII without escapes: one value that
// every parse reads the same, whatever surrounds it.
func plainID(id []byte) bool {
	if id[0] == '"' {
		if len(id) < 2 || id[len(id)-1] != '"' {
			return false
		}
		for _, c := range id[1 : len(id)-1] {
			if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
				return false
			}
		}
		return true
	}
	d := id
	if d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 1 && d[0] == '0' {
		return false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
