package tape

import "bytes"

// slab hands out copies of small messages from shared blocks, so that
// reading a tape makes one allocation per block instead of one per message
// (the garbage collector's work per message drops with it). Each copy is
// capped at its length: appending to one never writes into another. A block
// lives as long as any message carved from it.
type slab struct {
	block []byte
	// borrow makes clone return its argument: Seek reads past messages
	// it drops, and copies only the one it stops at.
	borrow bool
}

const (
	slabBlock = 32 << 10 // bytes per block
	slabMax   = 2 << 10  // larger messages get their own allocation
)

// clone returns a copy of b; a nil slab allocates each copy on its own.
func (s *slab) clone(b []byte) []byte {
	if s != nil && s.borrow {
		return b
	}
	if s == nil || len(b) > slabMax {
		return bytes.Clone(b)
	}
	if len(s.block) < len(b) {
		s.block = make([]byte, slabBlock)
	}
	c := s.block[:len(b):len(b)]
	copy(c, b)
	s.block = s.block[len(b):]
	return c
}
