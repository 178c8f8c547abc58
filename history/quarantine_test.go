package history_test

import (
	"testing"

	"github.com/replayctl/replayctl/history"
	"github.com/replayctl/replayctl/report"
)

// TestQuarantine: a run whose only failure is a flaky message passes once
// it is quarantined, with the counts of a warned check; a message flipping
// but not flaky by the rule, and one not failed, are left alone.
func TestQuarantine(t *testing.T) {
	f := newFixture(t, 2, "steady", "flaky")
	f.srv.SetWrong("flaky", true)
	rep := f.run(t)
	if rep.Validation.Failed != 2 || rep.Passed() {
		t.Fatalf("before: %d failed, passed %v; want 2 and false", rep.Validation.Failed, rep.Passed())
	}
	notes := history.Quarantine(rep, []history.Flaky{
		{Session: "s1", Seq: 4, Flaky: true, PassRate: 0.7, Runs: 20},
		{Session: "s1", Seq: 10, Flaky: false}, // flips, not flaky: still fails
		{Session: "s1", Seq: 3, Flaky: true},   // passed: nothing to do
	})
	if len(notes) != 1 {
		t.Fatalf("notes %q, want one", notes)
	}
	v := rep.Validation
	if v.Failed != 1 || v.Warnings != 1 || len(v.Failures) != 1 || v.Failures[0].Seq != 10 || rep.Passed() {
		t.Errorf("after: failed %d, warnings %d, failures %+v, passed %v; want 1, 1, seq 10 only, false", v.Failed, v.Warnings, v.Failures, rep.Passed())
	}
	for _, l := range rep.PerMethod {
		if l.Method == "tools/call" && (l.Failed != 1 || l.Warnings != 1) {
			t.Errorf("tools/call line: failed %d warnings %d, want 1 and 1", l.Failed, l.Warnings)
		}
	}
	for _, e := range rep.Timeline {
		if e.Seq == 4 && e.Verdict != report.Warned {
			t.Errorf("seq 4 verdict %s, want warned", e.Verdict)
		}
	}
	history.Quarantine(rep, []history.Flaky{{Session: "s1", Seq: 10, Flaky: true}})
	if !rep.Passed() || rep.Summary.SuccessRate != 1 {
		t.Errorf("both quarantined: passed %v, success rate %v; want true, 1", rep.Passed(), rep.Summary.SuccessRate)
	}
}
