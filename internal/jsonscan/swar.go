package jsonscan

import (
	"encoding/binary"
	"math/bits"
)

// Eight bytes at a time ("SIMD within a register"): a string's bytes are
// loaded as one 64-bit word, and one mask says where the first byte a
// scan must stop at is. A mask's lowest set bit marks a byte that
// matches; bits above it may be false (a borrow carries upwards), so
// only the lowest is used.

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// zeroBytes marks the bytes of v that are zero (its lowest mark is exact).
func zeroBytes(v uint64) uint64 { return (v - ones) & ^v & highs }

// quoteOrBackslash marks the bytes of v that are '"' or '\\'.
func quoteOrBackslash(v uint64) uint64 {
	return zeroBytes(v^('"'*ones)) | zeroBytes(v^('\\'*ones))
}

// specialBytes marks the bytes of v a JSON string may not hold as they
// are: '"', '\\' and the control characters below 0x20.
func specialBytes(v uint64) uint64 {
	return quoteOrBackslash(v) | (v-0x20*ones)&^v&highs
}

// firstSpecial returns the offset of the first byte at or after i that is
// '"', '\\' or a control character, or len(b).
func firstSpecial(b []byte, i int) int {
	for i+8 <= len(b) {
		if m := specialBytes(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for i < len(b) && !plainByte[b[i]] {
		i++
	}
	return i
}

// firstQuoteOrBackslash returns the offset of the first '"' or '\\' in
// b[i:end], or end.
func firstQuoteOrBackslash(b []byte, i, end int) int {
	for i+8 <= end {
		if m := quoteOrBackslash(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for i < end && b[i] != '"' && b[i] != '\\' {
		i++
	}
	return i
}
