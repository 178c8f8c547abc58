package history_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/replayctl/replayctl/history"
)

// TestKeepGatesRecordsAndLinks keeps three runs of one tape with Keep:
// each is recorded (its history section names runs 1, 2, 3 of the tape)
// with the new-failure gate judged and passed, and a regression budget
// judged against the earlier runs.
func TestKeepGatesRecordsAndLinks(t *testing.T) {
	f := newFixture(t, 2, "echo")
	dir := t.TempDir()
	budget, err := history.ParseBudget("error_rate+0.5pt")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		rep := f.run(t)
		err := history.Keep(context.Background(), dir, f.tape, rep,
			history.Budgets(5, 0, budget), history.GateNewFailures(), history.QuarantineFlaky(0),
			history.RunInfo("v1", map[string]string{"speed": "fast"}))
		if err != nil {
			t.Fatalf("run %d: %v", i+1, err)
		}
		if rep.History == nil || rep.History.Run != int64(i+1) || rep.History.TapeHash != f.hash {
			t.Fatalf("run %d: history section %+v, want run %d of tape %s", i+1, rep.History, i+1, f.hash)
		}
		got := map[string]bool{}
		for _, r := range rep.Thresholds {
			got[r.Expr] = r.Passed
		}
		if !got["new_failures==0"] || len(rep.Thresholds) != 2 {
			t.Errorf("run %d: thresholds %+v, want the budget and new_failures==0, passed", i+1, rep.Thresholds)
		}
		if !rep.Passed() || !rep.Summary.Passed {
			t.Errorf("run %d: not passed: %+v", i+1, rep.Summary)
		}
	}
	s := openStore(t, dir)
	ids, err := s.Select(context.Background(), "1..3", history.Query{Tape: f.hash})
	if err != nil || len(ids) != 3 {
		t.Errorf("runs kept: %v, %v; want 3", ids, err)
	}
}

// TestKeepStoreUnreadable: a store that cannot be opened (the folder is
// a file), or a tape with no file, is a *KeepError of StageOpen; the
// gates asked for fail with "no data", and the run does not pass.
func TestKeepStoreUnreadable(t *testing.T) {
	f := newFixture(t, 1, "echo")
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	budget, err := history.ParseBudget("p99+20%")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, dir, tape string
	}{
		{"folder is a file", notDir, f.tape},
		{"tape from stdin", t.TempDir(), "-"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := f.run(t)
			if !rep.Passed() {
				t.Fatalf("the run itself failed: %+v", rep.Summary)
			}
			err := history.Keep(context.Background(), c.dir, c.tape, rep, history.Budgets(0, 0, budget), history.GateNewFailures())
			var ke *history.KeepError
			if !errors.As(err, &ke) || ke.Stage != history.StageOpen || !ke.GatesFail() {
				t.Fatalf("got %v, want a *KeepError of StageOpen", err)
			}
			if len(rep.Thresholds) != 2 || rep.Passed() || rep.Summary.Passed {
				t.Fatalf("thresholds %+v, passed %v; want both gates failed", rep.Thresholds, rep.Summary.Passed)
			}
			for _, r := range rep.Thresholds {
				if r.Passed || r.Value != "no data" {
					t.Errorf("gate %+v, want failed with no data", r)
				}
			}
			if rep.History != nil {
				t.Errorf("history section %+v, want none", rep.History)
			}
		})
	}
}
