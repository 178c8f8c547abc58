package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testserver"
)

// TestShrinkRefusesBadArgsUpFront: arguments that doom a shrink are
// refused before its first replay (exit 2, no step on stderr, nothing
// written), not after a search that can take hours: an output in a folder
// that does not exist (the search's result was lost: "no such file or
// directory" at the end), two outputs naming one file (the report
// overwrote the shrunk tape, exit 0), and --at naming a session or a
// message the tape does not have (the baseline ran, then exit 3 or 1),
// and a --max-runs the baseline alone spends (exit 2 after replays, "the
// run budget is spent", saying neither which flag nor what to do).
func TestShrinkRefusesBadArgsUpFront(t *testing.T) {
	planted := testserver.Planted(t)[0]
	tp := "shrink/testdata/planted-abc.jsonl"
	for _, tc := range []struct {
		name string
		args func(dir string) []string
		want func(dir string) string
	}{
		{"tape-out folder missing",
			func(dir string) []string { return []string{"--tape-out", filepath.Join(dir, "no", "min.jsonl")} },
			func(dir string) string {
				return "--tape-out " + filepath.Join(dir, "no", "min.jsonl") + ": the folder " + filepath.Join(dir, "no") + " does not exist"
			}},
		{"report folder missing",
			func(dir string) []string {
				return []string{"--tape-out", filepath.Join(dir, "a.jsonl"), "--report", filepath.Join(dir, "no", "r.json")}
			},
			func(dir string) string {
				return "--report " + filepath.Join(dir, "no", "r.json") + ": the folder " + filepath.Join(dir, "no") + " does not exist"
			}},
		{"tape-out is report",
			func(dir string) []string {
				return []string{"--tape-out", filepath.Join(dir, "same.json"), "--report", filepath.Join(dir, "same.json")}
			},
			func(dir string) string { return "--tape-out and --report both name " + filepath.Join(dir, "same.json") }},
		{"tape-out is report, spelt apart",
			func(dir string) []string {
				return []string{"--tape-out", filepath.Join(dir, "same.json"), "--report", dir + "/./same.json"}
			},
			func(string) string { return "--tape-out and --report both name" }},
		{"at a session not on the tape",
			func(dir string) []string {
				return []string{"--tape-out", filepath.Join(dir, "b.jsonl"), "--at", "s99:3"}
			},
			func(string) string { return "--at s99:3: the tape has no session s99" }},
		{"at a seq not in the session",
			func(dir string) []string {
				return []string{"--tape-out", filepath.Join(dir, "c.jsonl"), "--at", "s7:99999"}
			},
			func(string) string { return "--at s7:99999: session s7 has no message seq 99999" }},
		{"max-runs below the baseline",
			func(dir string) []string {
				return []string{"--tape-out", filepath.Join(dir, "d.jsonl"), "--max-runs", "3", "--baseline", "5"}
			},
			func(string) string { return "--max-runs 3: the baseline alone replays the tape 5 times (--baseline)" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append(append([]string{"shrink", tp}, tc.args(dir)...), "--", planted, "-abc", "boom")
			res := replayctl(t, args...)
			if want := tc.want(dir); res.code != 2 || !strings.Contains(res.stderr, want) || strings.Contains(res.stderr, "shrink: round") {
				t.Errorf("exit %d, want 2 before any replay (no step) with %q\n%s", res.code, want, res.stderr)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("%d files written, want none", len(entries))
			}
		})
	}
}
