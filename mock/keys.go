package mock

import (
	"cmp"
	"iter"
	"slices"
	"sort"
)

// keys is a recorded session's entries in the orders that finding a
// request's candidates needs: byParams by method, params hash and
// recorded order; byMethod by method and recorded order. The entries
// with a method, or with a method and params hash, are then a run of
// one of them, found by binary search: matching a request, and missing
// one, looks at those entries only, however long the session is. It
// costs 8 bytes an entry, and is built once, on the first request that
// needs it, then only read.
type keys struct {
	byParams []uint32
	byMethod []uint32
}

// newKeys returns the keys of a session's entries es. It sorts the
// keys themselves, each with its entry's index, rather than indexes
// compared through es: a long session's keys are built in a fraction of
// the time.
func newKeys(es []entry) *keys {
	type key struct {
		method uint32
		i      uint32
		params uint64
	}
	ks := make([]key, len(es))
	for i := range es {
		ks[i] = key{es[i].method, uint32(i), es[i].params}
	}
	// Of equal keys, recorded order: the index breaks ties.
	slices.SortFunc(ks, func(a, b key) int { return cmp.Or(cmp.Compare(a.method, b.method), cmp.Compare(a.i, b.i)) })
	k := &keys{byMethod: make([]uint32, len(es)), byParams: make([]uint32, len(es))}
	for j := range ks {
		k.byMethod[j] = ks[j].i
	}
	slices.SortFunc(ks, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.method, b.method), cmp.Compare(a.params, b.params), cmp.Compare(a.i, b.i))
	})
	for j := range ks {
		k.byParams[j] = ks[j].i
	}
	return k
}

// ofMethod returns the indexes of es's entries of method, in recorded
// order. k may be nil (a session with no entries).
func (k *keys) ofMethod(es []entry, method uint32) []uint32 {
	if k == nil {
		return nil
	}
	run := func(m uint32) int {
		return sort.Search(len(k.byMethod), func(j int) bool { return es[k.byMethod[j]].method >= m })
	}
	lo := run(method)
	hi := lo + sort.Search(len(k.byMethod)-lo, func(j int) bool { return es[k.byMethod[lo+j]].method > method })
	return k.byMethod[lo:hi]
}

// ofParams returns the indexes of es's entries of method whose params
// hash is params, in recorded order.
func (k *keys) ofParams(es []entry, method uint32, params uint64) []uint32 {
	if k == nil {
		return nil
	}
	before := func(e *entry) bool { return e.method < method || e.method == method && e.params < params }
	lo := sort.Search(len(k.byParams), func(j int) bool { return !before(&es[k.byParams[j]]) })
	hi := lo
	for hi < len(k.byParams) && hi-lo < 8 { // most runs are short: look before searching
		if e := &es[k.byParams[hi]]; e.method != method || e.params != params {
			return k.byParams[lo:hi]
		}
		hi++
	}
	hi += sort.Search(len(k.byParams)-hi, func(j int) bool {
		e := &es[k.byParams[hi+j]]
		return e.method != method || e.params != params
	})
	return k.byParams[lo:hi]
}

// matching returns the indexes of es's entries that a request of method
// with params hash params can match: those with that hash and those
// recorded redacted (anyParams), each run in recorded order.
func (k *keys) matching(es []entry, method uint32, params uint64) (a, b []uint32) {
	return k.ofParams(es, method, params), k.ofParams(es, method, anyParams)
}

// from returns the part of the run r (indexes in ascending order) at or
// after index i.
func from(r []uint32, i int) []uint32 {
	return r[sort.Search(len(r), func(j int) bool { return int(r[j]) >= i }):]
}

// merged gives the indexes of a and b, each ascending, in ascending
// order.
func merged(a, b []uint32) iter.Seq[int] {
	return func(yield func(int) bool) {
		for len(a) > 0 || len(b) > 0 {
			var i uint32
			if len(b) == 0 || len(a) > 0 && a[0] < b[0] {
				i, a = a[0], a[1:]
			} else {
				i, b = b[0], b[1:]
			}
			if !yield(int(i)) {
				return
			}
		}
	}
}

// keysOf returns the keys of the session whose entries are es (one of
// idx.sessions' values, or the start of one), building every session's
// the first time; nil for a session without entries.
func (idx *index) keysOf(es []entry) *keys {
	if len(es) == 0 {
		return nil
	}
	idx.canonical()
	idx.keysOnce.Do(func() {
		idx.keys = make(map[*entry]*keys, len(idx.sessions))
		for _, s := range idx.sessions {
			if len(s) > 0 {
				idx.keys[&s[0]] = newKeys(s)
			}
		}
	})
	return idx.keys[&es[0]]
}
