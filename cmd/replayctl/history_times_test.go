package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/report"
)

// keepTimed keeps in the store dir a run of tape that lasted d, its one
// tools/call answered in lat.
func keepTimed(t *testing.T, dir, tape string, start time.Time, d, lat time.Duration) {
	t.Helper()
	c := report.NewCollector()
	c.Start(start)
	c.Add(report.Result{Seq: 0, Session: "s1", Method: "tools/call", Name: "echo", Dir: report.DirC2S,
		Kind: report.KindRequest, Due: start, Sent: start, Answered: start.Add(lat), Verdict: report.Passed})
	c.Finish(start.Add(d))
	rep := c.Report(report.Meta{Tape: tape, Sessions: 1})
	keepReport(t, dir, tape, &rep)
}

// TestHistoryTimesAsDurations: history list shows a run's duration, and
// trend a duration metric's slope, in the units of every other time
// (µs, ms, s): list printed "65000ms" and "0ms", trend "+2 ms per run".
func TestHistoryTimesAsDurations(t *testing.T) {
	dir := t.TempDir()
	tape := filepath.Join(t.TempDir(), "timed.jsonl")
	if err := os.WriteFile(tape, []byte(`{"seq":0}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now().Add(-time.Hour)
	keepTimed(t, dir, tape, start, 65*time.Second, 10*time.Millisecond)
	keepTimed(t, dir, tape, start.Add(time.Minute), 0, 0)
	keepTimed(t, dir, tape, start.Add(2*time.Minute), 1234*time.Millisecond, 14*time.Millisecond)

	list := replayctl(t, "history", "list", "--history", dir)
	if list.code != 0 {
		t.Fatalf("history list: exit %d\n%s%s", list.code, list.stdout, list.stderr)
	}
	for _, want := range []string{"1m5s\n", "0µs\n", "1.234s\n"} {
		if !strings.Contains(list.stdout, want) {
			t.Errorf("history list lacks a duration %q:\n%s", strings.TrimSpace(want), list.stdout)
		}
	}
	if strings.Contains(list.stdout, "000ms") || strings.Contains(list.stdout, " 0ms") {
		t.Errorf("history list shows a duration in bare ms:\n%s", list.stdout)
	}

	trend := replayctl(t, "history", "trend", "max{method:tools/call}", "--history", dir)
	if trend.code != 0 {
		t.Fatalf("history trend: exit %d\n%s%s", trend.code, trend.stdout, trend.stderr)
	}
	if want := "slope over 3 runs: +2.0ms per run\n"; !strings.Contains(trend.stdout, want) {
		t.Errorf("history trend lacks %q:\n%s", want, trend.stdout)
	}
}
