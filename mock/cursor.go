package mock

// cursor counts how many times each recorded request of one recorded
// session has been answered: a live session's own (session-based
// clients), or one shared by all the stateless traffic bound to that
// recorded session. It costs a few words while requests are answered in
// recorded order: only entries answered ahead of the first unanswered
// one, or more than once, are kept in a map. It is not safe for
// concurrent use; its owner locks it.
type cursor struct {
	n     int            // entries in the recorded session
	next  int            // every entry before next has been answered at least once
	count map[int]uint32 // entries whose count is not (i < next ? 1 : 0)
}

func newCursor(n int) cursor { return cursor{n: n} }

// uses returns how many times entry i has been answered.
func (c *cursor) uses(i int) uint32 {
	if k, ok := c.count[i]; ok {
		return k
	}
	if i < c.next {
		return 1
	}
	return 0
}

// use counts an answer of entry i.
func (c *cursor) use(i int) {
	k := c.uses(i) + 1
	if c.count == nil {
		c.count = map[int]uint32{}
	}
	c.count[i] = k
	if i < c.next && k == 1 {
		delete(c.count, i)
	}
	for c.next < c.n && c.uses(c.next) >= 1 {
		if c.count[c.next] == 1 {
			delete(c.count, c.next)
		}
		c.next++
	}
}

// unuse takes back an answer of entry i that use counted but the client
// never got (serve's chaos dropped it), so that the request sent again is
// answered with it. An entry never answered is left as it is.
func (c *cursor) unuse(i int) {
	k := c.uses(i)
	if k == 0 {
		return
	}
	if i >= c.next || k > 1 {
		if c.count == nil {
			c.count = map[int]uint32{}
		}
		c.count[i] = k - 1
		if k-1 == 0 || i < c.next && k-1 == 1 {
			delete(c.count, i)
		}
		return
	}
	// i < next, answered once: next moves back to i, and the entries
	// between, answered once by default so far, get their count kept.
	if c.count == nil {
		c.count = map[int]uint32{}
	}
	for j := i + 1; j < c.next; j++ {
		if _, ok := c.count[j]; !ok {
			c.count[j] = 1
		}
	}
	delete(c.count, i)
	c.next = i
}

// pick is what chooseAmong found.
type pick struct {
	i     int    // the entry to answer with; -1: none matches
	uses  uint32 // how many times it had been answered before
	fresh bool   // it had never been answered
	// matches is how many entries match, when none is fresh (the miss
	// then says "all N recorded … answered already").
	matches int
}

// chooseAmong picks, among the entries match accepts, the first in
// recorded order never answered; when every matching entry has been
// answered, the first of those answered the fewest times, with fresh
// false: a caller answering again answers with it (so that identical
// repeated calls cycle through their recorded answers in order), one
// that does not names it in the miss. It does not count the answer: the
// caller calls use.
// The entries match can accept are all among the runs a and b (indexes
// in ascending order, see keys): it looks at those only.
func (c *cursor) chooseAmong(a, b []uint32, match func(i int) bool) pick {
	for i := range merged(from(a, c.next), from(b, c.next)) {
		if c.uses(i) == 0 && match(i) {
			return pick{i: i, fresh: true}
		}
	}
	best := pick{i: -1}
	for i := range merged(a, b) {
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

// first returns the first entry never answered (sequential), or with
// again the first of those answered the fewest times; -1 when there is
// none (the recorded session is used up and again is false).
func (c *cursor) first(again bool) pick {
	if c.next < c.n {
		return pick{i: c.next, fresh: true}
	}
	if !again || c.n == 0 {
		return pick{i: -1}
	}
	best := pick{i: 0, uses: c.uses(0)}
	for i := 1; i < c.n; i++ {
		if u := c.uses(i); u < best.uses {
			best.i, best.uses = i, u
		}
	}
	return best
}
