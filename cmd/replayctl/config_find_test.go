package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// TestConfigCheckListsEveryError: config check reports every error of a
// file in one go, in file order, not the first alone: the keys that fail
// to decode, or, when all decode, each section's and rule's failed check.
func TestConfigCheckListsEveryError(t *testing.T) {
	dir := t.TempDir()
	decode := filepath.Join(dir, "decode.yaml")
	checks := filepath.Join(dir, "checks.yaml")
	for path, s := range map[string]string{
		decode: "sped: fast\nvalidation:\n  tolerance:\n    numeric: lots\ntransformations:\n  - name: a\n    condition: { seq: x }\n    action: { nope: 1 }\n",
		checks: "speed: 10y\nvalidation:\n  mode: exactly\ntransformations:\n  - name: a\n    condition: {}\n    action: { drop: true }\n",
	} {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		path  string
		lines []int
		words []string
	}{
		{decode, []int{1, 4, 7, 8}, []string{`"sped"`, "numeric", "seq", `"nope"`}},
		{checks, []int{1, 3, 6}, []string{`"10y"`, `"exactly"`, "no condition"}},
	} {
		res := replayctl(t, "config", "check", tc.path)
		if res.code != 2 {
			t.Errorf("%s: exit %d, want 2\n%s", tc.path, res.code, res.stderr)
		}
		last := -1
		for i, w := range tc.words {
			at := strings.Index(res.stderr, fmt.Sprintf("line %d: ", tc.lines[i]))
			if at < 0 || !strings.Contains(res.stderr[at:], w) || at < last {
				t.Errorf("%s: stderr lacks line %d (%s) in file order:\n%s", tc.path, tc.lines[i], w, res.stderr)
			}
			last = at
		}
		if !strings.Contains(res.stderr, fmt.Sprintf("%d errors in %s", len(tc.lines), tc.path)) {
			t.Errorf("%s: stderr does not count %d errors:\n%s", tc.path, len(tc.lines), res.stderr)
		}
		js := replayctl(t, "config", "check", tc.path, "-o", "json")
		var got struct {
			OK     bool `json:"ok"`
			Line   int  `json:"line"`
			Errors []struct {
				Line int `json:"line"`
			} `json:"errors"`
		}
		if err := json.Unmarshal([]byte(js.stdout), &got); err != nil {
			t.Fatalf("-o json: %v\n%s", err, js.stdout)
		}
		var lines []int
		for _, e := range got.Errors {
			lines = append(lines, e.Line)
		}
		if js.code != 2 || got.OK || got.Line != tc.lines[0] || !slices.Equal(lines, tc.lines) {
			t.Errorf("%s -o json: exit %d, %+v; want exit 2 and errors at lines %v", tc.path, js.code, got, tc.lines)
		}
	}
}
