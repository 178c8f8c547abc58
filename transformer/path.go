package transformer

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrBadPath is wrapped by every error of ParsePath.
var ErrBadPath = errors.New("transformer: bad path")

// ErrPath is wrapped by the errors of SetPath, RemovePath and GetPath
// about what the document holds on the way: a key into something that is
// not an object, an index out of range, a document that is not JSON.
var ErrPath = errors.New("transformer: cannot edit path")

// Path is a parsed JSONPath-style path into a JSON document:
// "$.params.arguments.city", "params.arguments.city", "result.content[0].text",
// `$["odd.key"][2]`. "$" alone is the whole document. A Path is immutable.
type Path struct {
	steps []step
}

// step is one member name, or an array index when index >= 0.
type step struct {
	key   string
	index int
}

// ParsePath reads a path: an optional "$", then members as ".name" (the
// first one may go without its dot) or ["name"] / ['name'], and array
// indexes as [n]. Wildcards are not paths to one value and are refused.
// Errors wrap ErrBadPath and name the column.
func ParsePath(s string) (Path, error) {
	bad := func(col int, format string, a ...any) (Path, error) {
		return Path{}, fmt.Errorf("%w %q: column %d: %s", ErrBadPath, s, col+1, fmt.Sprintf(format, a...))
	}
	if strings.TrimSpace(s) == "" {
		return bad(0, "empty; want one like $.params.arguments.city")
	}
	if !utf8.ValidString(s) {
		return bad(0, "not valid UTF-8")
	}
	var p Path
	i := -1 // a first member without its dot
	switch s[0] {
	case '$':
		i = 1
	case '[':
		i = 0
	}
	for i < len(s) {
		switch {
		case i == -1 || s[i] == '.':
			start := i + 1
			j := start
			for j < len(s) && s[j] != '.' && s[j] != '[' && s[j] != ']' {
				j++
			}
			name := s[start:j]
			switch {
			case name == "":
				return bad(start, "a member name is missing")
			case name == "*" || name == "**":
				return bad(start, "wildcards are not supported here; name one member")
			}
			p.steps = append(p.steps, step{key: name, index: -1})
			i = j
		case s[i] == '[':
			end := strings.IndexByte(s[i:], ']')
			if q := i + 1; q < len(s) && (s[q] == '"' || s[q] == '\'') {
				name, n, err := quotedKey(s[q:])
				if err != nil {
					return bad(q, "%v", err)
				}
				if q+n >= len(s) || s[q+n] != ']' {
					return bad(q+n, "want ] after the quoted name")
				}
				p.steps = append(p.steps, step{key: name, index: -1})
				i = q + n + 1
				continue
			}
			if end < 0 {
				return bad(i, "[ is not closed")
			}
			inner := s[i+1 : i+end]
			if inner == "*" {
				return bad(i+1, "wildcards are not supported here; give an index")
			}
			n, err := strconv.Atoi(inner)
			if err != nil || n < 0 || inner[0] == '+' || inner[0] == '-' {
				return bad(i+1, "%q is not an array index (0, 1, 2…)", inner)
			}
			p.steps = append(p.steps, step{index: n})
			i += end + 1
		default:
			return bad(i, "unexpected %q; want . or [", s[i])
		}
	}
	return p, nil
}

// quotedKey reads a name quoted with " (JSON escapes) or ' (no escapes)
// at the start of s and returns it and the bytes it took.
func quotedKey(s string) (string, int, error) {
	if s[0] == '\'' {
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
			return "", 0, errors.New("quoted name not closed")
		}
		return s[1 : 1+end], end + 2, nil
	}
	for j := 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			var name string
			if err := json.Unmarshal([]byte(s[:j+1]), &name); err != nil {
				return "", 0, fmt.Errorf("bad quoted name: %v", err)
			}
			return name, j + 1, nil
		}
	}
	return "", 0, errors.New("quoted name not closed")
}

// MustParsePath is ParsePath for paths written in code; it panics on a
// bad one.
func MustParsePath(s string) Path {
	p, err := ParsePath(s)
	if err != nil {
		panic(err)
	}
	return p
}

// IsRoot reports whether p is "$", the whole document.
func (p Path) IsRoot() bool { return len(p.steps) == 0 }

// first returns the first member name of p, or "".
func (p Path) first() string {
	if len(p.steps) == 0 || p.steps[0].index >= 0 {
		return ""
	}
	return p.steps[0].key
}

// under returns p below the member name: "arguments.city" under "params"
// is "params.arguments.city".
func (p Path) under(name string) Path {
	steps := make([]step, 0, len(p.steps)+1)
	steps = append(steps, step{key: name, index: -1})
	return Path{steps: append(steps, p.steps...)}
}

// String returns p in canonical form: "$.params.items[0]", with
// ["…"] for names that need quoting.
func (p Path) String() string {
	var b strings.Builder
	b.WriteByte('$')
	for _, s := range p.steps {
		switch {
		case s.index >= 0:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.index))
			b.WriteByte(']')
		case s.key == "" || strings.ContainsAny(s.key, ".[]'\"\\"):
			q, _ := json.Marshal(s.key)
			b.WriteByte('[')
			b.Write(q)
			b.WriteByte(']')
		default:
			b.WriteByte('.')
			b.WriteString(s.key)
		}
	}
	return b.String()
}

// prefix returns p's first n steps as a string, for errors.
func (p Path) prefix(n int) string { return Path{steps: p.steps[:n]}.String() }
