package mock

import (
	"math/rand/v2"
	"testing"
)

// TestChooseAmongKeysAsChoose: on random sessions (3 methods, 4 params
// hashes, some recorded redacted) with random entries answered, choosing
// among the keys' candidates picks what choosing over every entry picks,
// and a matcher's unasked what a scan of every entry finds.
func TestChooseAmongKeysAsChoose(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 500 {
		n := rng.IntN(40)
		es := make([]entry, n)
		for i := range es {
			es[i] = entry{seq: int64(i), method: uint32(rng.IntN(3)), params: uint64(10 + rng.IntN(4))}
			if rng.IntN(8) == 0 {
				es[i].params = anyParams
			}
		}
		k := newKeys(es)
		c := newCursor(n)
		for range rng.IntN(n + 1) {
			c.use(rng.IntN(n))
		}
		for range 20 {
			method, params := uint32(rng.IntN(4)), uint64(10+rng.IntN(5))
			match := func(i int) bool {
				return es[i].method == method && (es[i].params == params || es[i].params == anyParams)
			}
			a, b := k.matching(es, method, params)
			for _, again := range []bool{false, true} {
				if got, want := c.chooseAmong(a, b, match, again), c.choose(match, again); got != want {
					t.Fatalf("round %d: method %d params %d again %v: chooseAmong %+v, choose %+v", round, method, params, again, got, want)
				}
			}
			anyMethod := func(i int) bool { return es[i].method == method }
			if got, want := c.chooseAmong(k.ofMethod(es, method), nil, anyMethod, false), c.choose(anyMethod, false); got != want {
				t.Fatalf("round %d: method %d: chooseAmong %+v, choose %+v", round, method, got, want)
			}

			idx := &index{sessions: map[string][]entry{"s": es}}
			from := int64(rng.IntN(n + 1))
			m := newMatcher(idx, es, rng.IntN(12), from)
			for range rng.IntN(n + 1) {
				if len(m.entries) > 0 {
					m.use(rng.IntN(len(m.entries)))
				}
			}
			end := min(len(m.entries), m.next+m.lookahead+1)
			want := -1
			for i := m.next; i < end; i++ {
				if _, used := m.used[i]; !used && match(m.base+i) {
					want = i
					break
				}
			}
			if got := m.unasked(method, params); got != want {
				t.Fatalf("round %d: method %d params %d: unasked %d, a scan %d", round, method, params, got, want)
			}
		}
	}
}
