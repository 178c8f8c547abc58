package report

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// minorFaults is the page faults the calling thread has taken that the
// kernel served without a read: on a fresh page, its first write.
func minorFaults(t *testing.T) int64 {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		t.Fatal(err)
	}
	return ru.Minflt
}

// TestPrefaultedHistograms: once a collector is prefaulted, the first
// values its histograms take write to pages already mapped. A
// histogram's 184 KiB of counts are fresh memory the kernel maps page by
// page at the first write; unprefaulted, those first writes came in the
// report's first chunk of results, while a paced replay's calls were
// due, and on a virtual machine each cost tens of microseconds
// (BENCHMARKS.md, issue 24, tenth round).
func TestPrefaultedHistograms(t *testing.T) {
	c := NewCollector(WithGroupHistograms(3))
	c.Prefault()
	hists := []*hist{&c.latency, &c.intended, &c.lag, &c.held}
	hists = append(hists, c.spareHists...)
	// Values over the range a replay's figures take, each on a page of
	// its own in the counts: microseconds to a second.
	var values []time.Duration
	for d := time.Microsecond; d < time.Second; d *= 4 {
		values = append(values, d)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := minorFaults(t)
	for _, h := range hists {
		for _, d := range values {
			h.record(d)
		}
	}
	if got := minorFaults(t) - before; got != 0 {
		t.Errorf("recording %d values into %d prefaulted histograms took %d page faults, want 0", len(values), len(hists), got)
	}
}

// TestPrefaultedTimeline: once a collector is prefaulted, its timeline's
// first block is made and its pages mapped: the first entries are
// written without a page fault (a fresh 20 KB block was five faults in
// the first chunk of results).
func TestPrefaultedTimeline(t *testing.T) {
	c := NewCollector()
	c.Prefault()
	it := timelineItem{seq: 1, session: "s1", method: "tools/call", dir: "c2s", kind: "request"}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := minorFaults(t)
	for range timelineBlock {
		c.timeline.add(it, c.timelineLimit)
	}
	if got := minorFaults(t) - before; got != 0 {
		t.Errorf("adding %d timeline entries to a prefaulted collector took %d page faults, want 0", timelineBlock, got)
	}
	if c.timeline.len() != timelineBlock || len(c.timeline.blocks) != 1 {
		t.Errorf("got %d entries in %d blocks, want %d in 1", c.timeline.len(), len(c.timeline.blocks), timelineBlock)
	}
}
