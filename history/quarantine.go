package history

import (
	"fmt"
	"slices"

	"github.com/replayctl/replayctl/report"
)

// Quarantine turns the failed checks (verdict failed) of rep's messages
// that flaky names as flaky (Flaky.Flaky) into warnings, as a validation
// rule with on_failure: warn does: they count as passed checks and as
// warnings, leave the failures list, and no longer fail the run. Errors
// and timeouts are left as they are. It returns one line per message
// quarantined, also added to the report's warnings, so that every report
// lists them while they flip. Keep the run in the store before calling
// it: the store must see the real verdicts, or a quarantined message
// would seem to stop flipping.
func Quarantine(rep *report.Report, flaky []Flaky) []string {
	type key struct {
		session string
		seq     int64
	}
	q := map[key]Flaky{}
	for _, f := range flaky {
		if f.Flaky {
			q[key{f.Session, f.Seq}] = f
		}
	}
	if len(q) == 0 {
		return nil
	}
	var notes []string
	for i, e := range rep.Timeline {
		f, ok := q[key{e.Session, e.Seq}]
		if !ok || e.Verdict != report.Failed {
			continue
		}
		rep.Timeline[i].Verdict = report.Warned
		rep.Validation.Failed--
		rep.Validation.Passed++
		rep.Validation.Warnings++
		rep.Validation.Failures = slices.DeleteFunc(rep.Validation.Failures, func(x report.Failure) bool {
			return x.Session == e.Session && x.Seq == e.Seq
		})
		for _, lines := range [][]report.MethodSummary{rep.PerMethod, rep.PerName} {
			for j := range lines {
				if lines[j].Method == e.Method && (lines[j].Name == "" || lines[j].Name == nameOf(rep, e)) {
					l := &lines[j]
					l.Failed--
					l.Passed++
					l.Warnings++
					l.SuccessRate = successRate(l.Passed, l.Failed+l.Errors+l.Timeouts)
				}
			}
		}
		note := fmt.Sprintf("quarantined (flaky: it warns instead of failing): %s seq %d %s, pass rate %.0f%% over %d runs, flip rate %.0f%%",
			e.Session, e.Seq, e.Method, f.PassRate*100, f.Runs, f.FlipRate*100)
		notes = append(notes, note)
	}
	if len(notes) == 0 {
		return nil
	}
	rep.Summary.Warnings = append(rep.Summary.Warnings, notes...)
	rep.Summary.SuccessRate = successRate(rep.Validation.Passed, rep.Validation.Failed+rep.Performance.Errors+rep.Performance.Timeouts)
	rep.Summary.Passed = rep.Passed()
	return notes
}

// nameOf is the tool, prompt or resource e's request named, as the
// report's per_name lines hold it, or "" when the report does not say
// (the timeline does not carry it): then only a single per_name line of
// e's method is taken to be its.
func nameOf(rep *report.Report, e report.TimelineEntry) string {
	name := ""
	for _, l := range rep.PerName {
		if l.Method == e.Method && l.Failed > 0 {
			if name != "" {
				return "\x00" // more than one: none is known to be e's
			}
			name = l.Name
		}
	}
	return name
}

func successRate(passed, others int64) float64 {
	if passed+others == 0 {
		return 1
	}
	return float64(passed) / float64(passed+others)
}
