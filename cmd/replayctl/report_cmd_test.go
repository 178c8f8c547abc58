package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestReportRerender: report re-renders a saved JSON report: the same
// text summary run printed, the same JSON, the report files by
// extension, from a file or stdin; a file that is not a report is exit 2.
func TestReportRerender(t *testing.T) {
	dir := t.TempDir()
	saved := filepath.Join(dir, "run.json")
	run := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--report", saved)
	if run.code != 0 {
		t.Fatalf("run: exit %d\n%s", run.code, run.stderr)
	}
	text := replayctl(t, "report", saved)
	if text.code != 0 || text.stdout != run.stdout {
		t.Errorf("report: exit %d, stdout\n%s\nwant run's summary\n%s\nstderr: %s", text.code, text.stdout, run.stdout, text.stderr)
	}
	html, xml := filepath.Join(dir, "run.html"), filepath.Join(dir, "junit.xml")
	js := replayctl(t, "report", saved, "-o", "json", "--report", html, "--report", xml)
	if js.code != 0 {
		t.Fatalf("report -o json: exit %d\n%s", js.code, js.stderr)
	}
	file, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	var got, want any
	if err := json.Unmarshal([]byte(js.stdout), &got); err != nil {
		t.Fatalf("-o json is not JSON: %v\n%s", err, js.stdout)
	}
	if err := json.Unmarshal(file, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("report -o json differs from the saved report\ngot  %s\nwant %s", js.stdout, file)
	}
	for path, start := range map[string]string{html: "<!DOCTYPE html>", xml: "<?xml"} {
		b, err := os.ReadFile(path)
		if err != nil || !strings.HasPrefix(strings.TrimSpace(string(b)), start) {
			t.Errorf("%s: %v, starts %.40q, want %q", path, err, b, start)
		}
	}
	stdin := replayctlIn(t, string(file), "report", "-")
	if stdin.code != 0 || stdin.stdout != run.stdout {
		t.Errorf("report -: exit %d, stdout\n%s\nwant run's summary\nstderr: %s", stdin.code, stdin.stdout, stdin.stderr)
	}
	bad := replayctl(t, "report", "examples/quickstart.jsonl")
	if bad.code != 2 || !strings.Contains(bad.stderr, "examples/quickstart.jsonl") || !strings.Contains(bad.stderr, "line 2") {
		t.Errorf("a tape as the report: exit %d, want 2 naming the file and line\nstderr: %s", bad.code, bad.stderr)
	}
	if res := replayctl(t, "report", saved, "--report", filepath.Join(dir, "run.txt")); res.code != 2 {
		t.Errorf("--report run.txt: exit %d, want 2\n%s", res.code, res.stderr)
	}
}
