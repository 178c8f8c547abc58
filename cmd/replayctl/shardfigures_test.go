package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// The shards of a run each say the tape's own count of messages, and a
// merge says it once: the tape has 18 messages, whichever shards are
// merged. A merge that misses shards names them above its figures.
func TestShardFiguresOfTheTape(t *testing.T) {
	dir := t.TempDir()
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--sessions", "200", "--speed", "fast", "-q",
		"--local-shards", "4", "--shard-reports", dir)
	if res.code != 0 {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
	shard := func(i string) string { return filepath.Join(dir, "shard-"+i+"-of-4.json") }
	for _, tc := range []struct {
		name    string
		args    []string
		missing string // "": none
	}{
		{"one shard", []string{shard("0")}, "1/4, 2/4, 3/4"},
		{"two shards", []string{shard("0"), shard("2")}, "1/4, 3/4"},
		{"every shard", []string{shard("0"), shard("1"), shard("2"), shard("3")}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := replayctl(t, append([]string{"merge"}, tc.args...)...)
			if m.code != 0 {
				t.Fatalf("merge: exit %d\n%s", m.code, m.stderr)
			}
			if !strings.Contains(m.stdout, "(18 on tape)") {
				t.Errorf("merge: want the tape's 18 messages on tape:\n%s", m.stdout)
			}
			messages := strings.Index(m.stdout, "  messages ")
			at := strings.Index(m.stdout, "missing "+tc.missing)
			switch {
			case tc.missing == "" && strings.Contains(m.stdout, "missing"):
				t.Errorf("merge of every shard says some are missing:\n%s", m.stdout)
			case tc.missing != "" && (at < 0 || at > messages):
				t.Errorf("merge: want %q above the figures:\n%s", "missing "+tc.missing, m.stdout)
			}
		})
	}
	one := decodeReport(t, readFile(t, shard("1")))
	if one.Summary.TotalMessages != 18 {
		t.Errorf("shard 1/4's total_messages %d, want the tape's 18", one.Summary.TotalMessages)
	}
}
