package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "replay.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunWithConfig(t *testing.T) {
	t.Run("filters and thresholds from the file", func(t *testing.T) {
		cfg := writeConfig(t, "speed: fast\ninclude_methods: [tools/call]\nthresholds: [\"validation_failed==0\"]\n")
		res := replayctl(t, "run", "examples/quickstart.jsonl", "--config", cfg, "-o", "json")
		if res.code != 0 {
			t.Fatalf("exit %d\n%s", res.code, res.stderr)
		}
		r := decodeReport(t, res.stdout)
		// initialize and the three tools/call requests; the rest left out.
		if r.Validation.Passed != 4 || r.Summary.Skipped == 0 {
			t.Errorf("passed %d skipped %d, want 4 passed and the others skipped", r.Validation.Passed, r.Summary.Skipped)
		}
	})
	t.Run("flags override the file", func(t *testing.T) {
		cfg := writeConfig(t, "speed: 0.001x\nthresholds: [\"throughput>1000000000\"]\n")
		res := replayctl(t, "run", "examples/quickstart.jsonl", "--config", cfg, "--speed", "fast")
		// fast despite the file's crawl; the file's threshold still applies.
		if res.code != 1 || !strings.Contains(res.stdout, "throughput>1000000000 failed") {
			t.Errorf("exit %d, want 1 with the file's threshold failing\n%s", res.code, res.stdout)
		}
	})
	t.Run("validation rules", func(t *testing.T) {
		orig, err := os.ReadFile("../../examples/quickstart.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		other := filepath.Join(t.TempDir(), "changed.jsonl")
		if err := os.WriteFile(other, []byte(strings.Replace(string(orig), "Echo: hello, replay", "Echo: changed", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := writeConfig(t, "validation:\n  rules:\n    - scope: { method: tools/call }\n      on_failure: warn\n")
		res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--mock-tape", other, "--config", cfg, "-o", "json")
		r := decodeReport(t, res.stdout)
		if res.code != 0 || r.Validation.Failed != 0 {
			t.Errorf("warn rule: exit %d, failed %d; want 0 and 0 (a warning)\n%s", res.code, r.Validation.Failed, res.stderr)
		}
	})
	t.Run("bad config exits 2 naming the line", func(t *testing.T) {
		cfg := writeConfig(t, "speed: fast\nvalidaton:\n  mode: exact\n")
		res := replayctl(t, "run", "examples/quickstart.jsonl", "--config", cfg)
		if res.code != 2 || !strings.Contains(res.stderr, "line 2") || !strings.Contains(res.stderr, "validation") {
			t.Errorf("exit %d, want 2 naming line 2 and the key it meant\n%s", res.code, res.stderr)
		}
	})
}
