package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A bad tape given to serve is said as run says it: "tape PATH line N:
// what: what to do", with no chain of the packages it went through.
func TestServeBadTapeErrorReadsAsRun(t *testing.T) {
	b, err := os.ReadFile("../../examples/quickstart.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	lines[5] = regexp.MustCompile(`"seq":\d+`).ReplaceAllString(lines[5], `"seq":"x"`)
	path := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "replayctl: tape " + path + " line 6: "
	for _, args := range [][]string{
		{"run", path, "--speed", "fast"},
		{"serve", path, "--listen", "127.0.0.1:19054"},
		{"serve", path},
	} {
		res := replayctl(t, args...)
		if res.code != 2 || !strings.HasPrefix(res.stderr, want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message starting %q", args, res.code, res.stderr, want)
		}
	}
}
