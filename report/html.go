package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/replayctl/replayctl/internal/english"
)

// htmlValueLimit is how many runes of an expected or actual value the HTML
// report shows.
const htmlValueLimit = 4000

// htmlOpenFailures is how many failures the HTML report shows unfolded.
const htmlOpenFailures = 20

//go:embed html.tmpl
var htmlSource string

var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"ms":        FormatMS,
	"duration":  FormatDurationMS,
	"breakable": breakablePath,
	"sparkline": sparkline,
}).Parse(htmlSource))

// htmlSurvivalNotes is how many notes of a session's survival verdict the
// HTML report shows; the JSON report has them all.
const htmlSurvivalNotes = 20

// htmlPage is what the HTML template shows: the report and the layouts
// and strings worked out in Go.
type htmlPage struct {
	R          Report
	Passed     bool
	Summary    []htmlItem
	Timeline   timelineChart
	Histogram  histChart
	Failures   []htmlFailure
	Notes      []string
	Thresholds []ThresholdResult
	Failed     int // thresholds failed
	Survival   []htmlSurvival
	Survived   int // sessions that survived the chaos
}

type htmlSurvival struct {
	Survival
	Notes  []string // at most htmlSurvivalNotes
	More   int      // notes left out
	Broken string   // the fault that broke it, in words; "" when none is named
}

type htmlItem struct{ Label, Value string }

type htmlFailure struct {
	Failure
	Open  bool
	Diffs []htmlDiff
}

type htmlDiff struct{ Path, Kind, Expected, Actual string }

// WriteHTML writes r as one self-contained HTML page: no external script,
// style sheet, font or image, only inline CSS and inline SVG. It shows a
// summary with a pass/fail badge and the load verdict of a paced replay,
// where the time went (latency, schedule lag, held time), a timeline chart
// of when each message was due, sent and answered (at most 1000 messages
// drawn, those that failed first), the latency histogram, the per-session
// table, the thresholds, every failure the report kept with its
// differences, the errors and the injected faults. Everything from the
// wire is escaped.
func (r Report) WriteHTML(w io.Writer) error {
	var buf bytes.Buffer
	if err := htmlTemplate.Execute(&buf, newHTMLPage(r)); err != nil {
		return fmt.Errorf("report: write HTML: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("report: write HTML: %w", err)
	}
	return nil
}

func newHTMLPage(r Report) htmlPage {
	s, p := r.Summary, r.Performance
	page := htmlPage{
		R:          r,
		Passed:     r.Passed(),
		Timeline:   newTimelineChart(r),
		Histogram:  newHistChart(p.LatencyHistogram),
		Notes:      omissionNotesHTML(r),
		Thresholds: r.Thresholds,
		Failed:     len(r.ThresholdsFailed()),
	}
	page.Summary = []htmlItem{
		{"messages", fmt.Sprintf("%d sent, %d received, %d skipped (%d on tape)", s.Sent, s.Received, s.Skipped, s.TotalMessages)},
		{"duration", FormatDurationMS(s.DurationMS)},
		{"requests", fmt.Sprintf("%d sent, %d answered", p.Requests, p.Answered)},
		{"validation", fmt.Sprintf("%d passed, %d failed, %s (%d checked)", r.Validation.Passed, r.Validation.Failed, english.Count(r.Validation.Warnings, "warning"), r.Validation.Checked)},
		{"errors", fmt.Sprintf("%s, %s; error rate %.2f%%", english.Count(p.Errors, "error"), english.Count(p.Timeouts, "timeout"), p.ErrorRate*100)},
		{"success rate", fmt.Sprintf("%.2f%%", s.SuccessRate*100)},
	}
	// One rate: a paced replay's is the load card's achieved rate.
	if !r.Load.Applicable {
		page.Summary = slices.Insert(page.Summary, 2, htmlItem{"throughput", strconv.FormatFloat(p.ThroughputPerS, 'f', 1, 64) + " requests/s"})
	}
	if why := r.Summary.Aborted; why != "" {
		page.Summary = append(page.Summary, htmlItem{"stopped early", why})
	}
	if why := r.Unchecked(); why != "" {
		page.Summary = append(page.Summary, htmlItem{"nothing checked", why})
	}
	if c := r.Coordination; c != nil {
		line := strings.TrimSuffix(strings.TrimPrefix(c.text(), "Coordinated: "), "\n")
		page.Summary = append(page.Summary, htmlItem{"coordinated", line})
	}
	if r.Load.Applicable {
		page.Summary = append(page.Summary, htmlItem{"load", r.Load.Verdict})
	}
	if r.Chaos.Injected > 0 || r.Chaos.Seed != nil {
		seed := "no seed"
		if r.Chaos.Seed != nil {
			seed = fmt.Sprintf("seed %d", *r.Chaos.Seed)
		}
		chaos := fmt.Sprintf("%s injected (%s)", english.Count(r.Chaos.Injected, "fault"), seed)
		if n := len(r.Chaos.Survival); n > 0 {
			chaos += fmt.Sprintf("; %d of %d sessions survived", survived(r.Chaos.Survival), n)
		}
		page.Summary = append(page.Summary, htmlItem{"chaos", chaos})
	}
	page.Survived = survived(r.Chaos.Survival)
	for _, sv := range r.Chaos.Survival {
		hs := htmlSurvival{Survival: sv, Notes: sv.Notes}
		if len(hs.Notes) > htmlSurvivalNotes {
			hs.Notes, hs.More = hs.Notes[:htmlSurvivalNotes], len(hs.Notes)-htmlSurvivalNotes
		}
		if f := sv.BrokenBy; f != nil {
			hs.Broken = fmt.Sprintf("seq %d %s (%s)", f.Seq, f.Kind, f.Detail)
		}
		page.Survival = append(page.Survival, hs)
	}
	page.Failures = make([]htmlFailure, len(r.Validation.Failures))
	for i, f := range r.Validation.Failures {
		hf := htmlFailure{Failure: f, Open: i < htmlOpenFailures, Diffs: make([]htmlDiff, len(f.Differences))}
		for j, d := range f.Differences {
			hf.Diffs[j] = htmlDiff{Path: orDash(d.Path), Kind: string(d.Kind), Expected: displayN(d.Expected, htmlValueLimit), Actual: displayN(d.Actual, htmlValueLimit)}
		}
		page.Failures[i] = hf
	}
	return page
}

// omissionNotesHTML says what the report left out, in the HTML page's
// words.
func omissionNotesHTML(r Report) []string {
	var notes []string
	if n := r.TimelineOmitted; n > 0 {
		notes = append(notes, fmt.Sprintf("The report's timeline keeps the first %d messages; %d more were replayed and are counted in the totals but not charted (raise the limit to keep more: --timeline-limit; replay.TimelineLimit).", len(r.Timeline), n))
	}
	if n := r.Validation.FailuresOmitted; n > 0 {
		notes = append(notes, fmt.Sprintf("%d more validation failures are counted but not shown (the report keeps the first %d).", n, len(r.Validation.Failures)))
	}
	if n := r.ErrorsOmitted; n > 0 {
		notes = append(notes, fmt.Sprintf("%d more errors and timeouts are counted but not shown (the report keeps the first %d).", n, len(r.Errors)))
	}
	if n := r.Chaos.FaultsOmitted; n > 0 {
		notes = append(notes, fmt.Sprintf("%d more injected faults are counted but not shown.", n))
	}
	if n := r.SessionsOmitted; n > 0 {
		notes = append(notes, fmt.Sprintf("%d more sessions are in the totals but not in the per-session table.", n))
	}
	return notes
}

// survived counts the sessions that survived the chaos.
func survived(ss []Survival) int {
	n := 0
	for _, s := range ss {
		if s.Survived {
			n++
		}
	}
	return n
}

// breakablePath is a difference's path, escaped, with a line-break
// opportunity (<wbr>) before each "." and "[", so that a long path wraps
// between its steps rather than in the middle of a name.
func breakablePath(path string) template.HTML {
	var b strings.Builder
	for i, r := range path {
		if i > 0 && (r == '.' || r == '[') {
			b.WriteString("<wbr>")
		}
		b.WriteString(template.HTMLEscapeString(string(r)))
	}
	return template.HTML(b.String()) //nolint:gosec // every rune is escaped above
}
