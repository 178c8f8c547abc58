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
// a summary (and so has a shrink's chaos plan, which --chaos-from reads).
func TestReadNotAReport(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, doc string }{
		{"empty object", `{}`},
		{"array", `[]`},
		{"other object", `{"a":1}`},
		{"null", `null`},
		{"tape line", `{"seq":0,"session":"s1","dir":"send","ts":"2026-01-01T00:00:00Z","msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}`},
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
