package coord

import (
	"slices"
	"testing"

	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
)

// TestStreamAddsUpToTheReport replays a tape with a Stream taking
// intervals while it runs: the intervals merged (as the coordinator
// merges them) have the replay's own counts and, bucket for bucket, its
// histograms; and the first request is the earliest sent.
func TestStreamAddsUpToTheReport(t *testing.T) {
	st := NewStream()
	merged := report.NewCollector(report.WithTimelineLimit(0))
	taken := 0
	take := func() {
		if err := merged.MergeReport(st.Take().Report); err != nil {
			t.Error(err)
		}
		taken++
	}
	// An interval taken at every 50th result as the replay goes, so that
	// there are many whatever the machine's speed.
	results := 0
	rep, err := replay.Run(t.Context(), "../examples/quickstart.jsonl", replay.Sessions(20), replay.SpeedText("fast"), replay.Events(st.Consumer()),
		replay.OnResult(func(report.Result) {
			if results++; results%50 == 0 {
				take()
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	take()
	got := merged.Report(report.Meta{})
	if got.Summary.Sent != rep.Summary.Sent || got.Performance.Requests != rep.Performance.Requests || got.Validation.Passed != rep.Validation.Passed {
		t.Errorf("intervals: %d sent, %d requests, %d passed; the report: %d, %d, %d",
			got.Summary.Sent, got.Performance.Requests, got.Validation.Passed, rep.Summary.Sent, rep.Performance.Requests, rep.Validation.Passed)
	}
	for name, pair := range map[string][2]report.EncodedHistogram{
		"latency":      {got.Histograms.Latency, rep.Histograms.Latency},
		"schedule_lag": {got.Histograms.ScheduleLag, rep.Histograms.ScheduleLag},
	} {
		a, b := decodeHDR(t, pair[0]), decodeHDR(t, pair[1])
		if a.TotalCount() == 0 || a.TotalCount() != b.TotalCount() || !slices.Equal(a.Distribution(), b.Distribution()) {
			t.Errorf("%s: the intervals' histogram (%d values) is not the report's (%d)", name, a.TotalCount(), b.TotalCount())
		}
	}
	if first := st.FirstSent(); first.IsZero() || first.Before(rep.Summary.StartedAt) || taken < 3 {
		t.Errorf("first request at %v (the replay started at %v), %d intervals; want one sent after the start, and 3 intervals or more", first, rep.Summary.StartedAt, taken)
	}
}
