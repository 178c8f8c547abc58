package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/report"
)

// The shards of a run each say the tape's own count of messages, and a
// merge says it once: the tape has 18 messages, whichever shards are
// merged. A merge that misses shards names them above its figures.
func TestShardFiguresOfTheTape(t *testing.T) {
	dir := t.TempDir()
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--sessions", "200", "--speed", "fast", "-q",
		"--local-shards", "4", "--shard-reports", dir)
	if res.code != 0 {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
	shard := func(i string) string { return filepath.Join(dir, "shard-"+i+"-of-4.json") }
	for _, tc := range []struct {
		name    string
		args    []string
		missing string // "": none
	}{
		{"one shard", []string{shard("0")}, "1/4, 2/4, 3/4"},
		{"two shards", []string{shard("0"), shard("2")}, "1/4, 3/4"},
		{"every shard", []string{shard("0"), shard("1"), shard("2"), shard("3")}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := replayctl(t, append([]string{"merge"}, tc.args...)...)
			want := 0
			if tc.missing != "" {
				want = 1 // a merge lacking shards does not pass
			}
			if m.code != want {
				t.Fatalf("merge: exit %d, want %d\n%s", m.code, want, m.stderr)
			}
			if !strings.Contains(m.stdout, "(18 on tape)") {
				t.Errorf("merge: want the tape's 18 messages on tape:\n%s", m.stdout)
			}
			messages := strings.Index(m.stdout, "  messages ")
			at := strings.Index(m.stdout, "missing "+tc.missing)
			switch {
			case tc.missing == "" && strings.Contains(m.stdout, "missing"):
				t.Errorf("merge of every shard says some are missing:\n%s", m.stdout)
			case tc.missing != "" && (at < 0 || at > messages):
				t.Errorf("merge: want %q above the figures:\n%s", "missing "+tc.missing, m.stdout)
			}
		})
	}
	one := decodeReport(t, readFile(t, shard("1")))
	if one.Summary.TotalMessages != 18 {
		t.Errorf("shard 1/4's total_messages %d, want the tape's 18", one.Summary.TotalMessages)
	}
}

// TestMergeMissingShardsDoesNotPass: a merge that lacks shards of the
// run is not the run's verdict: exit 1, its result saying incomplete and
// naming the missing shards, as --local-shards fails when a shard is
// lost; --allow-partial accepts the partial merge, judged on the shards
// it has, and the report says it was accepted.
func TestMergeMissingShardsDoesNotPass(t *testing.T) {
	dir := t.TempDir()
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--sessions", "8", "--speed", "fast", "-q",
		"--local-shards", "4", "--shard-reports", dir)
	if res.code != 0 {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
	s0, s2 := filepath.Join(dir, "shard-0-of-4.json"), filepath.Join(dir, "shard-2-of-4.json")
	m := replayctl(t, "merge", s0, s2)
	if m.code != 1 || !strings.Contains(m.stdout, "FAIL (incomplete: shards 1/4, 3/4 missing") || strings.Contains(m.stdout, "PASS") {
		t.Errorf("merge of shards 0 and 2 of 4: exit %d, want 1 and the result incomplete, naming 1/4 and 3/4:\n%s\n%s", m.code, m.stdout, m.stderr)
	}
	p := replayctl(t, "merge", s0, s2, "--allow-partial", "-o", "json")
	if p.code != 0 {
		t.Fatalf("merge --allow-partial: exit %d, want 0\n%s\n%s", p.code, p.stdout, p.stderr)
	}
	var rep struct {
		Summary struct {
			Passed bool `json:"passed"`
			Shards *struct {
				report.MergedShards
				Partial bool `json:"partial"`
			} `json:"shards"`
		} `json:"summary"`
	}
	decodeJSON(t, p.stdout, &rep)
	if s := rep.Summary.Shards; !rep.Summary.Passed || s == nil || !s.Partial || !slices.Equal(s.Missing, []int{1, 3}) {
		t.Errorf("merge --allow-partial: passed %t, summary.shards %+v; want passed, partial, missing [1 3]", rep.Summary.Passed, s)
	}
}
