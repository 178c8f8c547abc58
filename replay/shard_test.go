package replay_test

import (
	"slices"
	"testing"

	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
)

// TestShardOption: the shards of a replay of 5 virtual sessions replay
// them all between them, each once, and report.Merge of their reports
// counts what the whole run does.
func TestShardOption(t *testing.T) {
	whole, err := replay.Run(t.Context(), quickstart, replay.WithSpeed(replay.Fast()), replay.Sessions(5))
	if err != nil {
		t.Fatal(err)
	}
	var parts []*report.Report
	var names []string
	for i := range 3 {
		rep, err := replay.Run(t.Context(), quickstart, replay.WithSpeed(replay.Fast()), replay.Sessions(5), replay.Shard(i, 3))
		if err != nil {
			t.Fatal(err)
		}
		if s := rep.Summary.Shard; s == nil || s.Index != i || s.Count != 3 || !rep.Passed() {
			t.Fatalf("shard %d/3: summary.shard %+v, passed %t", i, s, rep.Passed())
		}
		for _, s := range rep.PerSession {
			names = append(names, s.Session)
		}
		parts = append(parts, rep)
	}
	var want []string
	for _, s := range whole.PerSession {
		want = append(want, s.Session)
	}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("the shards replayed sessions %v, the whole run %v", names, want)
	}
	merged, err := report.Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	if merged.Summary.Sent != whole.Summary.Sent || merged.Summary.TotalMessages != whole.Summary.TotalMessages || merged.Summary.Sessions != whole.Summary.Sessions {
		t.Errorf("merged: sent %d, total %d, sessions %d; whole run: %d, %d, %d", merged.Summary.Sent, merged.Summary.TotalMessages, merged.Summary.Sessions,
			whole.Summary.Sent, whole.Summary.TotalMessages, whole.Summary.Sessions)
	}
}
