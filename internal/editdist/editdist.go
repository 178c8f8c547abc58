// Package editdist measures how far apart two words are, for the
// did-you-mean hints of the CLI (unknown flags and commands) and of config
// files (unknown keys).
package editdist

import "strings"

// Distance is the Levenshtein distance between a and b, bytewise: the
// fewest single-byte insertions, deletions and substitutions that turn a
// into b.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Closest returns the candidate nearest to s by edit distance (s taken in
// lower case), when it is near enough to be a likely typo ("validaton" →
// "validation"), or "".
func Closest(s string, candidates []string) string {
	best, bestD := "", -1
	for _, c := range candidates {
		d := Distance(strings.ToLower(s), c)
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	limit := max(2, len(s)/3)
	if bestD < 0 || bestD > limit || bestD >= len(s) {
		return ""
	}
	return best
}
