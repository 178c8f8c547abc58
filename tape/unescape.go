package tape

import (
	"html"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// maxDepth is how many layers of escaping the Redactor undoes.
const maxDepth = 3

// family is one kind of escaping an output can put on a value: its
// escapes start with one of the bytes of triggers, and unescape reads one
// at text[i], appending what it stands for to dst and returning its
// length, or n == 0 when none starts there.
type family struct {
	triggers string
	unescape func(text []byte, i int, dst []byte) (out []byte, n int)
}

// The escapings undone, each on its own at each layer.
var (
	backslashEscapes = family{`\`, unescapeBackslash} // JSON, JavaScript, Go
	entityEscapes    = family{"&", unescapeEntity}    // HTML, XML
	percentEscapes   = family{"%", unescapePercent}   // URL, a path
	// queryEscapes is percentEscapes with '+' for a space, as a URL's
	// query writes it: only for secrets that have a space (else the two
	// are the same).
	queryEscapes = family{"%+", unescapeQuery}
)

// view is a text decoded from its parent by one family, with where each
// decoded escape came from; the root view is the output itself.
type view struct {
	text   []byte
	parent *view
	esc    []escape // sorted by at
}

// escape says that text[at:at+n] was decoded from parent.text[from:to].
type escape struct{ at, n, from, to int }

// decode undoes f's escapes in v's text; ok is false when it has none.
func decode(f *family, v *view) (child *view, ok bool) {
	text := v.text
	out := make([]byte, 0, len(text))
	var escs []escape
	for i := 0; i < len(text); {
		if strings.IndexByte(f.triggers, text[i]) >= 0 {
			at := len(out)
			var n int
			if out, n = f.unescape(text, i, out); n > 0 {
				escs = append(escs, escape{at: at, n: len(out) - at, from: i, to: i + n})
				i += n
				continue
			}
		}
		out = append(out, text[i])
		i++
	}
	if len(escs) == 0 {
		return nil, false
	}
	return &view{text: out, parent: v, esc: escs}, true
}

// toRoot maps text[from:to] (to > from) to the offsets of the output.
func (v *view) toRoot(from, to int) (int, int) {
	for ; v.parent != nil; v = v.parent {
		from, to = v.start(from), v.end(to-1)
	}
	return from, to
}

// start is the parent offset where the bytes of text[i] begin.
func (v *view) start(i int) int {
	k := sort.Search(len(v.esc), func(k int) bool { return v.esc[k].at > i }) - 1
	if k < 0 {
		return i
	}
	e := v.esc[k]
	if i < e.at+e.n {
		return e.from
	}
	return e.to + i - (e.at + e.n)
}

// end is the parent offset just past the bytes of text[i].
func (v *view) end(i int) int {
	k := sort.Search(len(v.esc), func(k int) bool { return v.esc[k].at > i }) - 1
	if k < 0 {
		return i + 1
	}
	e := v.esc[k]
	if i < e.at+e.n {
		return e.to
	}
	return e.to + i - (e.at + e.n) + 1
}

// unescapeBackslash reads a JSON, JavaScript or Go string escape: \" \\
// \/ \' \b \f \n \r \t \a \v, \uXXXX (a surrogate pair as one
// character), \UXXXXXXXX and \xHH (a byte).
func unescapeBackslash(text []byte, i int, dst []byte) ([]byte, int) {
	if i+1 >= len(text) {
		return dst, 0
	}
	switch c := text[i+1]; c {
	case '"', '\\', '/', '\'':
		return append(dst, c), 2
	case 'b':
		return append(dst, '\b'), 2
	case 'f':
		return append(dst, '\f'), 2
	case 'n':
		return append(dst, '\n'), 2
	case 'r':
		return append(dst, '\r'), 2
	case 't':
		return append(dst, '\t'), 2
	case 'a':
		return append(dst, '\a'), 2
	case 'v':
		return append(dst, '\v'), 2
	case 'x':
		if v, ok := hexValue(text, i+2, 2); ok {
			return append(dst, byte(v)), 4
		}
	case 'U':
		if v, ok := hexValue(text, i+2, 8); ok {
			return utf8.AppendRune(dst, rune(v)), 10 // AppendRune writes U+FFFD for a bad one
		}
	case 'u':
		v, ok := hexValue(text, i+2, 4)
		if !ok {
			break
		}
		r := rune(v)
		if r >= 0xD800 && r < 0xDC00 && i+11 < len(text) && text[i+6] == '\\' && text[i+7] == 'u' {
			if lo, ok := hexValue(text, i+8, 4); ok && lo >= 0xDC00 && lo < 0xE000 {
				return utf8.AppendRune(dst, 0x10000+(r-0xD800)<<10+rune(lo-0xDC00)), 12
			}
		}
		return utf8.AppendRune(dst, r), 6
	}
	return dst, 0
}

// unescapeEntity reads an HTML or XML character reference: &#43;, &#x2B;
// or a named one (&amp;), with its semicolon.
func unescapeEntity(text []byte, i int, dst []byte) ([]byte, int) {
	const longest = 33 // the longest HTML entity name is 31 bytes
	j := i + 1
	for j < len(text) && j-i < longest && text[j] != ';' && text[j] != '&' {
		j++
	}
	if j >= len(text) || text[j] != ';' || j == i+1 {
		return dst, 0
	}
	n := j + 1 - i
	if text[i+1] == '#' {
		var v uint64
		var ok bool
		if j > i+2 && (text[i+2] == 'x' || text[i+2] == 'X') {
			v, ok = hexValue(text, i+3, j-i-3)
		} else {
			v, ok = decValue(text[i+2 : j])
		}
		if !ok {
			return dst, 0
		}
		r := rune(v)
		if v > utf8.MaxRune || r == 0 {
			r = utf8.RuneError
		}
		return utf8.AppendRune(dst, r), n
	}
	ref := string(text[i : j+1])
	if s := html.UnescapeString(ref); s != ref {
		return append(dst, s...), n
	}
	return dst, 0
}

// unescapePercent reads a URL escape: %2B.
func unescapePercent(text []byte, i int, dst []byte) ([]byte, int) {
	if v, ok := hexValue(text, i+1, 2); ok {
		return append(dst, byte(v)), 3
	}
	return dst, 0
}

// unescapeQuery reads a URL query escape: %2B, or + for a space.
func unescapeQuery(text []byte, i int, dst []byte) ([]byte, int) {
	if text[i] == '+' {
		return append(dst, ' '), 1
	}
	return unescapePercent(text, i, dst)
}

// hexValue reads n hex digits (1 to 8) at text[i:].
func hexValue(text []byte, i, n int) (uint64, bool) {
	if n < 1 || i+n > len(text) {
		return 0, false
	}
	return jsonscan.Hex(text[i : i+n])
}

// decValue reads decimal digits (1 to 8).
func decValue(digits []byte) (uint64, bool) {
	if len(digits) < 1 || len(digits) > 8 {
		return 0, false
	}
	var v uint64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}
