package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testserver"
)

// A native tape with a bad line early on, before anything is sent: run
// prints only the tape's error (exit 2), no empty report, as it does for
// a bad cassette.
func TestRunBadTapeNothingSent(t *testing.T) {
	testserver.NeedEverything(t)
	b, err := os.ReadFile("../../examples/everything.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	lines[5] = `{"type":"message","seq":5,"bad` + "\n" // line 6, cut short
	path := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"run", path, "--"}, testserver.Everything(t)...)
	res := replayctl(t, args...)
	if res.code != 2 || !strings.Contains(res.stderr, "line 6") {
		t.Errorf("exit %d, want 2 and the error of line 6:\n%s", res.code, res.stderr)
	}
	if strings.Contains(res.stdout, "sent") || strings.Contains(res.stdout, "result") {
		t.Errorf("run printed a report of a replay that sent nothing:\n%s", res.stdout)
	}
}
