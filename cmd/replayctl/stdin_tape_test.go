package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTapeFromStdin: "-" reads the tape from stdin for the commands that
// read a tape and nothing else there (run, inspect, convert, diff, …); the
// commands that read stdin for something else refuse it, saying why.
func TestTapeFromStdin(t *testing.T) {
	quick, err := os.ReadFile("../../examples/quickstart.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	in := string(quick)
	run := replayctlIn(t, in, "run", "-", "--speed", "fast", "-o", "json")
	if run.code != 0 {
		t.Fatalf("run -: exit %d, want 0\n%s", run.code, run.stderr)
	}
	if r := decodeReport(t, run.stdout); r.Summary.Tape != "stdin" || r.Summary.TotalMessages != 18 || r.Validation.Passed != 8 {
		t.Errorf("run -: tape %q, %d messages, %d passed; want stdin, 18, 8", r.Summary.Tape, r.Summary.TotalMessages, r.Validation.Passed)
	}
	if res := replayctlIn(t, in, "inspect", "-"); res.code != 0 || !strings.Contains(res.stdout, "initialize") {
		t.Errorf("inspect -: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	out := filepath.Join(t.TempDir(), "copy.jsonl")
	if res := replayctlIn(t, in, "convert", "-", out); res.code != 0 {
		t.Errorf("convert - OUT: exit %d\n%s", res.code, res.stderr)
	}
	if res := replayctlIn(t, in, "diff", "-", out); res.code != 0 || !strings.Contains(res.stdout, "no changes") {
		t.Errorf("diff - B: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	for _, args := range [][]string{
		{"debug", "-"},
		{"run", "-", "--speed", "stepped"},
		{"serve", "-"},
		{"diff", "-", "-"},
	} {
		res := replayctlIn(t, in, args...)
		if res.code != 2 || !strings.Contains(res.stderr, "stdin") {
			t.Errorf("%v: exit %d, want 2 and why stdin cannot be the tape\nstderr: %s", args, res.code, res.stderr)
		}
	}
}
