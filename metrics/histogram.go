package metrics

import (
	"sort"
	"sync/atomic"
	"time"
)

// DefaultBuckets are the upper bounds of the latency and lag histograms:
// from 50µs (a local server's answer, a prompt send) to 30s (the
// default --timeout), about three to a decade.
var DefaultBuckets = []time.Duration{
	50 * time.Microsecond, 100 * time.Microsecond, 250 * time.Microsecond, 500 * time.Microsecond,
	time.Millisecond, 2500 * time.Microsecond, 5 * time.Millisecond,
	10 * time.Millisecond, 25 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2500 * time.Millisecond, 5 * time.Second, 10 * time.Second, 30 * time.Second,
}

// histogram is a Prometheus histogram of durations: a count per bucket
// (not cumulative: a scrape sums them) and the sum, all atomic.
type histogram struct {
	bounds []time.Duration // ascending upper bounds; shared, never changed
	counts []atomic.Uint64 // len(bounds)+1: the last is +Inf
	sum    atomic.Int64    // nanoseconds
}

func newHistogram(bounds []time.Duration) *histogram {
	return &histogram{bounds: bounds, counts: make([]atomic.Uint64, len(bounds)+1)}
}

// observe counts d in the first bucket whose bound is at least d.
func (h *histogram) observe(d time.Duration) {
	i := sort.Search(len(h.bounds), func(i int) bool { return d <= h.bounds[i] })
	h.counts[i].Add(1)
	h.sum.Add(int64(d))
}

// read returns the cumulative bucket counts (the last is the count) and
// the sum. Each bucket is read once, so the buckets are monotonic and
// the count is the +Inf bucket even while observe runs; the sum may
// include an observation the buckets do not yet.
func (h *histogram) read() (cumulative []uint64, sum time.Duration) {
	cumulative = make([]uint64, len(h.counts))
	var n uint64
	for i := range h.counts {
		n += h.counts[i].Load()
		cumulative[i] = n
	}
	return cumulative, time.Duration(h.sum.Load())
}
