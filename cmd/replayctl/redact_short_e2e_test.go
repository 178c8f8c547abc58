package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShortSecretKeepsReport: a secret of one byte (AUTH_TOKEN=x, named
// by the example config) is hidden where it is a whole value, not as a
// part of every word: it turned the report's "examples/quickstart.jsonl"
// into "e[redacted]amples/quickstart.jsonl", text and JSON alike. The run
// says once, naming the variable, that the value is too short to be
// looked for inside other text.
func TestShortSecretKeepsReport(t *testing.T) {
	example := replayctl(t, "config", "example")
	if example.code != 0 {
		t.Fatalf("config example: exit %d: %s", example.code, example.stderr)
	}
	cfg := filepath.Join(t.TempDir(), "ex.yaml")
	if err := os.WriteFile(cfg, []byte(example.stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, output := range []string{"text", "json"} {
		// The example keeps every run in .replayctl-history: not in the module.
		env := []string{"AUTH_TOKEN=x", "REPLAYCTL_HISTORY=" + filepath.Join(t.TempDir(), "history")}
		res := replayctlEnv(t, env, "", "run", "examples/quickstart.jsonl", "--config", cfg, "-o", output)
		if res.code != 0 {
			t.Fatalf("-o %s: exit %d, stderr %s", output, res.code, res.stderr)
		}
		want := "Replay of examples/quickstart.jsonl"
		if output == "json" {
			want = `"tape": "examples/quickstart.jsonl"`
		}
		if !strings.Contains(res.stdout, want) || strings.Contains(res.stdout, "e[redacted]amples") {
			t.Errorf("-o %s: got stdout\n%s\nwant it to say %q, no text cut by [redacted]", output, res.stdout, want)
		}
		if n := strings.Count(res.stderr, "AUTH_TOKEN"); n != 1 || !strings.Contains(res.stderr, "shorter than 3 bytes") {
			t.Errorf("-o %s: got stderr %q, want one warning naming AUTH_TOKEN (shorter than 3 bytes)", output, res.stderr)
		}
	}
}
