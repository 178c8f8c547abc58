package jsonpath

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// SyntaxError is the error of Parse and ParsePath: where in Src (Col,
// 1-based) and what (Why) is wrong, and what to write instead (Fix; Hint
// when nothing more precise can be said).
type SyntaxError struct {
	Src string
	Col int
	Why string // what is wrong
	Fix string // what to write instead
}

// Hint and PathHint are what a SyntaxError of Parse and of ParsePath
// says to write when nothing more precise can be said.
const (
	Hint     = `write names as a.b, indices as [0], odd names as ["a.b"], wildcards as *, [*], **`
	PathHint = `write names as a.b, indices as [0], odd names as ["a.b"]`
)

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%q: column %d: %s; %s", e.Src, e.Col, e.Why, e.Fix)
}

// Kind is what one element of a pattern matches.
type Kind uint8

// The kinds of elements.
const (
	Member     Kind = iota // one member name: Elem.Key
	Element                // one array index: Elem.Index
	AnyMember              // *
	AnyElement             // [*]
	AnyDepth               // **: zero or more steps
)

// Elem is one element of a Pattern.
type Elem struct {
	Kind  Kind
	Key   string
	Index int
}

// Pattern is a parsed path or pattern. Src is the text it was read from.
type Pattern struct {
	Src   string
	Elems []Elem
}

// Parse reads a pattern (see the package documentation for the syntax).
// A path without wildcards is a pattern too. Errors are *SyntaxError.
func Parse(src string) (Pattern, error) {
	return parse(src, true)
}

// ParsePath reads a path to one value: the syntax of Parse without
// wildcards. Errors are *SyntaxError; a wildcard is one, at its column.
func ParsePath(src string) ([]Seg, error) {
	p, err := parse(src, false)
	if err != nil {
		return nil, err
	}
	path := make([]Seg, len(p.Elems))
	for i, e := range p.Elems {
		path[i] = Seg{Key: e.Key, Index: e.Index, IsIndex: e.Kind == Element}
	}
	return path, nil
}

func parse(src string, wild bool) (Pattern, error) {
	p := Pattern{Src: src}
	fail := func(i int, fix, why string) (Pattern, error) {
		switch {
		case fix != "":
		case wild:
			fix = Hint
		default:
			fix = PathHint
		}
		return Pattern{}, &SyntaxError{Src: src, Col: i + 1, Why: why, Fix: fix}
	}
	if strings.TrimSpace(src) == "" {
		return fail(0, "want a path such as $.params.arguments.city", "empty pattern")
	}
	if !utf8.ValidString(src) {
		return fail(0, "", "not valid UTF-8")
	}
	s, i := src, 0
	if s[0] == '$' {
		switch {
		case len(s) == 1:
			return p, nil
		case s == "$.":
			return fail(2, "write $ for the whole document or $.name for a member", "a member name is missing after $. (empty pattern)")
		case s[1] != '.' && s[1] != '[':
			end := nameEnd(s, 1)
			return fail(1, fmt.Sprintf("write $.%s, or [%s]%s for a member whose name starts with $", s[1:], quote(s[:end]), s[end:]), fmt.Sprintf("unexpected %q after $", firstRune(s[1:])))
		case s[1] == '.':
			i = 2
		default:
			i = 1
		}
	}
	first := true // no step read yet: a name may go without its dot
	for i < len(s) {
		if s[i] == '[' {
			n, e, why, fix := bracket(s[i:])
			if why != "" {
				return fail(i, fix, why)
			}
			if e.Kind == AnyElement && !wild {
				return fail(i+1, "give an index: [0]", "wildcards are not supported here")
			}
			p.Elems = append(p.Elems, e)
			i += n
			first = false
			continue
		}
		if !first {
			if s[i] != '.' {
				return fail(i, "", fmt.Sprintf("expected '.' or '[' before %q", firstRune(s[i:])))
			}
			i++
		}
		first = false
		j := i
		for j < len(s) && s[j] != '.' && s[j] != '[' {
			if c := s[j]; c == ']' || c == '"' || c <= ' ' || c == 0x7f {
				return fail(j, "quote the name: ["+quote(s[i:nameEnd(s, j)])+"]", fmt.Sprintf("unexpected %q in a bare name", c))
			}
			j++
		}
		var e Elem
		switch tok := s[i:j]; {
		case tok == "":
			return fail(i, `write a.b, or [""] for the empty name`, "a member name is missing (empty name)")
		case tok == "*" || tok == "**":
			if !wild {
				return fail(i, "name one member", "wildcards are not supported here")
			}
			e.Kind = AnyMember
			if tok == "**" {
				e.Kind = AnyDepth
			}
		case strings.Contains(tok, "*"):
			return fail(i, "use * for any name, or ["+quote(tok)+"] for this name", fmt.Sprintf("wildcard inside the name %q", tok))
		default:
			e.Key = tok
		}
		i = j
		if e.Kind == AnyDepth && len(p.Elems) > 0 && p.Elems[len(p.Elems)-1].Kind == AnyDepth {
			continue // "**.**" is "**"
		}
		p.Elems = append(p.Elems, e)
	}
	return p, nil
}

// nameEnd returns where the bare name holding s[j] ends.
func nameEnd(s string, j int) int {
	for j < len(s) && s[j] != '.' && s[j] != '[' {
		j++
	}
	return j
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

func quote(s string) string { return string(jsonscan.AppendString(nil, s)) }

// bracket reads "[*]", "[n]", `["name"]` or "['name']" at the start of s
// and returns how many bytes it took, or why it is malformed and what to
// write instead ("": Hint).
func bracket(s string) (int, Elem, string, string) {
	switch {
	case strings.HasPrefix(s, "[*]"):
		return 3, Elem{Kind: AnyElement}, "", ""
	case strings.HasPrefix(s, `["`):
		end := 2
		for ; end < len(s) && s[end] != '"'; end++ {
			if s[end] == '\\' {
				end++
			}
		}
		if end >= len(s) {
			return 0, Elem{}, "unclosed quoted name (the quote is not closed)", `close it: ["name"]`
		}
		var key string
		if err := json.Unmarshal([]byte(s[1:end+1]), &key); err != nil {
			return 0, Elem{}, "bad quoted name " + s[1:end+1], "write the name as a JSON string"
		}
		if end+1 >= len(s) || s[end+1] != ']' {
			return 0, Elem{}, "expected ']' after the quoted name", "want ] right after the closing quote"
		}
		return end + 2, Elem{Key: key}, "", ""
	case strings.HasPrefix(s, `['`):
		end := strings.IndexByte(s[2:], '\'')
		if end < 0 {
			return 0, Elem{}, "unclosed quoted name (the quote is not closed)", `close it: ["name"]`
		}
		end += 2
		if end+1 >= len(s) || s[end+1] != ']' {
			return 0, Elem{}, "expected ']' after the quoted name", "want ] right after the closing quote"
		}
		return end + 2, Elem{Key: s[2:end]}, "", ""
	}
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return 0, Elem{}, "unclosed '[' (the [ is not closed)", `write [0], [*] or ["name"]`
	}
	digits := s[1:end]
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return 0, Elem{}, fmt.Sprintf("bad index %q: not an array index (0, 1, 2…)", digits), `write [0], [*] or ["name"]`
	}
	n, err := strconv.Atoi(digits)
	if err != nil {
		return 0, Elem{}, fmt.Sprintf("index %s out of range", digits), ""
	}
	return end + 1, Elem{Kind: Element, Index: n}, "", ""
}
