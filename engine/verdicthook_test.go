package engine

import (
	"testing"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
)

// TestOnVerdictHasNoBytes: OnVerdict sees every result OnResult sees, in
// the same order, without its bytes; OnResult still gets them, masked.
func TestOnVerdictHasNoBytes(t *testing.T) {
	path := writeTape(t, t.TempDir(), 20, 1000, nil)
	for _, withResult := range []bool{false, true} {
		var verdicts, results []report.Result
		cfg := Config{Tape: path, Speed: scheduler.Speed{Mode: scheduler.Fast}, Logger: zerolog.Nop()}
		cfg.Hooks.OnVerdict = func(r report.Result) { verdicts = append(verdicts, r) }
		if withResult {
			cfg.Hooks.OnResult = func(r report.Result) { results = append(results, r) }
		}
		rep, err := replay(t, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if len(verdicts) != len(rep.Timeline) || rep.Validation.Passed != 21 {
			t.Fatalf("OnResult %v: %d verdicts, %d passed; want the timeline's %d, 21 passed", withResult, len(verdicts), rep.Validation.Passed, len(rep.Timeline))
		}
		for i, v := range verdicts {
			if v.Out != nil || v.Answer != nil || v.Recorded != nil {
				t.Fatalf("OnResult %v: verdict seq %d has bytes (out %q), want none", withResult, v.Seq, v.Out)
			}
			if withResult && (results[i].Seq != v.Seq || results[i].Verdict != v.Verdict) {
				t.Fatalf("result %d: OnResult seq %d %s, OnVerdict seq %d %s: want the same", i, results[i].Seq, results[i].Verdict, v.Seq, v.Verdict)
			}
		}
		if !withResult {
			continue
		}
		sent := 0
		for _, r := range results {
			if r.Dir == report.DirC2S && len(r.Out) > 0 {
				sent++
			}
		}
		if sent == 0 {
			t.Error("OnResult saw no bytes sent, want them")
		}
	}
}
