package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportNotAReport: report and merge refuse JSON that is not a
// replayctl report with exit 2, naming the file and what to give; report
// printed an empty one ("Replay of -", "tape  holds no MCP message") and
// exited 0.
func TestReportNotAReport(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.json")
	if res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--report", real); res.code != 0 {
		t.Fatalf("run --report: exit %d\n%s", res.code, res.stderr)
	}
	tapeLine, err := os.ReadFile("../../examples/quickstart.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(tapeLine), "\n")
	for _, doc := range []string{`{}`, `[]`, `{"a":1}`, line, `{"summary":{}}`, `{"summary":{"tape":"quickstart.jsonl"},"chaos":{"seed":1,"faults":[]}}`} {
		p := filepath.Join(dir, "x.json")
		if err := os.WriteFile(p, []byte(doc+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"report", p}, {"merge", real, p}} {
			res := replayctl(t, args...)
			want := "report " + p + ": not a replayctl report"
			if res.code != 2 || !strings.Contains(res.stderr, want) || !strings.Contains(res.stderr, "--report") || strings.Contains(res.stdout, "Replay of") {
				t.Errorf("%v with %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", args, doc, res.code, res.stdout, res.stderr, want)
			}
		}
	}
	if res := replayctl(t, "report", real); res.code != 0 || !strings.Contains(res.stdout, "Replay of") {
		t.Errorf("report of a real report: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
}

// TestReportOfACompareReport: the JSON report compare writes has a
// summary too, of other figures; report printed it as an empty replay
// ("Replay of -", "0 sent", FAIL) and exited 0. Both report and merge now
// refuse it, exit 2, saying compare wrote it.
func TestReportOfACompareReport(t *testing.T) {
	dir := t.TempDir()
	real, cmp := filepath.Join(dir, "real.json"), filepath.Join(dir, "compare.json")
	if res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--report", real); res.code != 0 {
		t.Fatalf("run --report: exit %d\n%s", res.code, res.stderr)
	}
	tp := volatileCLITape(t)
	if res := replayctl(t, "compare", tp, "--primary", cmdTarget(t), "--candidate", cmdTarget(t), "--report", cmp); res.code != 0 {
		t.Fatalf("compare --report: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	for _, args := range [][]string{{"report", cmp}, {"merge", real, cmp}} {
		res := replayctl(t, args...)
		want := "report " + cmp + ": not a replayctl report (replayctl compare wrote it"
		if res.code != 2 || !strings.Contains(res.stderr, want) || strings.Contains(res.stdout, "Replay of") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", args, res.code, res.stdout, res.stderr, want)
		}
	}
}

// TestReportTakesEveryReport: every kind of report replayctl writes (a
// run's, a paced load's, a chaos run's, a merge's, the same on stdin) is
// a report to report and merge, which refuse a part of one (see
// TestReportNotAReport).
func TestReportTakesEveryReport(t *testing.T) {
	dir := t.TempDir()
	reports := map[string][]string{
		"run":   {"--speed", "fast"},
		"load":  {"--speed", "rps:200", "--sessions", "2"},
		"chaos": {"--speed", "fast", "--chaos", "malformed=0.3", "--seed", "7"},
	}
	var paths []string
	for name, args := range reports {
		p := filepath.Join(dir, name+".json")
		res := replayctl(t, append([]string{"run", "examples/quickstart.jsonl", "--report", p}, args...)...)
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("run %v: exit %d, no report: %v\n%s", args, res.code, err, res.stderr)
		}
		paths = append(paths, p)
	}
	merged := filepath.Join(dir, "merged.json")
	if res := replayctl(t, append([]string{"merge", "--allow-different-tapes", "--report", merged}, paths...)...); res.code != 0 {
		t.Fatalf("merge: exit %d\n%s", res.code, res.stderr)
	}
	for _, p := range append(paths, merged) {
		if res := replayctl(t, "report", p); res.code != 0 || !strings.Contains(res.stdout, "Replay of") {
			t.Errorf("report %s: exit %d\n%s%s", filepath.Base(p), res.code, res.stdout, res.stderr)
		}
		doc, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if res := replayctlIn(t, string(doc), "report", "-"); res.code != 0 || !strings.Contains(res.stdout, "Replay of") {
			t.Errorf("report - < %s: exit %d\n%s%s", filepath.Base(p), res.code, res.stdout, res.stderr)
		}
	}
	res := replayctlIn(t, `{"summary":{}}`, "report", "-")
	if want := "report on stdin: not a replayctl report (it has no summary.tape"; res.code != 2 || !strings.Contains(res.stderr, want) {
		t.Errorf("report - < {\"summary\":{}}: exit %d, stderr %q; want exit 2 and %q", res.code, res.stderr, want)
	}
}
