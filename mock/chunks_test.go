package mock

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestChunksGiveWhatWasAdded: pieces of random sizes (some longer than a
// shared block's share, some longer than a block) come back at the
// offset add gave them, right after they were added and after every
// other add, and the blocks allocated add up to less than the bytes
// plus one block's unused end each and the largest block (a growing
// slice's appends allocate about five times).
func TestChunksGiveWhatWasAdded(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, total := range []int{0, 10, 5000, 3 << 20, 40 << 20} {
		var c chunks
		var want []byte
		type piece struct {
			off      int64
			from, to int
		}
		var pieces []piece
		for len(want) < total {
			n := 1 + rng.IntN(300)
			switch rng.IntN(1000) {
			case 0:
				n = ownOver + 1 + rng.IntN(3*blockSize)
			case 1:
				n = ownOver - rng.IntN(10)
			}
			p := make([]byte, n)
			for i := range p {
				p[i] = byte(rng.IntN(256))
			}
			if got := c.len(); got != len(want) {
				t.Fatalf("total %d: len %d before adding, want %d", total, got, len(want))
			}
			off := c.add(p)
			if got := c.at(off, n); !bytes.Equal(got, p) || cap(got) != n {
				t.Fatalf("total %d: the piece of %d bytes added at %d reads back as %d bytes (cap %d), not as added", total, n, off, len(got), cap(got))
			}
			pieces = append(pieces, piece{off, len(want), len(want) + n})
			want = append(want, p...)
		}
		for _, p := range pieces {
			if got := c.at(p.off, p.to-p.from); !bytes.Equal(got, want[p.from:p.to]) {
				t.Fatalf("total %d: the piece at %d (bytes %d to %d) changed after later adds", total, p.off, p.from, p.to)
			}
		}
		allocated := cap(c.cur)
		for _, f := range c.full {
			allocated += cap(f)
		}
		if bound := len(want) + (len(c.full)+1)*ownOver + blockSize; total > 0 && allocated > bound {
			t.Errorf("total %d: the blocks allocated %d bytes for %d (bound %d)", total, allocated, len(want), bound)
		}
	}
}
