package history

import (
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// TestCompareFloor: a shift of microseconds on a fast target (the mock's
// echo: p95 1µs → 2µs, significant and a 100% move) is not a change; the
// same distributions shifted by a millisecond are.
func TestCompareFloor(t *testing.T) {
	hist := func(base, spread int64) *hdrhistogram.Histogram {
		h := hdrhistogram.New(1, 3_600_000_000, 3)
		for i := range int64(5000) {
			_ = h.RecordValue(base + i%spread)
		}
		return h
	}
	g := Group{Method: "tools/call", Name: "echo"}
	for _, tc := range []struct {
		name    string
		a, b    *hdrhistogram.Histogram
		changed bool
	}{
		{"1µs to 2µs", hist(1, 1), hist(2, 1), false},
		{"1-2µs to 2-3µs", hist(1, 2), hist(2, 2), false},
		{"1ms to 2ms", hist(1000, 100), hist(2000, 100), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := Compare(map[Group]*hdrhistogram.Histogram{g: tc.a}, map[Group]*hdrhistogram.Histogram{g: tc.b}, CompareOptions{})
			if len(cs) != 1 {
				t.Fatalf("got %d changes, want 1", len(cs))
			}
			c := cs[0]
			if c.P >= DefaultAlpha {
				t.Fatalf("p %g: the test must find the shift significant for this case to mean anything", c.P)
			}
			if c.Changed != tc.changed {
				t.Errorf("changed %v (p50 %g→%g ms, p95 %g→%g ms), want %v", c.Changed, c.A.P50, c.B.P50, c.A.P95, c.B.P95, tc.changed)
			}
		})
	}
}
