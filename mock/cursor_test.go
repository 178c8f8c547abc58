package mock

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
