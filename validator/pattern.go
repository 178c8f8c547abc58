package validator

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrPattern is wrapped by the error New returns for a malformed ignore
// pattern.
var ErrPattern = errors.New("validator: malformed ignore pattern")

type elemKind uint8

const (
	elemKey      elemKind = iota // a member name
	elemIndex                    // [N]
	elemAnyKey                   // *
	elemAnyIndex                 // [*]
	elemAnyDepth                 // **
)

type elem struct {
	kind  elemKind
	key   string
	index int
}

func (e elem) matches(s seg) bool {
	switch e.kind {
	case elemKey:
		return !s.isIndex && s.key == e.key
	case elemIndex:
		return s.isIndex && s.index == e.index
	case elemAnyKey:
		return !s.isIndex
	case elemAnyIndex:
		return s.isIndex
	}
	return false
}

// pattern is a parsed ignore path.
type pattern struct {
	src   string
	elems []elem
}

// match reports whether the pattern matches path exactly. It is the
// classic wildcard match with backtracking to the last '**', linear in
// practice and without allocation.
func (p pattern) match(path []seg) bool {
	el := p.elems
	pi, si := 0, 0
	star, starSi := -1, 0
	for si < len(path) {
		switch {
		case pi < len(el) && el[pi].kind == elemAnyDepth:
			star, starSi = pi, si
			pi++
		case pi < len(el) && el[pi].matches(path[si]):
			pi++
			si++
		case star >= 0:
			starSi++
			si = starSi
			pi = star + 1
		default:
			return false
		}
	}
	for pi < len(el) && el[pi].kind == elemAnyDepth {
		pi++
	}
	return pi == len(el)
}

// String returns the pattern in canonical form: no "$." prefix, quoted
// names only where needed, and "$" for the root.
func (p pattern) String() string {
	if len(p.elems) == 0 {
		return "$"
	}
	var b []byte
	for i, e := range p.elems {
		bare := ""
		switch e.kind {
		case elemIndex:
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(e.index), 10)
			b = append(b, ']')
		case elemAnyIndex:
			b = append(b, "[*]"...)
		case elemAnyKey:
			bare = "*"
		case elemAnyDepth:
			bare = "**"
		case elemKey:
			if !isPlainKey(e.key) {
				b = append(b, '[')
				b = appendQuoted(b, e.key)
				b = append(b, ']')
				continue
			}
			bare = e.key
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

// parsePattern parses an ignore pattern; see the package documentation.
func parsePattern(src string) (pattern, error) {
	p := pattern{src: src}
	s, off := src, 0
	switch {
	case s == "$":
		return p, nil
	case strings.HasPrefix(s, "$."):
		s, off = s[2:], 2
	case strings.HasPrefix(s, "$["):
		s, off = s[1:], 1
	}
	fail := func(i int, why string) (pattern, error) {
		return pattern{}, fmt.Errorf("%w %q: %s at offset %d; write names as a.b, indices as [0], odd names as [\"a.b\"], wildcards as *, [*], **", ErrPattern, src, why, off+i)
	}
	if s == "" {
		return fail(0, "empty pattern")
	}
	i := 0
	for i < len(s) {
		var e elem
		if s[i] == '[' {
			n, el, why := parseBracket(s[i:])
			if why != "" {
				return fail(i, why)
			}
			e, i = el, i+n
		} else {
			if i > 0 {
				if s[i] != '.' {
					return fail(i, fmt.Sprintf("expected '.' or '[' before %q", s[i]))
				}
				i++
			}
			j := i
			for j < len(s) && s[j] != '.' && s[j] != '[' {
				if c := s[j]; c == ']' || c == '"' || c <= ' ' || c == 0x7f {
					return fail(j, fmt.Sprintf("%q in a bare name", c))
				}
				j++
			}
			switch tok := s[i:j]; {
			case tok == "":
				return fail(i, "empty name")
			case tok == "*":
				e.kind = elemAnyKey
			case tok == "**":
				e.kind = elemAnyDepth
			case strings.Contains(tok, "*"):
				return fail(i, fmt.Sprintf("wildcard inside the name %q", tok))
			default:
				e.key = tok
			}
			i = j
		}
		if e.kind == elemAnyDepth && len(p.elems) > 0 && p.elems[len(p.elems)-1].kind == elemAnyDepth {
			continue // "**.**" is "**"
		}
		p.elems = append(p.elems, e)
	}
	return p, nil
}

// parseBracket parses "[*]", "[N]" or "[\"name\"]" at the start of s and
// returns how many bytes it took, or why it is malformed.
func parseBracket(s string) (int, elem, string) {
	switch {
	case strings.HasPrefix(s, "[*]"):
		return 3, elem{kind: elemAnyIndex}, ""
	case strings.HasPrefix(s, `["`):
		end := 2
		for ; end < len(s) && s[end] != '"'; end++ {
			if s[end] == '\\' {
				end++
			}
		}
		if end >= len(s) {
			return 0, elem{}, "unclosed quoted name"
		}
		var key string
		if err := json.Unmarshal([]byte(s[1:end+1]), &key); err != nil {
			return 0, elem{}, "bad quoted name " + s[1:end+1]
		}
		if end+1 >= len(s) || s[end+1] != ']' {
			return 0, elem{}, "expected ']' after the quoted name"
		}
		return end + 2, elem{key: key}, ""
	}
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return 0, elem{}, "unclosed '['"
	}
	digits := s[1:end]
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return 0, elem{}, fmt.Sprintf("bad index %q (want a number, * or a quoted name)", digits)
	}
	n, err := strconv.Atoi(digits)
	if err != nil {
		return 0, elem{}, fmt.Sprintf("index %s out of range", digits)
	}
	return end + 1, elem{kind: elemIndex, index: n}, ""
}
