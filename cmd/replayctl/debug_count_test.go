package main

import (
	"regexp"
	"testing"
)

// TestDebugStatusCountsAsTheSummary: debug's status line and its summary
// count the messages checked against the recording alike. The status said
// "judged 9" (the notification sent counted) where the summary said
// "8 checked".
func TestDebugStatusCountsAsTheSummary(t *testing.T) {
	res := replayctlIn(t, "continue\nstatus\nquit\n", "debug", "examples/quickstart.jsonl")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	status := regexp.MustCompile(`ended before seq \d+ \(end\); speed fast; released 9, sent 9, checked (\d+)\n`).FindStringSubmatch(res.stdout)
	summary := regexp.MustCompile(`summary: (\d+) checked, `).FindStringSubmatch(res.stdout)
	if status == nil || summary == nil || status[1] != summary[1] || summary[1] != "8" {
		t.Errorf("status %q, summary %q: want the same count of checked messages, 8:\n%s", status, summary, res.stdout)
	}
}
