package chaos

// The per-message randomness. It is a keyed hash, written out here on
// purpose: hash/maphash is seeded per process and would give other faults
// on every run. The mixing is SplitMix64's finaliser (Steele, Lea and
// Flood, "Fast splittable pseudorandom number generators", 2014) applied
// over the seed, the session's bytes, its length and the seq.
//
// These functions are part of the replay contract: changing any constant
// here changes which faults a given seed produces. TestHashGolden pins them.

const (
	golden   = 0x9e3779b97f4a7c15 // 2^64 / φ, SplitMix64's increment
	keyParam = 0xd1b54a32d192ed03 // separates Param from the fault roll
)

// mix is SplitMix64's finaliser: a bijection on uint64 with full avalanche.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// messageHash is the root of all randomness for message (session, seq)
// under seed.
func messageHash(seed int64, session string, seq int64) uint64 {
	h := mix(uint64(seed) + golden)
	i := 0
	for ; i+8 <= len(session); i += 8 {
		w := uint64(session[i]) | uint64(session[i+1])<<8 | uint64(session[i+2])<<16 |
			uint64(session[i+3])<<24 | uint64(session[i+4])<<32 | uint64(session[i+5])<<40 |
			uint64(session[i+6])<<48 | uint64(session[i+7])<<56
		h = mix((h ^ w) + golden)
	}
	if i < len(session) {
		var w uint64
		for j := 0; i+j < len(session); j++ {
			w |= uint64(session[i+j]) << (8 * j)
		}
		h = mix((h ^ w) + golden)
	}
	h = mix((h ^ uint64(len(session))) + golden)
	return mix((h ^ uint64(seq)) + golden)
}

// unit turns a hash into a roll in [0, 2^53), compared against thresholds
// scaled the same way (see threshold).
func unit(h uint64) uint64 { return h >> 11 }

// threshold scales a probability in [0, 1] to the roll's range.
func threshold(p float64) uint64 {
	if p >= 1 {
		return 1 << 53
	}
	return uint64(p * (1 << 53))
}

// subHash derives an independent stream from a message hash: target i's
// roll, the fault's Param.
func subHash(h, key uint64) uint64 { return mix(h ^ key) }
