package report

import (
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
