package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMergeSameRunTwice: a whole run's report given twice (the same
// file, or a copy of it: one run_id) would count every result twice; it
// is refused, exit 2, naming both paths, as a shard given twice is.
func TestMergeSameRunTwice(t *testing.T) {
	dir := t.TempDir()
	th := filepath.Join(dir, "th.json")
	if res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--report", th); res.code != 0 {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
	b, err := os.ReadFile(th)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(dir, "copy.json")
	if err := os.WriteFile(cp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"the same file", []string{th, th}},
		{"a copy", []string{th, cp}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := replayctl(t, append([]string{"merge", "-o", "json"}, tc.args...)...)
			if res.code != 2 {
				t.Errorf("exit %d, want 2\nstdout: %.300s\nstderr: %s", res.code, res.stdout, res.stderr)
			}
			if strings.Count(res.stderr, th)+strings.Count(res.stderr, cp) < 2 || !strings.Contains(res.stderr, "same run") {
				t.Errorf("stderr %q: want both paths named, and %q", res.stderr, "same run")
			}
		})
	}
}
