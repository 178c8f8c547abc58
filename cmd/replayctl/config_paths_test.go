package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigCheckPathErrors: config check lists every path of a config
// that does not parse, each with its line, its key (index and all) and
// the column of the fault, and says "bad path", not "ignore pattern",
// for a required field; run --config refuses the file the same way.
func TestConfigCheckPathErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.yaml")
	yaml := `validation:
  ignore_fields:
    - "$.a b"
    - "$.ok"
    - "$.x["
  rules:
    - scope: {always: true}
      required_fields: ["$.c d"]
      ignore_fields:
        - "$.."
`
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line int
		key  string
		src  string
	}{
		{3, "validation.ignore_fields[0]", `"$.a b"`},
		{5, "validation.ignore_fields[2]", `"$.x["`},
		{8, "validation.rules[0].required_fields[0]", `"$.c d"`},
		{10, "validation.rules[0].ignore_fields[0]", `"$.."`},
	}
	res := replayctl(t, "config", "check", path)
	if res.code != 2 {
		t.Errorf("config check: exit %d, want 2\n%s", res.code, res.stderr)
	}
	for _, w := range want {
		head := fmt.Sprintf("%s line %d: %s: bad path %s: column ", path, w.line, w.key, w.src)
		if !strings.Contains(res.stderr, head) {
			t.Errorf("config check: stderr lacks %q:\n%s", head, res.stderr)
		}
	}
	if !strings.Contains(res.stderr, fmt.Sprintf("%d errors in %s", len(want), path)) {
		t.Errorf("config check: stderr does not count %d errors:\n%s", len(want), res.stderr)
	}
	if strings.Contains(res.stderr, "ignore pattern") {
		t.Errorf("config check: a required field called an ignore pattern:\n%s", res.stderr)
	}
	js := replayctl(t, "config", "check", path, "-o", "json")
	var got struct {
		Errors []struct {
			Line int    `json:"line"`
			Key  string `json:"key"`
		} `json:"errors"`
	}
	if err := json.Unmarshal([]byte(js.stdout), &got); err != nil {
		t.Fatalf("-o json: %v\n%s", err, js.stdout)
	}
	if js.code != 2 || len(got.Errors) != len(want) {
		t.Fatalf("-o json: exit %d, %d errors %+v; want exit 2 and %d", js.code, len(got.Errors), got.Errors, len(want))
	}
	for i, w := range want {
		if got.Errors[i].Line != w.line || got.Errors[i].Key != w.key {
			t.Errorf("-o json error %d: line %d key %q, want line %d key %q", i, got.Errors[i].Line, got.Errors[i].Key, w.line, w.key)
		}
	}
	run := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--config", path)
	head := fmt.Sprintf("%s line 3: validation.ignore_fields[0]: bad path", path)
	if run.code != 2 || !strings.Contains(run.stderr, head) {
		t.Errorf("run --config: exit %d, want 2 and %q:\n%s", run.code, head, run.stderr)
	}
}

// TestConfigCheckWarnsIgnoreRoot: ignore_fields "$" ignores every
// answer whole; config check accepts the file with a warning that says
// so, and run logs it.
func TestConfigCheckWarnsIgnoreRoot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.yaml")
	if err := os.WriteFile(path, []byte("validation:\n  ignore_fields: [\"$\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := replayctl(t, "config", "check", path)
	head := fmt.Sprintf("warning: %s line 2: validation.ignore_fields[0]: ", path)
	if res.code != 0 || !strings.Contains(res.stderr, head) || !strings.Contains(res.stderr, "whole answer") {
		t.Errorf("config check: exit %d, want 0 and a warning %q…whole answer:\n%s", res.code, head, res.stderr)
	}
	run := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--config", path)
	if run.code != 0 || !strings.Contains(run.stderr, "validation.ignore_fields[0]") || !strings.Contains(run.stderr, "whole answer") {
		t.Errorf("run --config: exit %d, want 0 and the warning logged:\n%s", run.code, run.stderr)
	}
}
