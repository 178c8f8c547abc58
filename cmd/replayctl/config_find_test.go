package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// replayctlAt runs the built binary in dir, with no input.
func replayctlAt(t *testing.T, dir string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return result{code, out.String(), errb.String()}
}

// TestConfigDiscovery: without --config, run reads replayctl.yaml or
// .replayctl.yaml of the current folder and says so in the summary's
// header (and the JSON report); --config none reads neither; both there
// is exit 2; an error in a found file names it.
func TestConfigDiscovery(t *testing.T) {
	quick, err := os.ReadFile("../../examples/quickstart.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range configNames {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			write := func(name, s string) {
				t.Helper()
				if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write("t.jsonl", string(quick))
			// The config fails the run: a threshold no replay meets.
			write(name, "speed: fast\nthresholds:\n  - \"throughput>1000000000\"\n")
			res := replayctlAt(t, dir, "run", "t.jsonl")
			header, _, _ := strings.Cut(res.stdout, "\n")
			if res.code != 1 || !strings.Contains(header, "fast") || !strings.Contains(header, "config "+name) {
				t.Errorf("found %s: exit %d, header %q; want exit 1 (its threshold), fast and config %s\n%s", name, res.code, header, name, res.stderr)
			}
			js := replayctlAt(t, dir, "run", "t.jsonl", "-o", "json")
			if !strings.Contains(js.stdout, `"config": "`+name+`"`) {
				t.Errorf("the JSON report does not name %s:\n%.400s", name, js.stdout)
			}
			none := replayctlAt(t, dir, "run", "t.jsonl", "--config", "none", "--speed", "fast")
			if none.code != 0 || strings.Contains(none.stdout, "config ") {
				t.Errorf("--config none: exit %d, want 0 and no config named\n%s%s", none.code, none.stdout, none.stderr)
			}
			write(name, "sped: fast\n")
			bad := replayctlAt(t, dir, "run", "t.jsonl")
			if bad.code != 2 || !strings.Contains(bad.stderr, name+" line 1") {
				t.Errorf("a bad %s: exit %d, want 2 naming it and the line\n%s", name, bad.code, bad.stderr)
			}
		})
	}
	dir := t.TempDir()
	for _, name := range append(configNames, "t.jsonl") {
		if err := os.WriteFile(filepath.Join(dir, name), quick, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if res := replayctlAt(t, dir, "run", "t.jsonl"); res.code != 2 || !strings.Contains(res.stderr, "--config") {
		t.Errorf("both files: exit %d, want 2 and the way out\n%s", res.code, res.stderr)
	}
}
