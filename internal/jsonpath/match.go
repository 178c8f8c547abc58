package jsonpath

import "cmp"

// Seg is one step of a path to one value: a member name, or an array
// index when IsIndex.
type Seg struct {
	Key     string
	Index   int
	IsIndex bool
}

// Key returns the step to the member named name.
func Key(name string) Seg { return Seg{Key: name} }

// Index returns the step to array element i.
func Index(i int) Seg { return Seg{Index: i, IsIndex: true} }

// matches reports whether e matches the step s (e is not AnyDepth).
func (e *Elem) matches(s Seg) bool {
	switch e.Kind {
	case Member:
		return !s.IsIndex && s.Key == e.Key
	case Element:
		return s.IsIndex && s.Index == e.Index
	case AnyMember:
		return !s.IsIndex
	case AnyElement:
		return s.IsIndex
	}
	return false
}

// IsRoot reports whether p is "$", the whole document.
func (p Pattern) IsRoot() bool { return len(p.Elems) == 0 }

// Match reports whether p matches path exactly. It is the classic
// wildcard match with backtracking to the last "**", linear in practice
// and without allocation.
func (p Pattern) Match(path []Seg) bool {
	el := p.Elems
	pi, si := 0, 0
	star, starSi := -1, 0
	for si < len(path) {
		switch {
		case pi < len(el) && el[pi].Kind == AnyDepth:
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
	for pi < len(el) && el[pi].Kind == AnyDepth {
		pi++
	}
	return pi == len(el)
}

// MayExtend reports whether some longer path starting with path could
// match p.
func (p Pattern) MayExtend(path []Seg) bool {
	for i, s := range path {
		if i >= len(p.Elems) {
			return false
		}
		e := &p.Elems[i]
		if e.Kind == AnyDepth {
			return true
		}
		if !e.matches(s) {
			return false
		}
	}
	return len(path) < len(p.Elems)
}

// HasWildcard reports whether p holds *, [*] or **.
func (p Pattern) HasWildcard() bool {
	for _, e := range p.Elems {
		if e.Kind == AnyMember || e.Kind == AnyElement || e.Kind == AnyDepth {
			return true
		}
	}
	return false
}

// Compare orders paths as differences are listed: step by step, names
// bytewise, indices numerically (names before indices, where a string
// held JSON), a prefix first.
func Compare(x, y []Seg) int {
	for i := range min(len(x), len(y)) {
		a, b := x[i], y[i]
		if a.IsIndex != b.IsIndex {
			if a.IsIndex {
				return 1
			}
			return -1
		}
		if c := cmp.Compare(a.Index, b.Index); a.IsIndex && c != 0 {
			return c
		}
		if c := cmp.Compare(a.Key, b.Key); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(x), len(y))
}
