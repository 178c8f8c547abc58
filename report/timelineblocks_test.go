package report

import (
	"bytes"
	"encoding/json"
	"runtime"
	"testing"
	"time"
	"unsafe"
)

// The timeline grows a block at a time: filling the default 10,000
// entries allocates about their own size, where a slice grown by append
// allocated (and copied into) each doubling on the way, more than twice
// that. The report's collector adds on the event stream's goroutine, and
// a chunk of results that grew the slice took up to 0.5 ms (BENCHMARKS.md,
// issue 24, ninth round).
func TestTimelineGrowsWithoutCopying(t *testing.T) {
	c := NewCollector()
	rs := make([]Result, DefaultTimelineLimit)
	for i := range rs {
		rs[i] = request(int64(i), time.Duration(i)*time.Millisecond, time.Microsecond, 40*time.Microsecond, Passed)
	}
	c.AddResult(&rs[0]) // the histograms of its method: not the timeline's
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 1; i < len(rs); i++ {
		c.AddResult(&rs[i])
	}
	runtime.ReadMemStats(&after)
	own := uint64(DefaultTimelineLimit) * uint64(unsafe.Sizeof(timelineItem{}))
	got := after.TotalAlloc - before.TotalAlloc
	if got > own*115/100 {
		t.Errorf("filling the timeline allocated %d bytes, want at most %d (its %d entries take %d)", got, own*115/100, DefaultTimelineLimit, own)
	}
	tl := c.Report(Meta{}).Timeline
	if len(tl) != DefaultTimelineLimit {
		t.Fatalf("timeline length: got %d, want %d", len(tl), DefaultTimelineLimit)
	}
	for i, e := range tl {
		if e.Seq != int64(i) {
			t.Fatalf("timeline entry %d has seq %d, want %d", i, e.Seq, i)
		}
	}
}

// Merge keeps the timeline's order and limit across blocks, and counts
// what does not fit.
func TestTimelineBlocksMerge(t *testing.T) {
	for _, tc := range []struct{ limit, mine, theirs int }{
		{timelineBlock + 5, timelineBlock - 3, 10},
		{3 * timelineBlock, timelineBlock, 2*timelineBlock + 7},
		{1, 0, 4},
		{0, 3, 3},
	} {
		c := NewCollector(WithTimelineLimit(tc.limit))
		o := NewCollector(WithTimelineLimit(tc.limit))
		for i := range tc.mine {
			c.Add(request(int64(i), 0, 0, time.Millisecond, Passed))
		}
		for i := range tc.theirs {
			o.Add(request(int64(tc.mine+i), 0, 0, time.Millisecond, Passed))
		}
		if err := c.Merge(o); err != nil {
			t.Fatal(err)
		}
		r := c.Report(Meta{})
		total := tc.mine + tc.theirs
		want := min(total, tc.limit)
		if len(r.Timeline) != want || r.TimelineOmitted != int64(total-want) {
			t.Errorf("limit %d, %d+%d: %d entries, %d omitted; want %d, %d", tc.limit, tc.mine, tc.theirs, len(r.Timeline), r.TimelineOmitted, want, total-want)
			continue
		}
		for i, e := range r.Timeline {
			if e.Seq != int64(i) {
				t.Errorf("limit %d, %d+%d: entry %d has seq %d", tc.limit, tc.mine, tc.theirs, i, e.Seq)
				break
			}
		}
	}
}

// A collector made WithGroupHistograms counts the first answers of its
// groups without making their histograms then (184 KiB each): the
// handshake's, a method's and a tool's are made before the replay. Its
// report is the same as without them.
func TestGroupHistogramsMadeBefore(t *testing.T) {
	first := []Result{
		{Seq: 0, Session: "s1", Method: "initialize", Dir: DirC2S, Kind: KindRequest, Due: at(0), Sent: at(0), Answered: at(time.Millisecond), Verdict: Passed},
		{Seq: 1, Session: "s1", Method: "notifications/initialized", Dir: DirC2S, Kind: KindNotification, Due: at(0), Sent: at(0), Verdict: Sent},
	}
	for i := range 40 {
		r := request(int64(2+i), time.Duration(i)*time.Millisecond, time.Microsecond, time.Duration(40+i)*time.Microsecond, Passed)
		r.Name = "echo"
		first = append(first, r)
	}
	made := func(c *Collector) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := range first {
			c.AddResult(&first[i])
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	with, without := NewCollector(WithGroupHistograms(3)), NewCollector()
	if got := made(with); got > 64<<10 {
		t.Errorf("counting the first %d results with 3 histograms made before allocated %d bytes, want at most 64 KiB", len(first), got)
	}
	if got := made(without); got < 3*100<<10 {
		t.Errorf("counting the first %d results without histograms made before allocated %d bytes, want their 3 histograms (this test measures nothing)", len(first), got)
	}
	a, b := with.Report(Meta{}), without.Report(Meta{})
	a.Summary.RunID, b.Summary.RunID = "", ""
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Errorf("the reports differ with histograms made before:\n%s\n%s", ja, jb)
	}
}
