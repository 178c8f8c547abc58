package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidationFlag: --validation sets how run and debug compare the
// answers; a mode that does not exist is exit 2, named.
func TestValidationFlag(t *testing.T) {
	b, err := os.ReadFile("../../examples/quickstart.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other.jsonl") // the sum says 43: a string still
	if err := os.WriteFile(other, []byte(strings.Replace(string(b), "27 is 42.", "27 is 43.", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	conf := func(mode string) string {
		path := filepath.Join(t.TempDir(), mode+".yaml")
		if err := os.WriteFile(path, []byte("validation:\n  mode: "+mode+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	run := []string{"run", "examples/quickstart.jsonl", "--speed", "fast", "--mock-tape", other}
	for _, tc := range []struct {
		name     string
		args     []string
		stdin    string
		wantCode int
		want     string
	}{
		{"run, exact by default", run, "", 1, "27 is 43."},
		{"run, structural", append(run, "--validation", "structural"), "", 0, "PASS"},
		{"run, the config's structural", append(run, "--config", conf("structural")), "", 0, "PASS"},
		{"run, structural over the config's exact", append(run, "--validation", "structural", "--config", conf("exact")), "", 0, "PASS"},
		{"run, exact over the config's structural", append(run, "--validation", "exact", "--config", conf("structural")), "", 1, "27 is 43."},
		{"debug, structural", []string{"debug", "examples/quickstart.jsonl", "--mock-tape", other, "--validation", "structural"}, "continue\n", 0, "8 passed, 0 failed"},
		{"debug, exact", []string{"debug", "examples/quickstart.jsonl", "--mock-tape", other, "--on-error", "continue"}, "continue\n", 1, "7 passed, 1 failed"},
		{"unknown mode", append(run, "--validation", "loose"), "", 2, "--validation loose: want exact, structural, partial or schema"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := replayctlIn(t, tc.stdin, tc.args...)
			if r.code != tc.wantCode || !strings.Contains(r.stdout+r.stderr, tc.want) {
				t.Errorf("got exit %d, want %d and %q in\n%s%s", r.code, tc.wantCode, tc.want, r.stdout, r.stderr)
			}
		})
	}
}
