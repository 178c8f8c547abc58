package main

import (
	"strings"
	"testing"
)

// TestDebugOnErrorSaidOnce: debug --on-error stop said
// "--on-error: on-error \"stop\": want pause or continue"; the flag is
// named once.
func TestDebugOnErrorSaidOnce(t *testing.T) {
	res := replayctl(t, "debug", "examples/quickstart.jsonl", "--on-error", "stop")
	if res.code != 2 || strings.Count(res.stderr, "on-error") != 1 || !strings.Contains(res.stderr, "want pause or continue") {
		t.Errorf("debug --on-error stop: got exit %d, stderr %q, want exit 2 and --on-error named once", res.code, res.stderr)
	}
}
