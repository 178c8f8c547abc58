package validator

import (
	"slices"

	"github.com/replayctl/replayctl/internal/jsonpath"
)

// found is a value whose path a required-field pattern matches.
type found struct {
	path []seg
	val  []byte
}

// collect returns the values in a whole message (its envelope left out)
// whose paths p matches, in path order. A match is not searched further
// inside; strings holding a JSON object or array are searched as JSON,
// as the walker compares them.
func collect(doc []byte, p pattern) []found {
	var out []found
	var path []seg
	var walk func(v []byte, root bool)
	walk = func(v []byte, root bool) {
		if !root && p.Match(path) {
			out = append(out, found{slices.Clone(path), v})
			return
		}
		if !p.MayExtend(path) {
			return
		}
		switch jsonType(v) {
		case '{':
			for _, m := range members(v, root) {
				path = append(path, seg{Key: m.key})
				walk(m.val, false)
				path = path[:len(path)-1]
			}
		case '[':
			for k, e := range elements(v) {
				path = append(path, seg{Index: k, IsIndex: true})
				walk(e, false)
				path = path[:len(path)-1]
			}
		case '"':
			if j, ok := embeddedJSON(v); ok {
				walk(j, false)
			}
		}
	}
	walk(doc, true)
	return out
}

// required compares the values the patterns match: those on both sides
// must be equal (in exact mode), the others are removed or added. A
// pattern without wildcards that matches on neither side is missing; a
// wildcard pattern that matches nothing on either side passes (an empty
// list equals an empty list).
func (w *walker) required(ps []pattern, e, a []byte) {
	for _, p := range ps {
		ef, af := collect(e, p), collect(a, p)
		if len(ef) == 0 && len(af) == 0 {
			if !p.HasWildcard() {
				w.addAt(p.String(), DiffMissing, []byte(`"required"`), nil)
			}
			continue
		}
		i, j := 0, 0
		for i < len(ef) || j < len(af) {
			var c int
			switch {
			case i == len(ef):
				c = 1
			case j == len(af):
				c = -1
			default:
				c = jsonpath.Compare(ef[i].path, af[j].path)
			}
			switch {
			case c == 0:
				w.path = ef[i].path
				w.value(ef[i].val, af[j].val)
				i, j = i+1, j+1
			case c < 0:
				w.path = ef[i].path
				if !w.ignored() {
					w.add(DiffRemoved, ef[i].val, nil)
				}
				i++
			default:
				w.path = af[j].path
				if !w.ignored() {
					w.add(DiffAdded, nil, af[j].val)
				}
				j++
			}
		}
		w.path = nil
	}
}
