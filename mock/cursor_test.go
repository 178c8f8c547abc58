package mock

import (
	"math/rand/v2"
	"testing"
)

// choose is chooseAmong over every entry of the session, in recorded
// order: the model the tests check chooseAmong against (keys_test), and
// the cursor's rules stated plainly (strategy_test).
func (c *cursor) choose(match func(i int) bool) pick {
	for i := c.next; i < c.n; i++ {
		if c.uses(i) == 0 && match(i) {
			return pick{i: i, fresh: true}
		}
	}
	best := pick{i: -1}
	for i := 0; i < c.n; i++ {
		if !match(i) {
			continue
		}
		best.matches++
		if u := c.uses(i); best.i < 0 || u < best.uses {
			best.i, best.uses = i, u
		}
	}
	return best
}

// TestCursorUnuse: use and unuse in any order keep the cursor's counts
// those of a plain slice of counts, next the first entry never answered.
func TestCursorUnuse(t *testing.T) {
	const n = 6
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		c := newCursor(n)
		var model [n]uint32
		for step := range 40 {
			i := r.IntN(n)
			if r.IntN(3) == 0 {
				c.unuse(i)
				if model[i] > 0 {
					model[i]--
				}
			} else {
				c.use(i)
				model[i]++
			}
			next := 0
			for next < n && model[next] > 0 {
				next++
			}
			for j := range n {
				if got := c.uses(j); got != model[j] {
					t.Fatalf("round %d step %d: uses(%d) = %d, want %d", round, step, j, got, model[j])
				}
			}
			if c.next != next {
				t.Fatalf("round %d step %d: next = %d, want %d", round, step, c.next, next)
			}
		}
	}
}
