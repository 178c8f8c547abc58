package mock

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestChunksGiveWhatWasAdded: pieces of random sizes (some past a
// chunk) come back as one slice, in order, each at the offset len gave
// before it was added, and the chunks allocated add up to less than
// twice the bytes (a growing slice's appends allocate about five times).
func TestChunksGiveWhatWasAdded(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, total := range []int{0, 10, 5000, 3 << 20, 40 << 20} {
		var c chunks
		var want []byte
		for len(want) < total {
			n := rng.IntN(300)
			if rng.IntN(1000) == 0 {
				n = maxChunk + 1
			}
			p := make([]byte, n)
			for i := range p {
				p[i] = byte(rng.IntN(256))
			}
			if got := c.len(); got != len(want) {
				t.Fatalf("total %d: len %d before adding, want %d", total, got, len(want))
			}
			c.add(p)
			want = append(want, p...)
		}
		allocated := cap(c.cur)
		for _, f := range c.full {
			allocated += cap(f)
		}
		if got := c.bytes(); !bytes.Equal(got, want) || cap(got) != len(want) {
			t.Fatalf("total %d: bytes gave %d bytes (cap %d), want the %d added", total, len(got), cap(got), len(want))
		}
		if total > 0 && allocated > 2*len(want)+4<<10 {
			t.Errorf("total %d: the chunks allocated %d bytes for %d", total, allocated, len(want))
		}
	}
}
