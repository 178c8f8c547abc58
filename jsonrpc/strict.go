package jsonrpc

import (
	"encoding/binary"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

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

// strictScan is what one pass over an object found (scan).
type strictScan struct {
	spans [memCount]span // offsets from the scan's base; spans[memOther] unused
	dup   string         // the first member met twice, or ""
	end   int            // just past the object; -1: not well-formed JSON
	// escaped: a member's name holds an escape. The scan stops there
	// (end -1) and the caller parses the object the general way
	// (parseObject), which decodes names before it compares them.
	escaped bool
}

// scan checks the grammar of the object that starts at doc[i] (its
// '{') and records the spans of its JSON-RPC members, from base, in one
// pass: each member's name is recognised where the scan meets it (the
// names parse looks for, written plainly, are compared in place; any
// other name is checked as a string and its value as a value), with no
// call per member. It is MembersValidAt with parseObject's member
// callback folded in; FuzzStrictScan compares them.
func (s *strictScan) scan(doc []byte, i, base int) {
	s.end = -1
	i = jsonscan.SkipSpace(doc, i+1)
	if i < len(doc) && doc[i] == '}' {
		s.end = i + 1
		return
	}
	var seen uint8
	for {
		if i >= len(doc) || doc[i] != '"' {
			return
		}
		which, kend := knownMember(doc, i)
		if kend == 0 {
			var esc, ok bool
			if kend, esc, ok = jsonscan.KeyEnd(doc, i); !ok {
				return
			}
			if esc {
				s.escaped = true
				return
			}
		}
		if i = jsonscan.SkipSpace(doc, kend); i >= len(doc) || doc[i] != ':' {
			return
		}
		start := jsonscan.SkipSpace(doc, i+1)
		var vend int
		if which == memVersion && hasAt(doc, start, `"2.0"`) {
			vend = start + len(`"2.0"`)
		} else {
			var ok bool
			if vend, ok = jsonscan.ValueEnd(doc, start); !ok {
				return
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
			return
		}
		switch doc[i] {
		case ',':
			i = jsonscan.SkipSpace(doc, i+1)
		case '}':
			s.end = i + 1
			return
		default:
			return
		}
	}
}

// knownMember recognises, at doc[i] (a quote), the name of a member
// parse records written without escapes, and returns its index and the
// offset just past the name's closing quote; end is 0 for any other
// name (the caller checks it as a string). The name and its closing
// quote are compared as one word (every such name is at most seven
// bytes), where eight bytes follow the quote.
func knownMember(doc []byte, i int) (which, end int) {
	if len(doc)-i < 9 {
		return knownMemberShort(doc, i)
	}
	w := binary.LittleEndian.Uint64(doc[i+1:])
	switch {
	case w == wordJSONRPC:
		return memVersion, i + len(`"jsonrpc"`)
	case w&0xffffff == wordID:
		return memID, i + len(`"id"`)
	}
	switch w & 0xffffffffffffff {
	case wordMethod:
		return memMethod, i + len(`"method"`)
	case wordParams:
		return memParams, i + len(`"params"`)
	case wordResult:
		return memResult, i + len(`"result"`)
	}
	if w&0xffffffffffff == wordError {
		return memError, i + len(`"error"`)
	}
	return memOther, 0
}

// The names knownMember compares, each with its closing quote, as the
// little-endian word it loads.
var (
	wordJSONRPC = word(`jsonrpc"`)
	wordID      = word(`id"`)
	wordMethod  = word(`method"`)
	wordParams  = word(`params"`)
	wordResult  = word(`result"`)
	wordError   = word(`error"`)
)

func word(s string) (w uint64) {
	for k := len(s) - 1; k >= 0; k-- {
		w = w<<8 | uint64(s[k])
	}
	return w
}

// knownMemberShort is knownMember where fewer than eight bytes follow
// the quote, one name at a time.
func knownMemberShort(doc []byte, i int) (which, end int) {
	for which := memVersion; which < memCount; which++ {
		if name := memberNames[which]; hasAt(doc, i+1, name) && hasAt(doc, i+1+len(name), `"`) {
			return which, i + len(name) + 2
		}
	}
	return memOther, 0
}

// hasAt reports whether doc holds s at offset i.
func hasAt(doc []byte, i int, s string) bool {
	return len(doc)-i >= len(s) && string(doc[i:i+len(s)]) == s
}

// message sets *m to the Message s found in raw (its Raw; the spans are
// offsets into it), checked and classified as parseObject does, with the
// same errors (and then only Raw set).
func (s *strictScan) message(m *Message, raw []byte) error {
	*m = Message{Raw: raw, id: s.spans[memID], params: s.spans[memParams],
		result: s.spans[memResult], errv: s.spans[memError]}
	var err error
	if s.dup != "" {
		_, err = invalid(*m, "member %q appears twice", s.dup)
	} else {
		err = m.classify(s.spans[memVersion], s.spans[memMethod])
	}
	if err != nil {
		*m = Message{Raw: raw}
	}
	return err
}
