package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCountsInTheSingular: a count of one is said in the singular ("1
// message", not "1 messages").
func TestCountsInTheSingular(t *testing.T) {
	// The server reads the client's line (so it was recorded), then exits.
	res := replayctlIn(t, initializeLine+"\n", "record", "-o", filepath.Join(t.TempDir(), "one.jsonl"), "--", "sh", "-c", "read line")
	if !strings.Contains(res.stderr, "recorded 1 message to") || strings.Contains(res.stderr, "1 messages") {
		t.Errorf("stderr %q: want \"recorded 1 message to\"", res.stderr)
	}
}
