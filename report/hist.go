package report

import (
	"math"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram geometry: microseconds, 3 significant digits, up to one hour.
const (
	histLowestUS  = 1
	histHighestUS = int64(time.Hour / time.Microsecond)
	histDigits    = 3
)

// quantiles are the percentiles every [Stats] reports, in its field order.
var quantiles = []float64{50, 90, 95, 99, 99.9}

// hist is an HDR histogram of durations in microseconds with the exact
// count, sum, min and max kept beside it, and how many values were clamped
// into its range.
type hist struct {
	h       *hdrhistogram.Histogram
	count   int64
	sumUS   int64
	minUS   int64
	maxUS   int64
	clamped int64
}

func newHist() hist {
	return hist{h: hdrhistogram.New(histLowestUS, histHighestUS, histDigits)}
}

// prefault writes every count of h while it is empty (Reset writes a
// zero to each), so that the kernel maps their pages now rather than at
// the first value recorded on each (Collector.Prefault).
func (h *hist) prefault() {
	if h.count == 0 && h.clamped == 0 {
		h.h.Reset()
	}
}

// record adds d, rounded to the microsecond and clamped into 0..1h.
func (h *hist) record(d time.Duration) {
	us := int64(d.Round(time.Microsecond) / time.Microsecond)
	switch {
	case us < 0:
		us = 0
		h.clamped++
	case us > histHighestUS:
		us = histHighestUS
		h.clamped++
	}
	// Cannot fail: us is in range and the count is far from overflowing.
	_ = h.h.RecordValue(us)
	if h.count == 0 || us < h.minUS {
		h.minUS = us
	}
	if us > h.maxUS {
		h.maxUS = us
	}
	h.count++
	h.sumUS += us
}

// merge adds everything recorded in o.
func (h *hist) merge(o *hist) {
	if o.count == 0 {
		return
	}
	h.h.Merge(o.h) // same geometry: nothing is dropped
	if h.count == 0 || o.minUS < h.minUS {
		h.minUS = o.minUS
	}
	if o.maxUS > h.maxUS {
		h.maxUS = o.maxUS
	}
	h.count += o.count
	h.sumUS += o.sumUS
	h.clamped += o.clamped
}

// Stats summarises a distribution of durations, in milliseconds with
// microsecond precision. Percentiles are HDR values (3 significant digits)
// capped by the exact Min and Max; Min, Avg and Max are exact.
type Stats struct {
	Count   int64   `json:"count"`
	Min     float64 `json:"min"`
	Avg     float64 `json:"avg"`
	P50     float64 `json:"p50"`
	P90     float64 `json:"p90"`
	P95     float64 `json:"p95"`
	P99     float64 `json:"p99"`
	P999    float64 `json:"p999"`
	Max     float64 `json:"max"`
	Clamped int64   `json:"clamped,omitempty"` // values outside 0..1h, clamped
}

func (h *hist) stats() Stats {
	if h.count == 0 {
		return Stats{}
	}
	v := h.h.ValueAtPercentilesSlice(quantiles)
	for i := range v {
		v[i] = min(max(v[i], h.minUS), h.maxUS)
	}
	return Stats{
		Count:   h.count,
		Min:     usToMS(h.minUS),
		Avg:     math.Round(float64(h.sumUS)/float64(h.count)) / 1000,
		P50:     usToMS(v[0]),
		P90:     usToMS(v[1]),
		P95:     usToMS(v[2]),
		P99:     usToMS(v[3]),
		P999:    usToMS(v[4]),
		Max:     usToMS(h.maxUS),
		Clamped: h.clamped,
	}
}

// usToMS converts whole microseconds to milliseconds.
func usToMS(us int64) float64 { return float64(us) / 1000 }

// durToMS converts a duration to milliseconds, rounded to the microsecond.
func durToMS(d time.Duration) float64 {
	return usToMS(int64(d.Round(time.Microsecond) / time.Microsecond))
}

// HistogramBucket is one bar of a latency histogram: Count values greater
// than the previous bucket's LeMS and at most LeMS (within the histogram's
// precision of 3 significant digits).
type HistogramBucket struct {
	LeMS  float64 `json:"le_ms"`
	Count int64   `json:"count"`
}

// bucketEdgesUS are the upper bounds of the histogram buckets in
// microseconds: a 1-2-5 series from 1µs up to the histogram's 1h limit.
var bucketEdgesUS = func() []int64 {
	var edges []int64
	for decade := int64(1); decade <= histHighestUS; decade *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if e := decade * m; e < histHighestUS {
				edges = append(edges, e)
			}
		}
	}
	return append(edges, histHighestUS)
}()

// buckets folds the HDR histogram into the 1-2-5 buckets, from the first
// one holding a value to the last; it is empty (not nil) without values.
func (h *hist) buckets() []HistogramBucket {
	out := []HistogramBucket{}
	if h.count == 0 {
		return out
	}
	counts := make([]int64, len(bucketEdgesUS))
	first, last := len(counts), -1
	i := 0
	for _, bar := range h.h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		for i < len(bucketEdgesUS)-1 && bar.From > bucketEdgesUS[i] {
			i++
		}
		counts[i] += bar.Count
		first, last = min(first, i), max(last, i)
	}
	for j := first; j <= last; j++ {
		out = append(out, HistogramBucket{LeMS: usToMS(bucketEdgesUS[j]), Count: counts[j]})
	}
	return out
}
