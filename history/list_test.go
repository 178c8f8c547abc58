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

// TestTapes: each tape kept once, by name and hash, the one run most
// recently first.
func TestTapes(t *testing.T) {
	s := openStore(t, t.TempDir())
	ctx := context.Background()
	keep := func(id, tape, hash string, hour int) {
		rep := &report.Report{Summary: report.Summary{RunID: id, Tape: tape, StartedAt: time.Date(2026, 1, 2, hour, 0, 0, 0, time.UTC)}}
		if _, err := s.Record(ctx, rep, history.Info{TapeHash: history.HashPrefix + hash}); err != nil {
			t.Fatal(err)
		}
	}
	keep("r1", "a.jsonl", "aaaaaaaaaaaaaaaa", 1)
	keep("r2", "b.jsonl", "bbbbbbbbbbbbbbbb", 2)
	keep("r3", "a.jsonl", "aaaaaaaaaaaaaaaa", 3)
	keep("r4", "a.jsonl", "cccccccccccccccc", 0) // a changed a.jsonl, run earliest
	got, err := s.Tapes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []history.Tape{{"a.jsonl", history.HashPrefix + "aaaaaaaaaaaaaaaa"}, {"b.jsonl", history.HashPrefix + "bbbbbbbbbbbbbbbb"}, {"a.jsonl", history.HashPrefix + "cccccccccccccccc"}}
	if len(got) != len(want) {
		t.Fatalf("Tapes: got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Tapes: got %v, want %v", got, want)
			break
		}
	}
}
