package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigCommand(t *testing.T) {
	// The example's transformations read ${env.AUTH_TOKEN}: it checks
	// where that is set, as run takes it there.
	t.Setenv("AUTH_TOKEN", "token-of-the-check")
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	example := replayctl(t, "config", "example")
	if example.code != 0 || !strings.Contains(example.stdout, "transformations:") {
		t.Fatalf("config example: got exit %d, stdout %q, want exit 0 and the example", example.code, example.stdout)
	}
	examplePath := write("example.yaml", example.stdout)

	for _, tc := range []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"the printed example checks", []string{"config", "check", examplePath}, 0, "ok: 6 transformations, 2 validation rules, 3 thresholds\n", ""},
		{"debug example", []string{"config", "check", "--for", "debug", "examples/debug.yaml"}, 0, "ok: 1 transformations, 2 validation rules, 0 thresholds\n", ""},
		{"debug example, for run", []string{"config", "check", "examples/debug.yaml"}, 2, "",
			`error_handling.strategy: "pause": pause needs someone to resume: use it in a controlled replay (replayctl debug), or choose continue or stop; replayctl debug takes the file as it is (config check --for debug)`},
		{"for what", []string{"config", "check", "--for", "record", "examples/load.yaml"}, 2, "", `--for "record": want run or debug`},
		{"load example", []string{"config", "check", "examples/load.yaml"}, 0, "ok: 0 transformations, 0 validation rules, 4 thresholds\n", ""},
		{"chaos example", []string{"config", "check", "examples/chaos.yaml"}, 0, "ok: 0 transformations, 0 validation rules, 1 thresholds\n", ""},
		{"empty file", []string{"config", "check", write("empty.yaml", "")}, 0, "ok: 0 transformations, 0 validation rules, 0 thresholds\n", ""},
		{"unknown key", []string{"config", "check", write("typo.yaml", "speed: fast\nvalidaton: {}\n")}, 2, "",
			"typo.yaml line 2: unknown key \"validaton\" (did you mean \"validation\"?)\n"},
		{"wrong type", []string{"config", "check", write("type.yaml", "validation:\n  tolerance:\n    numeric: lots\n")}, 2, "",
			"type.yaml line 3: validation.tolerance.numeric: want a number, got \"lots\"\n"},
		{"missing file", []string{"config", "check", filepath.Join(dir, "nope.yaml")}, 2, "", "nope.yaml: cannot read the config file"},
		{"no file", []string{"config", "check"}, 2, "", "want: replayctl config check FILE"},
		{"unknown subcommand", []string{"config", "lint"}, 2, "", `unknown command "lint" for "replayctl config": want one of check, example`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := replayctl(t, tc.args...)
			if r.code != tc.wantCode {
				t.Errorf("got exit %d, want %d (stderr %q)", r.code, tc.wantCode, r.stderr)
			}
			if r.stdout != tc.wantStdout {
				t.Errorf("got stdout %q, want %q", r.stdout, tc.wantStdout)
			}
			if !strings.Contains(r.stderr, tc.wantStderr) {
				t.Errorf("got stderr %q, want it to contain %q", r.stderr, tc.wantStderr)
			}
		})
	}
}
