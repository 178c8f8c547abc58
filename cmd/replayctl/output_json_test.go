package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInspectJSON: inspect -o json is JSON Lines: the header first, one
// object per message with the table's fields, the end with the count.
func TestInspectJSON(t *testing.T) {
	res := replayctl(t, "inspect", "examples/quickstart.jsonl", "-o", "json")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(res.stdout))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %d is not a JSON object: %v\n%s", len(lines)+1, err, sc.Text())
		}
		lines = append(lines, m)
	}
	if got, want := len(lines), 1+18+1; got != want {
		t.Fatalf("got %d lines, want %d (header, 18 messages, end)\n%s", got, want, res.stdout)
	}
	h, first, end := lines[0], lines[1], lines[len(lines)-1]
	if h["type"] != "header" || h["protocol_version"] != "2025-06-18" || h["era"] != "session-based" || h["transport"] != "stdio" || h["path"] != "examples/quickstart.jsonl" {
		t.Errorf("header: got %v", h)
	}
	if first["type"] != "message" || first["seq"] != 0.0 || first["dir"] != "c2s" || first["kind"] != "request" ||
		first["method"] != "initialize" || first["id"] != 0.0 || first["bytes"] != 205.0 || first["session"] != "s1" {
		t.Errorf("first message: got %v", first)
	}
	if end["type"] != "end" || end["messages"] != 18.0 {
		t.Errorf("end: got %v, want 18 messages", end)
	}
	if r := replayctl(t, "inspect", "examples/quickstart.jsonl", "-o", "yaml"); r.code != 2 || !strings.Contains(r.stderr, `-o "yaml"`) {
		t.Errorf("-o yaml: got exit %d, stderr %q, want 2 naming it", r.code, r.stderr)
	}
}

// TestConfigCheckJSON: config check -o json says ok and the counts, or
// the first error with the file, its line and key, and every error in
// errors; exit 0 or 2 as in text.
func TestConfigCheckJSON(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	typo := write("typo.yaml", "speed: fast\nvalidaton: {}\n")
	rule := write("rule.yaml", "transformations:\n  - name: x\n    condition: {method: tools/call}\n    action: {set_param: {path: \"a..b\", value: 1}}\n")
	for _, tc := range []struct {
		name     string
		args     []string
		wantCode int
		want     configCheck
	}{
		{"ok", []string{"examples/load.yaml"}, 0, configCheck{OK: true, File: "examples/load.yaml", For: "run", ConfigCounts: &ConfigCounts{Thresholds: 4}}},
		{"ok for debug", []string{"--for", "debug", "examples/debug.yaml"}, 0,
			configCheck{OK: true, File: "examples/debug.yaml", For: "debug", ConfigCounts: &ConfigCounts{Transformations: 1, ValidationRules: 2}}},
		{"unknown key", []string{typo}, 2, configCheck{File: typo, For: "run", Line: 2}},
		{"bad rule", []string{rule}, 2, configCheck{File: rule, For: "run", Line: 2, Key: "transformations[0]"}},
		{"debug's file for run", []string{"examples/debug.yaml"}, 2, configCheck{File: "examples/debug.yaml", For: "run", Key: "error_handling.strategy"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := replayctl(t, append([]string{"config", "check", "-o", "json"}, tc.args...)...)
			if r.code != tc.wantCode {
				t.Errorf("got exit %d, want %d (stderr %q)", r.code, tc.wantCode, r.stderr)
			}
			var got configCheck
			if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, r.stdout)
			}
			if (got.Error != "") == got.OK || (got.Error != "" && !strings.Contains(got.Error, filepath.Base(tc.want.File))) {
				t.Errorf("error %q with ok %v: want an error naming the file exactly when not ok", got.Error, got.OK)
			}
			// Each file here has one error: errors lists it, with the
			// same line, key and text as the first error's fields.
			if !got.OK && (len(got.Errors) != 1 || got.Errors[0].Line != got.Line || got.Errors[0].Key != got.Key || got.Errors[0].Error != got.Error) {
				t.Errorf("errors %+v: want the one error, as line %d, key %q, error %q", got.Errors, got.Line, got.Key, got.Error)
			}
			got.Error, got.Errors = "", nil
			gotJSON, _ := json.Marshal(got)
			wantJSON, _ := json.Marshal(tc.want)
			if string(gotJSON) != string(wantJSON) {
				t.Errorf("got %s, want %s", gotJSON, wantJSON)
			}
		})
	}
}
