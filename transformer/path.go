package transformer

import (
	"errors"
	"fmt"

	"github.com/replayctl/replayctl/internal/jsonpath"
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

// step is one member name, or an array index.
type step = jsonpath.Seg

// ParsePath reads a path in the one path language of replayctl
// (internal/jsonpath; README "Paths"): an optional "$", then members as
// ".name" (the first one may go without its dot) or ["name"] / ['name'],
// and array indexes as [n]. Wildcards are not paths to one value and are
// refused. Errors wrap ErrBadPath and name the column and what to write.
func ParsePath(s string) (Path, error) {
	steps, err := jsonpath.ParsePath(s)
	if err != nil {
		return Path{}, fmt.Errorf("%w %w", ErrBadPath, err)
	}
	return Path{steps: steps}, nil
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
	if len(p.steps) == 0 || p.steps[0].IsIndex {
		return ""
	}
	return p.steps[0].Key
}

// under returns p below the member name: "arguments.city" under "params"
// is "params.arguments.city".
func (p Path) under(name string) Path {
	steps := make([]step, 0, len(p.steps)+1)
	steps = append(steps, jsonpath.Key(name))
	return Path{steps: append(steps, p.steps...)}
}

// String returns p in canonical form: "$.params.items[0]", with
// ["…"] for names the path language does not read back bare.
func (p Path) String() string { return jsonpath.Rooted(p.steps) }

// prefix returns p's first n steps as a string, for errors.
func (p Path) prefix(n int) string { return Path{steps: p.steps[:n]}.String() }
