package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/replayctl/replayctl/internal/english"
)

// chaos writes the chaos lines of WriteText: the counts, then one line
// per session (see WriteText). The counts agree: the sessions' faults add
// up to the faults injected, of which the report lists all but
// FaultsOmitted.
func (t *textWriter) chaos(c Chaos) {
	if c.Injected == 0 && c.Seed == nil {
		return
	}
	seed := "no seed"
	if c.Seed != nil {
		seed = fmt.Sprintf("seed %d", *c.Seed)
	}
	var survived, broken int64
	for _, sv := range c.Survival {
		if sv.Survived {
			survived++
		} else {
			broken++
		}
	}
	counts := fmt.Sprintf("%s injected (%s)", english.Count(c.Injected, "fault"), seed)
	if len(c.Survival) > 0 {
		verdict := fmt.Sprintf("%d did not", broken)
		if broken > 0 {
			verdict = t.paint(ansiRed, verdict)
		}
		counts += fmt.Sprintf(": %s survived, %s", english.Count(survived, "session"), verdict)
	}
	if c.FaultsOmitted > 0 {
		counts += fmt.Sprintf("; the report lists %d of them", c.Injected-c.FaultsOmitted)
	}
	t.line("chaos", "%s", counts)

	byKind := map[string][]Fault{} // the listed faults of each session
	for _, f := range c.Faults {
		byKind[f.Session] = append(byKind[f.Session], f)
	}
	sessions := slices.Clone(c.Survival)
	slices.SortStableFunc(sessions, func(a, b Survival) int { return strings.Compare(a.Session, b.Session) })
	shown := sessions
	if !t.verbose && len(sessions) > textListLimit {
		shown = slices.DeleteFunc(slices.Clone(sessions), func(sv Survival) bool { return sv.Survived })
		shown = shown[:min(len(shown), textListLimit)]
	}
	width := 0
	for _, sv := range shown {
		width = max(width, len(clean(sv.Session)))
	}
	details := len(c.Faults) > 0
	for _, sv := range sessions {
		details = details || len(sv.Notes) > 0
	}
	for _, sv := range shown {
		listed := byKind[sv.Session]
		line := fmt.Sprintf("%-*s  %s  %s", width, clean(sv.Session), t.survival(sv), english.Count(int64(sv.Faults), "fault"))
		if len(listed) == sv.Faults && sv.Faults > 0 {
			line += " (" + kindCounts(listed) + ")"
		}
		if f := sv.BrokenBy; f != nil {
			line += fmt.Sprintf(": broken by seq %d %s (%s)", f.Seq, clean(f.Kind), faultDetail(f.Detail))
		}
		t.line("", "%s", line)
		if !t.verbose {
			continue
		}
		for _, f := range listed {
			t.line("", "  seq %d %s: %s", f.Seq, clean(f.Kind), faultDetail(f.Detail))
		}
		for _, n := range sv.Notes {
			t.line("", "  note: %s", clean(n))
		}
	}
	if t.verbose && len(sessions) == 0 { // no verdicts: the faults alone
		for _, f := range c.Faults {
			t.line("", "  %s seq %d %s: %s", clean(f.Session), f.Seq, clean(f.Kind), faultDetail(f.Detail))
		}
	}
	if n := len(sessions) - len(shown); n > 0 && len(shown) > 0 {
		rest := survived - (int64(len(shown)) - countBroken(shown))
		t.line("", "and %d more %s (%d survived, %d did not)", n, english.Plural(int64(n), "session"), rest, int64(n)-rest)
	}
	if details && !t.verbose {
		t.line("", "(details: run -v, or see the report's chaos section)")
	}
}

// survival is a session's verdict, coloured, in a column of one width.
func (t *textWriter) survival(sv Survival) string {
	const broken = "did NOT survive"
	if sv.Survived {
		return t.paint(ansiGreen, fmt.Sprintf("%-*s", len(broken), "survived"))
	}
	return t.paint(ansiRed, broken)
}

func countBroken(svs []Survival) int64 {
	var n int64
	for _, sv := range svs {
		if !sv.Survived {
			n++
		}
	}
	return n
}

// kindCounts says how many faults of each kind there are, in the order
// the kinds first come: "3 malformed, 1 timeout".
func kindCounts(faults []Fault) string {
	var kinds []string
	n := map[string]int{}
	for _, f := range faults {
		if n[f.Kind] == 0 {
			kinds = append(kinds, f.Kind)
		}
		n[f.Kind]++
	}
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", n[k], clean(k))
	}
	return strings.Join(parts, ", ")
}

// faultDetail is a fault's detail for people: without the " #p=…" that
// --chaos-from reads back.
func faultDetail(detail string) string {
	d, _, _ := strings.Cut(detail, " #p=")
	return clean(d)
}
