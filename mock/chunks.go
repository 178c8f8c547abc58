package mock

import "sort"

// chunks collects the bytes the index keeps as the tape is read: in
// chunks that are never copied as they grow (a slice appended to grows
// by a quarter at a time past a few hundred KB, allocating about five
// times its final size on the way), then into one slice of the exact
// size (bytes). Offsets (len) are those of that slice.
type chunks struct {
	full   [][]byte // filled, in order
	starts []int    // where each of full starts
	cur    []byte   // being filled
	n      int      // bytes in full
}

// maxChunk bounds a chunk, but for a message longer than it.
const maxChunk = 8 << 20

// len returns how many bytes have been added.
func (c *chunks) len() int { return c.n + len(c.cur) }

// add appends p.
func (c *chunks) add(p []byte) {
	if len(c.cur)+len(p) > cap(c.cur) {
		if len(c.cur) > 0 {
			c.full = append(c.full, c.cur)
			c.starts = append(c.starts, c.n)
			c.n += len(c.cur)
			c.cur = nil
		}
		// Each chunk about as large as all before it (at least 4 KB): the
		// chunks add up to about the final size, and a small tape
		// allocates little.
		c.cur = make([]byte, 0, max(len(p), min(max(c.len(), 4<<10), maxChunk)))
	}
	c.cur = append(c.cur, p...)
}

// bytes returns everything added, in one slice of the exact size, and
// lets go of the chunks.
func (c *chunks) bytes() []byte {
	if len(c.full) == 0 { // one chunk: its bytes, clipped
		b := c.cur[:len(c.cur):len(c.cur)]
		*c = chunks{}
		return b
	}
	b := make([]byte, 0, c.len())
	for _, f := range c.full {
		b = append(b, f...)
	}
	b = append(b, c.cur...)
	*c = chunks{}
	return b
}

// at returns the n bytes added at off (one add's, or part of one: never
// across two), before bytes is called; they are never written again.
func (c *chunks) at(off int64, n int) []byte {
	if off >= int64(c.n) {
		i := int(off) - c.n
		return c.cur[i : i+n : i+n]
	}
	k := sort.SearchInts(c.starts, int(off)+1) - 1
	i := int(off) - c.starts[k]
	return c.full[k][i : i+n : i+n]
}
