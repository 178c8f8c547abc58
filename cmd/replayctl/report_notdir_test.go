package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportPathUnderAFile: --report notdir/r.json where notdir is a
// file is refused (exit 2) saying it is a file, not that it does not
// exist.
func TestReportPathUnderAFile(t *testing.T) {
	notdir := filepath.Join(t.TempDir(), "notdir")
	if err := os.WriteFile(notdir, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--report", filepath.Join(notdir, "r.json"))
	if res.code != 2 || strings.Contains(res.stderr, "does not exist") || !strings.Contains(res.stderr, "is a file") {
		t.Errorf("exit %d, stderr %q; want 2 saying %s is a file, not a folder", res.code, res.stderr, notdir)
	}
}
