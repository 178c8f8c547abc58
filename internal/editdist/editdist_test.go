package editdist

import "testing"

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"validation", "validation", 0},
		{"validaton", "validation", 1}, // one deleted
		{"sesions", "sessions", 1},     // one deleted
		{"speeed", "speed", 1},         // one inserted
		{"thrshold", "threshold", 1},   // one deleted
		{"kitten", "sitting", 3},       // the textbook case
		{"report", "repro", 2},         // "ort" to "ro": one deleted, one substituted
		{"abc", "xyz", 3},              // all substituted
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Distance(tc.b, tc.a); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetric)", tc.b, tc.a, got, tc.want)
		}
	}
}
