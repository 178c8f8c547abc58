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

// TestMergeShardRefusalsNameFiles: a shard given twice, and a shard
// mixed with a whole run, are refused (exit 2) naming both files, and
// the shard, as the README says: "shard 0/2 and shard 0/2" tells a user
// nothing about which files to drop.
func TestMergeShardRefusalsNameFiles(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.json")
	shard := filepath.Join(dir, "s0.json")
	if res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "-q", "--report", whole); res.code != 0 {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
	if res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "-q", "--shard", "0/2", "--report", shard); res.code != 0 {
		t.Fatalf("run --shard 0/2: exit %d\n%s", res.code, res.stderr)
	}
	b, err := os.ReadFile(shard)
	if err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(dir, "s0-again.json")
	if err := os.WriteFile(again, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		files []string
		want  string
	}{
		{"a shard twice", []string{shard, again}, "shard 0/2"},
		{"a whole run and a shard", []string{whole, shard}, "shard 0/2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := replayctl(t, append([]string{"merge", "-o", "json"}, tc.files...)...)
			if res.code != 2 {
				t.Errorf("exit %d, want 2\nstderr: %s", res.code, res.stderr)
			}
			for _, f := range tc.files {
				if !strings.Contains(res.stderr, f) {
					t.Errorf("stderr does not name %s\nstderr: %s", f, res.stderr)
				}
			}
			if !strings.Contains(res.stderr, tc.want) {
				t.Errorf("stderr does not name %q\nstderr: %s", tc.want, res.stderr)
			}
		})
	}
}
