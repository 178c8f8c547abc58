package report

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadNotAReport: JSON that is not a replayctl report ({}, an array,
// another tool's object, a tape line) is refused with ErrBadReport and
// what to give instead; it was read as an empty report ("Replay of -"),
// and replayctl report printed it and exited 0. A real report always has
// a summary (and so has a shrink's chaos plan, which --chaos-from reads;
// and so has compare's report, which is told by its margins).
func TestReadNotAReport(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, doc string }{
		{"empty object", `{}`},
		{"array", `[]`},
		{"other object", `{"a":1}`},
		{"null", `null`},
		{"tape line", `{"seq":0,"session":"s1","dir":"send","ts":"2026-01-01T00:00:00Z","msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}`},
		// compare's report has a summary too, of other figures: it was read
		// as an empty replay ("Replay of -", FAIL) and report exited 0.
		{"compare report", `{"tape":"v.jsonl","runs":[{"role":"primary","target":"/tmp/volatile","status":1,"answers":61,"duration_ms":250}],"margins":{"relative":20,"absolute":0.03},"summary":{"compared":61,"endpoints":3,"changed":0,"noise":4,"latency_changed":3,"target_failed":0},"changed":[],"paths":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, "x.json")
			if err := os.WriteFile(p, []byte(tc.doc+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := Read(p)
			if !errors.Is(err, ErrBadReport) {
				t.Fatalf("Read(%s): got err %v (a report: %t); want ErrBadReport", tc.doc, err, r != nil)
			}
			for _, w := range []string{"report " + p + ": not a replayctl report", "--report"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Read(%s): %q; want it to say %q", tc.doc, err, w)
				}
			}
		})
	}
	// A real report, written and read back, still reads.
	p := filepath.Join(dir, "real.json")
	if err := WriteFile(p, sampleReport()); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(p); err != nil {
		t.Errorf("Read(a real report): %v", err)
	}
}

// TestReadWholeRefusesAPartOfAReport: an object with a summary but not
// what every report has (the report contract: summary's tape, sessions,
// counts, duration and success rate, performance, validation's counts)
// is refused by ReadWhole, which report and merge read with, naming what
// it lacks; {"summary":{}} was read as an empty report. Every report
// replayctl writes, a merged one and one of the first version (no
// run_id, no held_ms) still reads; Read still takes a shrink's chaos
// plan, which --chaos-from reads.
func TestReadWholeRefusesAPartOfAReport(t *testing.T) {
	dir := t.TempDir()
	write := func(name, doc string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	real := filepath.Join(dir, "real.json")
	if err := WriteFile(real, sampleReport()); err != nil {
		t.Fatal(err)
	}
	realDoc, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	without := func(section string) string { // realDoc with section removed
		var m map[string]json.RawMessage
		if err := json.Unmarshal(realDoc, &m); err != nil {
			t.Fatal(err)
		}
		delete(m, section)
		b, _ := json.Marshal(m)
		return string(b)
	}
	plan := `{"summary":{"tape":"a.jsonl"},"chaos":{"seed":1,"faults":[]}}`
	for _, tc := range []struct{ name, doc, lacks string }{
		{"empty summary", `{"summary":{}}`, "summary.tape, summary.sessions, summary.total_messages, summary.sent and 6 more"},
		{"summary with a tape", `{"summary":{"tape":"a.jsonl","sessions":1}}`, "summary.total_messages"},
		{"a shrink's chaos plan", plan, "summary.sessions"},
		{"no performance", without("performance"), "it has no performance, which every report has"},
		{"no validation", without("validation"), "it has no validation, which every report has"},
		{"null count", strings.Replace(string(realDoc), `"checked": 3`, `"checked": null`, 1), "it has no validation.checked, which"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := write("x.json", tc.doc)
			r, err := ReadWhole(p)
			if !errors.Is(err, ErrBadReport) {
				t.Fatalf("ReadWhole(%s): got err %v (a report: %t); want ErrBadReport", tc.doc, err, r != nil)
			}
			for _, w := range []string{"report " + p + ": not a replayctl report", tc.lacks, "--report"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("ReadWhole(%s): %q; want it to say %q", tc.doc, err, w)
				}
			}
		})
	}
	other := NewCollector(WithRunID("other")).Report(Meta{Tape: "weather.jsonl"}) // a run that sent nothing: zeros, all there
	otherPath := filepath.Join(dir, "empty-run.json")
	if err := WriteFile(otherPath, other); err != nil {
		t.Fatal(err)
	}
	a, b := sampleReport(), sampleReport()
	b.Summary.RunID = "second"
	merged, err := Merge([]*Report{&a, &b}, AllowDifferentTapes())
	if err != nil {
		t.Fatal(err)
	}
	mergedPath := filepath.Join(dir, "merged.json")
	if err := WriteFile(mergedPath, *merged); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{real, otherPath, mergedPath, "testdata/report.json.golden", "testdata/first-version.json"} {
		if _, err := ReadWhole(p); err != nil {
			t.Errorf("ReadWhole(a report): %v", err)
		}
	}
	if _, err := Read(write("plan.json", plan)); err != nil {
		t.Errorf("Read(a shrink's chaos plan): %v", err)
	}
}
