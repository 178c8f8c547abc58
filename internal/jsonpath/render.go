package jsonpath

import (
	"strconv"
	"unicode/utf8"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// Render writes path in the difference form: `result.content[0].text`,
// names that are not plain quoted (`result["a.b"]`), "$" for the root.
func Render(path []Seg) string {
	if len(path) == 0 {
		return "$"
	}
	b := make([]byte, 0, 16*len(path))
	for i, s := range path {
		switch {
		case s.IsIndex:
			b = appendIndex(b, s.Index)
		case PlainKey(s.Key):
			if i > 0 {
				b = append(b, '.')
			}
			b = append(b, s.Key...)
		default:
			b = appendBracketed(b, s.Key)
		}
	}
	return string(b)
}

// RenderMember returns one member step as Render writes it after another step:
// ".name" when the name is plain, `["a.b"]` when not.
func RenderMember(name string) string {
	if PlainKey(name) {
		return "." + name
	}
	return string(appendBracketed(nil, name))
}

// String writes p in the difference form of Render, with wildcards as
// *, [*] and **.
func (p Pattern) String() string {
	if len(p.Elems) == 0 {
		return "$"
	}
	var b []byte
	for i, e := range p.Elems {
		bare := ""
		switch e.Kind {
		case Element:
			b = appendIndex(b, e.Index)
		case AnyElement:
			b = append(b, "[*]"...)
		case AnyMember:
			bare = "*"
		case AnyDepth:
			bare = "**"
		case Member:
			if !PlainKey(e.Key) {
				b = appendBracketed(b, e.Key)
				continue
			}
			bare = e.Key
		}
		if bare != "" {
			if i > 0 {
				b = append(b, '.')
			}
			b = append(b, bare...)
		}
	}
	return string(b)
}

// Rooted writes path in the edit form: "$" first, then ".name" for each
// name the grammar reads back bare ("$.tools/call"), `["a b"]` for the
// others, [n] for indices: "$.params.items[0]".
func Rooted(path []Seg) string {
	b := make([]byte, 1, 1+16*len(path))
	b[0] = '$'
	for _, s := range path {
		switch {
		case s.IsIndex:
			b = appendIndex(b, s.Index)
		case bareKey(s.Key):
			b = append(b, '.')
			b = append(b, s.Key...)
		default:
			b = appendBracketed(b, s.Key)
		}
	}
	return string(b)
}

// PlainKey reports whether a member name is written bare by Render:
// letters, digits, '_' and '-'.
func PlainKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// bareKey reports whether the grammar reads k back as the same name when
// it is written bare after a dot.
func bareKey(k string) bool {
	if k == "" || !utf8.ValidString(k) {
		return false
	}
	for i := 0; i < len(k); i++ {
		switch c := k[i]; {
		case c <= ' ' || c == 0x7f, c == '.', c == '[', c == ']', c == '"', c == '\'', c == '\\', c == '*':
			return false
		}
	}
	return true
}

func appendIndex(b []byte, i int) []byte {
	b = append(b, '[')
	b = strconv.AppendInt(b, int64(i), 10)
	return append(b, ']')
}

func appendBracketed(b []byte, k string) []byte {
	b = append(b, '[')
	b = jsonscan.AppendString(b, k)
	return append(b, ']')
}
