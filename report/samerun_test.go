package report

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMergeSameRunTwice: a whole run's report given twice (the same
// report, a copy of it read from another file: one run_id) would count
// every result twice; Merge refuses it, naming both reports and the
// run_id, as it refuses a shard given twice. Whole runs of their own
// run_ids, and the shards of one run (which share its run_id), merge.
func TestMergeSameRunTwice(t *testing.T) {
	run := func(id string) *Report {
		c := NewCollector(WithRunID(id))
		c.Start(at(-time.Second))
		for _, r := range microResults(20) {
			c.Add(r)
		}
		return throughJSON(t, c.Report(Meta{Tape: "t.jsonl"}))
	}
	a, b := run("run-a"), run("run-b")
	dir := t.TempDir()
	var files []string
	for _, name := range []string{"a.json", "copy.json"} {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.WriteJSON(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
		files = append(files, p)
	}
	var read []*Report
	for _, p := range files {
		r, err := Read(p)
		if err != nil {
			t.Fatal(err)
		}
		read = append(read, r)
	}
	for _, tc := range []struct {
		name    string
		reports []*Report
		want    string // "" merges
	}{
		{"the same report", []*Report{a, b, a}, "report 1 and report 3 are the same run (run_id run-a): give each run once"},
		{"a copy in another file", read, "report " + files[0] + " and report " + files[1] + " are the same run (run_id run-a)"},
		{"two runs", []*Report{a, b}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Merge(tc.reports)
			if tc.want == "" {
				if err != nil || m.Summary.Sent != a.Summary.Sent+b.Summary.Sent {
					t.Fatalf("Merge = %v; want the two runs merged", err)
				}
				return
			}
			if !errors.Is(err, ErrSameRun) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Merge = %v, want ErrSameRun saying %q", err, tc.want)
			}
		})
	}
}
