package tape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// The typed accessors of an imported document: each names the JSON path of
// what it reads in its errors, and the line it is on.

func (d *vcrDoc) lineAt(off int) int64 {
	return d.lineBase + int64(sort.SearchInts(d.nl, off)) + 1
}

func (d *vcrDoc) errf(off int, format string, args ...any) *Error {
	return &Error{Path: d.path, Line: d.lineAt(off), Seq: -1, Msg: fmt.Sprintf(format, args...)}
}

func (d *vcrDoc) wrongType(v span, path, want string) *Error {
	return d.errf(v.start, "%s is %s, want %s: fix the file", path, kindOf(d.doc[v.start:v.end]), want)
}

// object returns the members of the object at v by name (the last one wins).
func (d *vcrDoc) object(v span, path string) (map[string]span, error) {
	b := d.doc[v.start:v.end]
	if b[0] != '{' {
		return nil, d.wrongType(v, path, "an object")
	}
	out := make(map[string]span)
	var bad error
	err := jsonscan.Members(b, func(m jsonscan.Member) bool {
		key := string(m.Key)
		if m.KeyEscaped {
			var ok bool
			if key, ok = unescapeKey(m.Key); !ok {
				bad = d.errf(v.start+m.Start, "%s has a member name that is not valid JSON: fix the file", path)
				return false
			}
		}
		out[key] = span{v.start + m.Start, v.start + m.End}
		return true
	})
	if bad != nil {
		return nil, bad
	}
	if err != nil { // the document is valid JSON, so this does not happen
		return nil, d.errf(v.start, "%s is not a valid object: fix the file", path)
	}
	return out, nil
}

// array returns the elements of the array at v.
func (d *vcrDoc) array(v span, path string) ([]span, error) {
	b := d.doc[:v.end]
	if b[v.start] != '[' {
		return nil, d.wrongType(v, path, "an array")
	}
	var out []span
	i := jsonscan.SkipSpace(b, v.start+1)
	if i < len(b) && b[i] == ']' {
		return out, nil
	}
	for i < len(b) {
		end, err := jsonscan.SkipValue(b, i)
		if err != nil {
			break
		}
		out = append(out, span{i, end})
		i = jsonscan.SkipSpace(b, end)
		if i < len(b) && b[i] == ']' {
			return out, nil
		}
		if i >= len(b) || b[i] != ',' {
			break
		}
		i = jsonscan.SkipSpace(b, i+1)
	}
	return nil, d.errf(v.start, "%s is not a valid array: fix the file", path)
}

func (d *vcrDoc) str(v span, path string) (string, error) {
	b := d.doc[v.start:v.end]
	if s, ok := plainString(b); ok {
		return s, nil
	}
	var s string
	if b[0] != '"' || json.Unmarshal(b, &s) != nil {
		return "", d.wrongType(v, path, "a string")
	}
	return s, nil
}

// plainString returns the JSON string b holds when it needs no decoding
// (no escape, no control character, valid UTF-8): the common case, read
// without encoding/json.
func plainString(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	inner := b[1 : len(b)-1]
	for _, c := range inner {
		if c < 0x20 || c == '\\' || c == '"' {
			return "", false
		}
	}
	if !utf8.Valid(inner) {
		return "", false
	}
	return string(inner), true
}

// plainNumber is the valid JSON number b holds, read without
// encoding/json: number's common case.
func plainNumber(b []byte) (float64, bool) {
	if kindOf(b) == "a number" && jsonscan.Valid(b) {
		// A valid JSON number is a valid ParseFloat input; out of range
		// fails both.
		if f, err := strconv.ParseFloat(string(b), 64); err == nil {
			return f, true
		}
	}
	return 0, false
}

// optStr is str for a member that may be absent or null ("").
func (d *vcrDoc) optStr(v span, path string) (string, error) {
	if !v.ok() || d.doc[v.start] == 'n' {
		return "", nil
	}
	return d.str(v, path)
}

func (d *vcrDoc) optStrings(v span, path string) ([]string, error) {
	if !v.ok() || d.doc[v.start] == 'n' {
		return nil, nil
	}
	items, err := d.array(v, path)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		s, err := d.str(it, fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func (d *vcrDoc) number(v span, path string) (float64, error) {
	var f float64
	b := d.doc[v.start:v.end]
	if f, ok := plainNumber(b); ok {
		return f, nil
	}
	if k := kindOf(b); k != "a number" || json.Unmarshal(b, &f) != nil {
		return 0, d.wrongType(v, path, "a number")
	}
	return f, nil
}

// rpc returns the JSON-RPC object at v, compact, its key order kept.
func (d *vcrDoc) rpc(v span, path string) (vcrMsg, error) {
	b := d.doc[v.start:v.end]
	if b[0] != '{' {
		return vcrMsg{}, d.wrongType(v, path, "a JSON-RPC object")
	}
	if m, ok := d.validRPC(v); ok {
		return m, nil
	}
	if jsonscan.Valid(b) { // json.Compact would only take out white space
		return vcrMsg{msg: dropNulls(d.compactCopy(b)), line: d.lineAt(v.start)}, nil
	}
	var buf bytes.Buffer
	buf.Grow(len(b))
	if err := json.Compact(&buf, b); err != nil {
		return vcrMsg{}, d.errf(v.start, "%s is not valid JSON (%v): fix the file", path, err)
	}
	return vcrMsg{msg: dropNulls(buf.Bytes()), line: d.lineAt(v.start)}, nil
}

// validRPC is rpc for an object at v in a document known to be valid
// JSON (vcrDoc.valid): it cannot fail, and needs no path.
func (d *vcrDoc) validRPC(v span) (vcrMsg, bool) {
	if !d.valid || d.doc[v.start] != '{' {
		return vcrMsg{}, false
	}
	return vcrMsg{msg: dropNulls(d.compactCopy(d.doc[v.start:v.end])), line: d.lineAt(v.start)}, true
}

// appendCompact appends the valid JSON text b to dst without the white
// space outside its strings: what json.Compact makes of it
// (FuzzAppendCompact), without its state machine. Each string is passed
// whole, found by jsonscan.SkipValue; what lies between two runs of white
// space is copied in one append (all of b, when it is compact already:
// a message of a compact cassette was copied a token at a time).
func appendCompact(dst, b []byte) []byte {
	from := 0 // b[from:i] is copied as it is
	for i := 0; i < len(b); {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			dst = append(dst, b[from:i]...)
			for i++; i < len(b) && isSpace(b[i]); i++ {
			}
			from = i
		case '"':
			end, err := jsonscan.SkipValue(b, i)
			if err != nil { // not valid after all: the rest as it is
				return append(dst, b[from:]...)
			}
			i = end
		default:
			i++
		}
	}
	return append(dst, b[from:]...)
}

// compactCopy is appendCompact of the valid JSON text b into a copy of
// its own: the copies share blocks of compactBlock bytes (larger ones get
// their own), capped at their length so that an append to one cannot
// reach the next. One allocation per block rather than per message: a
// cassette's import allocated twice per interaction for these alone.
func (d *vcrDoc) compactCopy(b []byte) []byte {
	if cap(d.block)-len(d.block) < len(b) {
		if len(b) > compactBlock/4 {
			return appendCompact(make([]byte, 0, len(b)), b)
		}
		d.block = make([]byte, 0, compactBlock)
	}
	start := len(d.block)
	d.block = appendCompact(d.block, b) // no more than len(b): it stays in the block
	return d.block[start:len(d.block):len(d.block)]
}

// compactBlock is the size of compactCopy's blocks.
const compactBlock = 32 << 10

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// dropNulls removes the members of a compact JSON-RPC object that Agent
// VCR's recorder writes as null for "absent": "params": null, "error":
// null beside a result, "result": null beside an error, and the error's
// "data": null. Sent as they are, they are not JSON-RPC ("params" must be
// an object or an array; a response has a result or an error, not both)
// and a live server that leaves them out would differ. A null inside
// params or a result is the peer's own and is kept; so is a lone
// "result": null (a response without either would not be one).
func dropNulls(msg []byte) []byte {
	if bytes.Index(msg, nullText) < 0 { // the common case: no null anywhere
		return msg
	}
	hasErr := false         // a non-null error
	var nulls, errData bool // a null params, error or result; an error's null data
	_ = jsonscan.Members(msg, func(m jsonscan.Member) bool {
		switch string(m.Key) {
		case "error":
			if msg[m.Start] != 'n' {
				hasErr = true
				errData = errData || string(pick(msg[m.Start:m.End], "data")) == "null"
			} else {
				nulls = true
			}
		case "params", "result":
			nulls = nulls || msg[m.Start] == 'n'
		}
		return true
	})
	if !nulls && !errData { // nothing to drop: msg as it is
		return msg
	}
	return rebuild(msg, func(key string, v []byte) ([]byte, bool) {
		isNull := string(v) == "null"
		switch {
		case isNull && (key == "params" || key == "error" || key == "result" && hasErr):
			return nil, false
		case key == "error" && !isNull:
			return rebuild(v, func(key string, v []byte) ([]byte, bool) {
				return v, key != "data" || string(v) != "null"
			}), true
		}
		return v, true
	})
}

var nullText = []byte("null")

// rebuild writes the compact object obj again with each member's value
// as keep returns it, leaving out those it says no to; key order is kept.
func rebuild(obj []byte, keep func(key string, v []byte) ([]byte, bool)) []byte {
	out := make([]byte, 0, len(obj))
	out = append(out, '{')
	err := jsonscan.Members(obj, func(m jsonscan.Member) bool {
		v, ok := keep(string(m.Key), obj[m.Start:m.End])
		if !ok {
			return true
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, '"')
		out = append(out, m.Key...)
		out = append(out, '"', ':')
		out = append(out, v...)
		return true
	})
	if err != nil { // not an object after all: leave it as it is
		return obj
	}
	return append(out, '}')
}

// optRPC is rpc for a member that may be absent or null (nil).
func (d *vcrDoc) optRPC(v span, path string) (*vcrMsg, error) {
	if !v.ok() || d.doc[v.start] == 'n' {
		return nil, nil
	}
	m, err := d.rpc(v, path)
	if err != nil {
		return nil, err
	}
	return &m, nil
}
