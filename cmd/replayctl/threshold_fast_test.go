package main

import (
	"strings"
	"testing"
)

// TestLoadThresholdAtFastSpeed: a load threshold of a replay at speed
// fast, which has no intended rate, fails saying so and what to use
// instead, not just "no data".
func TestLoadThresholdAtFastSpeed(t *testing.T) {
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--threshold", "achieved_ratio>=95%")
	if res.code != 1 {
		t.Fatalf("exit %d, want 1 (the threshold fails):\n%s%s", res.code, res.stdout, res.stderr)
	}
	out := res.stdout + res.stderr
	for _, want := range []string{"achieved_ratio was no data (", "fast has no intended rate", "--speed rps:", "throughput>="} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in:\n%s", want, out)
		}
	}
}
