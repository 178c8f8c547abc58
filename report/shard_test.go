package report

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// shardReport is the report of shard (nil: a whole run) with a few
// results, as read back from its JSON.
func shardReport(t *testing.T, shard *Shard) *Report {
	t.Helper()
	c := NewCollector(WithRunID("run"))
	c.Start(at(-time.Second))
	for _, r := range microResults(20) {
		c.Add(r)
	}
	return throughJSON(t, c.Report(Meta{Tape: "t.jsonl", Shard: shard}))
}

func TestMergeShards(t *testing.T) {
	sh := func(i, n int) *Shard { return &Shard{Index: i, Count: n} }
	for _, tc := range []struct {
		name    string
		shards  []*Shard
		err     string // "" merges
		missing []int
		warning string
	}{
		{"all of 3", []*Shard{sh(0, 3), sh(2, 3), sh(1, 3)}, "", nil, ""},
		{"one of 1", []*Shard{sh(0, 1)}, "", nil, ""},
		{"one missing", []*Shard{sh(0, 4), sh(1, 4), sh(2, 4)}, "", []int{3}, "shard 3/4 missing"},
		{"two missing", []*Shard{sh(2, 4), sh(0, 4)}, "", []int{1, 3}, "shards 1/4, 3/4 missing"},
		{"different counts", []*Shard{sh(0, 2), sh(1, 3)}, "shards of different counts", nil, ""},
		{"a shard twice", []*Shard{sh(1, 3), sh(0, 3), sh(1, 3)}, "are both shard 1/3", nil, ""},
		{"a shard and a whole run", []*Shard{sh(0, 2), nil}, "is a whole run and", nil, ""},
		{"whole runs", []*Shard{nil, nil}, "", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var reports []*Report
			for i, s := range tc.shards {
				r := shardReport(t, s)
				if s == nil { // whole runs have run_ids of their own
					r.Summary.RunID = fmt.Sprint("run ", i)
				}
				reports = append(reports, r)
			}
			got, err := Merge(reports)
			if tc.err != "" {
				if err == nil || !errors.Is(err, ErrBadReport) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Merge = %v, want ErrBadReport saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.shards[0] == nil {
				if got.Summary.Shards != nil {
					t.Errorf("whole runs merged: summary.shards %+v, want none", got.Summary.Shards)
				}
				return
			}
			if s := got.Summary.Shards; s == nil || !slices.Equal(s.Missing, tc.missing) || len(s.Merged) != len(tc.shards) {
				t.Errorf("summary.shards = %+v, want %d merged, missing %v", s, len(tc.shards), tc.missing)
			}
			hasWarning := slices.ContainsFunc(got.Summary.Warnings, func(w string) bool { return tc.warning != "" && strings.HasPrefix(w, tc.warning) })
			if (tc.warning != "") != hasWarning {
				t.Errorf("warnings %q, want one starting %q", got.Summary.Warnings, tc.warning)
			}
			var text bytes.Buffer
			if err := got.WriteText(&text, false); err != nil {
				t.Fatal(err)
			}
			if head := fmt.Sprintf("%d of %d shards merged", len(tc.shards), tc.shards[0].Count); !strings.Contains(text.String(), head) {
				t.Errorf("text summary does not say %q:\n%s", head, text.String())
			}
			if got.Summary.Sent != reports[0].Summary.Sent*int64(len(reports)) {
				t.Errorf("merged sent %d, want the sum %d", got.Summary.Sent, reports[0].Summary.Sent*int64(len(reports)))
			}
		})
	}
}

// TestEmptyShardPasses: a shard with no session checked nothing, and
// passes: it did its part.
func TestEmptyShardPasses(t *testing.T) {
	c := NewCollector()
	r := c.Report(Meta{Tape: "t.jsonl", TotalMessages: 3, Shard: &Shard{Index: 4, Count: 5, Empty: true}})
	if !r.Passed() || r.Summary.NothingChecked != "" {
		t.Errorf("empty shard: passed %t, nothing_checked %q; want it to pass", r.Passed(), r.Summary.NothingChecked)
	}
	r = c.Report(Meta{Tape: "t.jsonl", TotalMessages: 3})
	if r.Passed() {
		t.Error("a whole run that checked nothing passes")
	}
}

// TestShardTextSaysTheTape: a shard's text report counts the tape's
// messages, as a whole run's does (a shard reads the whole tape), and a
// merge that misses shards names them above its figures.
func TestShardTextSaysTheTape(t *testing.T) {
	r := NewCollector().Report(Meta{Tape: "t.jsonl", TotalMessages: 6, Shard: &Shard{Index: 2, Count: 3}})
	var b strings.Builder
	if err := r.WriteText(&b, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "(6 on tape)") {
		t.Errorf("shard text report:\n%s\nwant %q", b.String(), "(6 on tape)")
	}
	r.Summary.Shard, r.Summary.Shards = nil, &MergedShards{Count: 3, Merged: []int{1}, Missing: []int{0, 2}}
	b.Reset()
	if err := r.WriteText(&b, false); err != nil {
		t.Fatal(err)
	}
	want := "shards      1 of 3 merged, missing 0/3, 2/3: "
	if at := strings.Index(b.String(), want); at < 0 || at > strings.Index(b.String(), "messages") {
		t.Errorf("merged text report:\n%s\nwant %q above the messages", b.String(), want)
	}
}
