package jsonrpc

import "github.com/replayctl/replayctl/internal/jsonscan"

// The members a message's parse records, by their index in a scan's
// spans (memberNames names them); 0 is any other member.
const (
	memOther = iota
	memVersion
	memID
	memMethod
	memParams
	memResult
	memError
	memCount
)

var memberNames = [memCount]string{"", "jsonrpc", "id", "method", "params", "result", "error"}

// strictScan is what one pass over an object found (scanStrict).
type strictScan struct {
	spans [memCount]span // offsets from the scan's base; spans[memOther] unused
	dup   string         // the first member met twice, or ""
	end   int            // just past the object; -1: not well-formed JSON
	// escaped: a member's name holds an escape. The scan stops there
	// (end -1) and the caller parses the object the general way
	// (parseObject), which decodes names before it compares them.
	escaped bool
}

// scanStrict checks the grammar of the object that starts at doc[i] (its
// '{') and records the spans of its JSON-RPC members, from base, in one
// pass: each member's name is recognised where the scan meets it (the
// names parse looks for, written plainly, are compared in place; any
// other name is checked as a string and its value as a value), with no
// call per member. It is MembersValidAt with parseObject's member
// callback folded in; FuzzStrictScan compares them.
func scanStrict(doc []byte, i, base int) (s strictScan) {
	s.end = -1
	i = jsonscan.SkipSpace(doc, i+1)
	if i < len(doc) && doc[i] == '}' {
		s.end = i + 1
		return s
	}
	var seen uint8
	for {
		if i >= len(doc) || doc[i] != '"' {
			return s
		}
		which, kend := knownMember(doc, i)
		if kend == 0 {
			var esc, ok bool
			if kend, esc, ok = jsonscan.KeyEnd(doc, i); !ok {
				return s
			}
			if esc {
				s.escaped = true
				return s
			}
		}
		if i = jsonscan.SkipSpace(doc, kend); i >= len(doc) || doc[i] != ':' {
			return s
		}
		start := jsonscan.SkipSpace(doc, i+1)
		var vend int
		if which == memVersion && hasAt(doc, start, `"2.0"`) {
			vend = start + len(`"2.0"`)
		} else {
			var ok bool
			if vend, ok = jsonscan.ValueEnd(doc, start); !ok {
				return s
			}
		}
		if which != memOther && s.dup == "" {
			if bit := uint8(1) << which; seen&bit != 0 {
				s.dup = memberNames[which]
			} else {
				seen |= bit
				s.spans[which] = span{start - base, vend - base}
			}
		}
		if i = jsonscan.SkipSpace(doc, vend); i >= len(doc) {
			return s
		}
		switch doc[i] {
		case ',':
			i = jsonscan.SkipSpace(doc, i+1)
		case '}':
			s.end = i + 1
			return s
		default:
			return s
		}
	}
}

// knownMember recognises, at doc[i] (a quote), the name of a member
// parse records written without escapes, and returns its index and the
// offset just past the name's closing quote; end is 0 for any other
// name (the caller checks it as a string).
func knownMember(doc []byte, i int) (which, end int) {
	if i+1 >= len(doc) {
		return memOther, 0
	}
	switch doc[i+1] {
	case 'j':
		if hasAt(doc, i+1, `jsonrpc"`) {
			return memVersion, i + len(`"jsonrpc"`)
		}
	case 'i':
		if hasAt(doc, i+1, `id"`) {
			return memID, i + len(`"id"`)
		}
	case 'm':
		if hasAt(doc, i+1, `method"`) {
			return memMethod, i + len(`"method"`)
		}
	case 'p':
		if hasAt(doc, i+1, `params"`) {
			return memParams, i + len(`"params"`)
		}
	case 'r':
		if hasAt(doc, i+1, `result"`) {
			return memResult, i + len(`"result"`)
		}
	case 'e':
		if hasAt(doc, i+1, `error"`) {
			return memError, i + len(`"error"`)
		}
	}
	return memOther, 0
}

// hasAt reports whether doc holds s at offset i.
func hasAt(doc []byte, i int, s string) bool {
	return len(doc)-i >= len(s) && string(doc[i:i+len(s)]) == s
}

// message returns the Message s found in raw (its Raw; the spans are
// offsets into it), checked and classified as parseObject does, with the
// same errors.
func (s *strictScan) message(raw []byte) (Message, error) {
	m := Message{Raw: raw, id: s.spans[memID], params: s.spans[memParams],
		result: s.spans[memResult], errv: s.spans[memError]}
	if s.dup != "" {
		return invalid(m, "member %q appears twice", s.dup)
	}
	if err := m.classify(s.spans[memVersion], s.spans[memMethod]); err != nil {
		return Message{Raw: raw}, err
	}
	return m, nil
}
