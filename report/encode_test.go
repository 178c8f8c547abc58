package report

import (
	"math/rand/v2"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// TestEncodeHDRAsTheLibrary: the report's own encoding of a histogram is
// byte for byte hdrhistogram-go's Encode, for empty histograms, one value,
// values at both ends of the range, counts far past one LEB128 byte, long
// runs of zeros, random ones, and a histogram decoded from a report (as
// a merge encodes again).
func TestEncodeHDRAsTheLibrary(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 9))
	cases := map[string]func(h *hist){
		"empty": func(*hist) {},
		"one":   func(h *hist) { h.record(1500 * time.Microsecond) },
		"ends": func(h *hist) {
			h.record(-time.Second)
			h.record(0)
			h.record(2 * time.Hour)
		},
		"big counts": func(h *hist) {
			_ = h.h.RecordValues(7, 1<<40)
			_ = h.h.RecordValues(7_000_000, 1<<57)
			_ = h.h.RecordValues(100, 300)
		},
		"random": func(h *hist) {
			for range 5000 {
				h.record(time.Duration(rng.ExpFloat64() * float64(2*time.Millisecond)))
			}
			for range 20 {
				h.record(time.Duration(rng.Int64N(int64(time.Hour))))
			}
		},
	}
	for name, fill := range cases {
		t.Run(name, func(t *testing.T) {
			h := newHist()
			fill(&h)
			check := func(h *hdrhistogram.Histogram) {
				t.Helper()
				want, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
				if err != nil {
					t.Fatal(err)
				}
				if got := encodeHDR(h); got != string(want) {
					t.Errorf("encodeHDR:\n got %s\nwant %s", got, want)
				}
			}
			check(h.h)
			check(h.h) // again, with the pooled writer used before
			back, err := hdrhistogram.Decode([]byte(encodeHDR(h.h)))
			if err != nil {
				t.Fatal(err)
			}
			if !back.Equals(h.h) {
				t.Errorf("decoded histogram differs")
			}
			check(back)
		})
	}
}
