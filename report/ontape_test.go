package report

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestMergeOnTape: "on tape" (summary.total_messages) is how many
// messages the tape holds. Every run of a tape reads all of it, as
// every shard does: whole runs of one tape merged count it once, as
// shards do, not once per run; reports of different tapes (allowed)
// count each tape once. Sent, skipped and the rest add up.
func TestMergeOnTape(t *testing.T) {
	run := func(id, tape string, total int64, shard *Shard) *Report {
		c := NewCollector(WithRunID(id))
		c.Start(at(-time.Second))
		for _, r := range microResults(20) {
			c.Add(r)
		}
		return throughJSON(t, c.Report(Meta{Tape: tape, TotalMessages: total, Skipped: 1, Shard: shard}))
	}
	for _, tc := range []struct {
		name    string
		reports []*Report
		opts    []MergeOption
		want    int64
	}{
		{"two whole runs", []*Report{run("a", "t.jsonl", 18, nil), run("b", "t.jsonl", 18, nil)}, nil, 18},
		{"three whole runs", []*Report{run("a", "t.jsonl", 18, nil), run("b", "t.jsonl", 18, nil), run("c", "t.jsonl", 18, nil)}, nil, 18},
		{"two shards", []*Report{run("a", "t.jsonl", 18, &Shard{Index: 0, Count: 2}), run("a", "t.jsonl", 18, &Shard{Index: 1, Count: 2})}, nil, 18},
		{"runs of two tapes", []*Report{run("a", "t.jsonl", 18, nil), run("b", "u.jsonl", 10, nil), run("c", "t.jsonl", 18, nil)}, []MergeOption{AllowDifferentTapes()}, 28},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Merge(tc.reports, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if m.Summary.TotalMessages != tc.want {
				t.Errorf("total_messages %d, want %d", m.Summary.TotalMessages, tc.want)
			}
			n := int64(len(tc.reports))
			one := tc.reports[0].Summary
			if m.Summary.Sent != n*one.Sent || m.Summary.Skipped != n*one.Skipped {
				t.Errorf("sent %d, skipped %d; want %d and %d (summed)", m.Summary.Sent, m.Summary.Skipped, n*one.Sent, n*one.Skipped)
			}
			var b strings.Builder
			if err := m.WriteText(&b, false); err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf("(%d on tape)", tc.want); !strings.Contains(b.String(), want) {
				t.Errorf("text summary does not say (%d on tape):\n%s", tc.want, b.String())
			}
		})
	}
}
