package replay_test

import (
	"slices"
	"testing"
	"time"

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

// firstDue is when each session's first client message was due, in
// milliseconds after the report's start.
func firstDue(rep *report.Report) map[string]float64 {
	out := map[string]float64{}
	for _, e := range rep.Timeline {
		if e.Dir != report.DirC2S || e.DueMS == nil {
			continue
		}
		if d, ok := out[e.Session]; !ok || *e.DueMS < d {
			out[e.Session] = *e.DueMS
		}
	}
	return out
}

// TestStartAtAnchorsShards: with a common start (StartAt), a shard's
// sessions start at the offsets they have in the whole run, counted
// from the start — shard 1/2's only session (the second virtual copy,
// ramped 200ms later) is due 200ms after it, not at once as if it were
// the run's first — and the report starts at the common start.
func TestStartAtAnchorsShards(t *testing.T) {
	opts := []replay.Option{replay.SpeedText("20x"), replay.Sessions(2), replay.Ramp(200 * time.Millisecond)}
	start := time.Now().Add(50 * time.Millisecond)
	whole, err := replay.Run(t.Context(), quickstart, append(opts, replay.StartAt(start))...)
	if err != nil {
		t.Fatal(err)
	}
	if !whole.Summary.StartedAt.Equal(start) {
		t.Errorf("started_at %v, want the common start %v", whole.Summary.StartedAt, start)
	}
	want := firstDue(whole)
	if len(want) != 2 {
		t.Fatalf("the whole run's sessions: %v, want 2", want)
	}
	got := map[string]float64{}
	for i := range 2 {
		start := time.Now().Add(50 * time.Millisecond)
		rep, err := replay.Run(t.Context(), quickstart, append(opts, replay.Shard(i, 2), replay.StartAt(start))...)
		if err != nil {
			t.Fatal(err)
		}
		for s, d := range firstDue(rep) {
			got[s] = d
		}
		for _, e := range rep.Timeline {
			if e.SentMS != nil && *e.SentMS < 0 {
				t.Errorf("shard %d/2: seq %d of %s sent %.3fms before the common start", i, e.Seq, e.Session, -*e.SentMS)
			}
		}
	}
	// Copy 2 of 2 is ramped 100ms after copy 1 (200ms over 2 copies): in
	// its shard as in the whole run, nothing of it is due before that.
	if got["s1#2"] < 100 || want["s1#2"] < 100 {
		t.Errorf("session s1#2: first due %.3fms after the common start in its shard, %.3fms in the whole run; want 100ms or later in both", got["s1#2"], want["s1#2"])
	}
}
