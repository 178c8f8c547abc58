package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestChaosFromMissingSessions: --chaos-from of a run with --sessions 3
// (faults placed in s1#1…s1#3) repeated without --sessions would inject
// none of them: it is refused, exit 2, naming the missing sessions and
// the flag to pass; with --sessions 3 every fault is injected again.
func TestChaosFromMissingSessions(t *testing.T) {
	rep := filepath.Join(t.TempDir(), "c3.json")
	first := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--sessions", "3", "--seed", "9",
		"--chaos", "drop=0.3,duplicate=0.3", "--report", rep, "-o", "json")
	if first.code != 0 && first.code != 1 {
		t.Fatalf("the chaos run: exit %d, want 0 or 1\n%s", first.code, first.stderr)
	}
	want := decodeChaos(t, first.stdout).Chaos.Faults
	if len(want) == 0 {
		t.Fatalf("the chaos run injected no faults:\n%s", first.stdout)
	}

	res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--chaos-from", rep)
	for _, s := range []string{"s1#1", "s1#2", "s1#3", "--sessions 3"} {
		if !strings.Contains(res.stderr, s) {
			t.Errorf("without --sessions: stderr does not name %q\n%s", s, res.stderr)
		}
	}
	if res.code != 2 {
		t.Errorf("without --sessions: exit %d, want 2 (the faults cannot be placed)\n%s%s", res.code, res.stdout, res.stderr)
	}

	again := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--sessions", "3", "--chaos-from", rep, "-o", "json")
	if again.code != 0 && again.code != 1 {
		t.Fatalf("with --sessions 3: exit %d, want 0 or 1\n%s", again.code, again.stderr)
	}
	if got := decodeChaos(t, again.stdout).Chaos.Faults; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("with --sessions 3: faults\n%v\nwant\n%v", got, want)
	}
}
