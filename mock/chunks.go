package mock

import "bytes"

// chunks collects the bytes the index keeps as the tape is read, in
// blocks that are never copied: not as they grow (a slice appended to
// grows by a quarter at a time past a few hundred KB, allocating about
// five times its final size on the way), nor at the end (the index keeps
// the blocks). An offset (what add returns, what at takes) is a block's
// number and a place in it, number<<blockBits | place, so at finds a
// piece's block at once, without a search; a piece longer than ownOver
// has a block of its own, number k at ownBit | k<<32.
//
// The builder's goroutine adds; once full and own are published (see
// builder.publish) their elements are never written again, and cur is
// only appended to: a copy of c made under a lock reads what was added
// before it while the builder goes on adding.
type chunks struct {
	full [][]byte // the filled blocks, in order
	cur  []byte   // the block being filled: number len(full)
	own  [][]byte // the long pieces' blocks
	next int      // the capacity of the next block
}

const (
	blockBits = 18 // offsets in a block: 256 KiB
	blockSize = 1 << blockBits
	// ownOver bounds the pieces a block shares: a longer one gets a block
	// of its own, of its size, so that a block's unused end is less than
	// this.
	ownOver = 16 << 10
	ownBit  = 1 << 62 // an offset in own (past loc's: see builder.loc)
)

// len returns how many bytes have been added (not an offset).
func (c *chunks) len() int {
	n := len(c.cur)
	for _, f := range c.full {
		n += len(f)
	}
	for _, f := range c.own {
		n += len(f)
	}
	return n
}

// add appends p and returns its offset.
func (c *chunks) add(p []byte) int64 {
	if len(p) > ownOver {
		c.own = append(c.own, bytes.Clone(p))
		return ownBit | int64(len(c.own)-1)<<32
	}
	if len(c.cur)+len(p) > cap(c.cur) {
		if c.cur != nil {
			c.full = append(c.full, c.cur)
		}
		// Each block twice as large as the one before (4 KiB first, at most
		// blockSize): a small tape allocates little, a large one few blocks.
		c.next = min(max(c.next, 4<<10), blockSize)
		c.cur = make([]byte, 0, max(c.next, len(p)))
		c.next *= 2
	}
	at := int64(len(c.full))<<blockBits | int64(len(c.cur))
	c.cur = append(c.cur, p...)
	return at
}

// at returns the n bytes added at off (one add's, or part of one: never
// across two); they are never written again.
func (c *chunks) at(off int64, n int) []byte {
	var b []byte
	var i int
	switch k := int(off >> blockBits); {
	case off&ownBit != 0:
		b, i = c.own[(off&^ownBit)>>32], int(off&(1<<32-1))
	case k < len(c.full):
		b, i = c.full[k], int(off&(blockSize-1))
	default:
		b, i = c.cur, int(off&(blockSize-1))
	}
	return b[i : i+n : i+n]
}
