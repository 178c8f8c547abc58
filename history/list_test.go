package history_test

import (
	"context"
	"testing"
	"time"

	"github.com/replayctl/replayctl/history"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
)

// TestRunsShowWhatWasSent: a 50-session run of an 18-message tape sent
// 900 messages; the listing gives that, the sessions and the speed, not
// the tape's count alone.
func TestRunsShowWhatWasSent(t *testing.T) {
	s := openStore(t, t.TempDir())
	ctx := context.Background()
	fast := scheduler.Speed{Mode: scheduler.Fast}
	rep := &report.Report{Summary: report.Summary{RunID: "r-load", Tape: "t.jsonl", Speed: &fast, Sessions: 50,
		TotalMessages: 18, Sent: 900, StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}}
	if _, err := s.Record(ctx, rep, history.Info{TapeHash: history.HashPrefix + "ab12cd34ef56ab12"}); err != nil {
		t.Fatal(err)
	}
	runs, err := s.Runs(ctx, history.Query{})
	if err != nil || len(runs) != 1 {
		t.Fatalf("got %d runs, %v; want 1", len(runs), err)
	}
	if r := runs[0]; r.Sent != 900 || r.Sessions != 50 || r.Speed != "fast" || r.Messages != 18 {
		t.Errorf("got sent %d, sessions %d, speed %q, messages %d; want 900, 50, fast, 18", r.Sent, r.Sessions, r.Speed, r.Messages)
	}
}
