package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// junitValueLimit is how many runes of an expected or actual value a JUnit
// failure body shows (its message shows textValueLimit).
const junitValueLimit = 2000

// The JUnit XML shapes, as GitHub, GitLab and Jenkins read them.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name       string          `xml:"name,attr"`
		Tests      int             `xml:"tests,attr"`
		Failures   int             `xml:"failures,attr"`
		Errors     int             `xml:"errors,attr"`
		Skipped    int             `xml:"skipped,attr"`
		Time       string          `xml:"time,attr"`
		Properties []junitProperty `xml:"properties>property,omitempty"`
		Cases      []junitCase     `xml:"testcase"`
		SystemOut  string          `xml:"system-out,omitempty"`
		seconds    float64
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr"`
		Failure   *junitProblem `xml:"failure,omitempty"`
		Error     *junitProblem `xml:"error,omitempty"`
		Skipped   *junitProblem `xml:"skipped,omitempty"`
	}
	junitProblem struct {
		Message string `xml:"message,attr,omitempty"`
		Type    string `xml:"type,attr,omitempty"`
		Body    string `xml:",chardata"`
	}
)

// WriteJUnit writes r as JUnit XML: one test suite per session (named by
// the session), one test case per checked message of the timeline ("seq 5
// tools/call", its time the latency in seconds), a <failure> with the
// differences for a failed validation and an <error> for an error or a
// timeout. Failures and errors the report kept but whose timeline entry
// was left out (the timeline is capped) are test cases too, and each suite's
// <system-out> says what the report left out. Every suite's properties
// name the tape, target, speed and chaos seed, and the load verdict
// (load, load_delivered) and lag_p99_ms and held_p99_ms when there are
// any. Thresholds, when there are any, form a last suite named
// "thresholds". Text from the wire is escaped; characters XML cannot hold
// are replaced.
func (r Report) WriteJUnit(w io.Writer) error {
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(junitDoc(r)); err != nil {
		return fmt.Errorf("report: write JUnit XML: %w", err)
	}
	buf.WriteByte('\n')
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("report: write JUnit XML: %w", err)
	}
	return nil
}

// entryKey identifies a replayed message across the report's lists.
type entryKey struct {
	session string
	seq     int64
}

// junitDoc builds the JUnit document of r.
func junitDoc(r Report) junitSuites {
	failures := make(map[entryKey][]int)
	for i, f := range r.Validation.Failures {
		k := entryKey{f.Session, f.Seq}
		failures[k] = append(failures[k], i)
	}
	errs := make(map[entryKey][]int)
	for i, e := range r.Errors {
		k := entryKey{e.Session, e.Seq}
		errs[k] = append(errs[k], i)
	}
	usedFailure := make([]bool, len(r.Validation.Failures))
	usedError := make([]bool, len(r.Errors))
	take := func(m map[entryKey][]int, k entryKey, used []bool) int {
		q := m[k]
		if len(q) == 0 {
			return -1
		}
		m[k] = q[1:]
		used[q[0]] = true
		return q[0]
	}

	suites := make(map[string]*junitSuite)
	suite := func(session string) *junitSuite {
		name := session
		if name == "" {
			name = "(no session)"
		}
		s, ok := suites[name]
		if !ok {
			s = &junitSuite{Name: name}
			suites[name] = s
		}
		return s
	}

	for _, e := range r.Timeline {
		if e.Verdict == Sent {
			continue // nothing was checked
		}
		k := entryKey{e.Session, e.Seq}
		c := junitCase{Name: caseName(e.Seq, e.Method), Classname: e.Session}
		var secs float64
		if e.LatencyMS != nil {
			secs = *e.LatencyMS / 1000
		}
		c.Time = seconds(secs)
		switch e.Verdict {
		case Passed, Warned:
		case Skipped:
			c.Skipped = &junitProblem{Message: "not replayed"}
		case Failed:
			if i := take(failures, k, usedFailure); i >= 0 {
				c.Failure = failureProblem(r.Validation.Failures[i])
			} else {
				c.Failure = &junitProblem{Type: "validation", Message: "the answer differed from the recording (details not kept: the report's failure list is full)"}
			}
		default: // Error, Timeout, or a verdict the report does not know
			if i := take(errs, k, usedError); i >= 0 {
				c.Error = errorProblem(r.Errors[i])
			} else {
				c.Error = &junitProblem{Type: string(e.Verdict), Message: string(e.Verdict) + " (details not kept: the report's error list is full)"}
			}
		}
		s := suite(e.Session)
		s.Cases = append(s.Cases, c)
		s.seconds += secs
	}
	// Failures and errors kept in detail whose timeline entry was left out.
	for i, f := range r.Validation.Failures {
		if !usedFailure[i] {
			s := suite(f.Session)
			s.Cases = append(s.Cases, junitCase{Name: caseName(f.Seq, f.Method), Classname: f.Session, Time: seconds(0), Failure: failureProblem(f)})
		}
	}
	for i, e := range r.Errors {
		if !usedError[i] {
			s := suite(e.Session)
			s.Cases = append(s.Cases, junitCase{Name: caseName(e.Seq, e.Method), Classname: e.Session, Time: seconds(0), Error: errorProblem(e)})
		}
	}
	for _, ps := range r.PerSession {
		suite(ps.Session) // a session with nothing checked is an empty suite
	}

	names := make([]string, 0, len(suites))
	for n := range suites {
		names = append(names, n)
	}
	slices.SortFunc(names, naturalCompare)
	perSession := make(map[string]SessionSummary, len(r.PerSession))
	for _, ps := range r.PerSession {
		perSession[ps.Session] = ps
	}
	props := junitProperties(r)
	notes := omissionNotes(r)

	doc := junitSuites{Name: "replayctl " + r.Summary.Tape, Time: seconds(r.Summary.DurationMS / 1000)}
	for _, n := range names {
		s := suites[n]
		s.Properties = props
		var out []string
		if ps, ok := perSession[n]; ok {
			out = append(out, fmt.Sprintf("session %s: %d sent, %d received, %d passed, %d failed, %d errors, %d timeouts, latency avg %s max %s",
				ps.Session, ps.Sent, ps.Received, ps.Passed, ps.Failed, ps.Errors, ps.Timeouts, FormatMS(ps.LatencyAvgMS), FormatMS(ps.LatencyMaxMS)))
		}
		s.SystemOut = strings.Join(append(out, notes...), "\n")
		doc.add(s)
	}
	if len(r.Thresholds) > 0 {
		s := &junitSuite{Name: "thresholds", Properties: props}
		for _, t := range r.Thresholds {
			c := junitCase{Name: t.Expr, Classname: "thresholds", Time: seconds(0)}
			if !t.Passed {
				msg := thresholdFailure(t)
				c.Failure = &junitProblem{Type: "threshold", Message: msg, Body: msg + "\nlimit: " + t.Limit}
			}
			s.Cases = append(s.Cases, c)
		}
		doc.add(s)
	}
	if why := r.Unchecked(); why != "" { // nor a replay that checked nothing
		c := junitCase{Name: "the replay checked some answer", Classname: "replay", Time: seconds(0),
			Failure: &junitProblem{Type: "nothing_checked", Message: "nothing checked: " + why, Body: why}}
		doc.add(&junitSuite{Name: "replay", Properties: props, Cases: []junitCase{c}})
	}
	if r.Summary.Aborted != "" { // CI must not show a cut-short replay green
		c := junitCase{Name: "the replay ran to the end of the tape", Classname: "replay", Time: seconds(0),
			Error: &junitProblem{Type: "aborted", Message: "stopped early: " + r.Summary.Aborted, Body: r.Summary.Aborted}}
		doc.add(&junitSuite{Name: "replay", Properties: props, Cases: []junitCase{c}})
	}
	return doc
}

// add counts s's cases into its own and the document's totals and
// appends it.
func (d *junitSuites) add(s *junitSuite) {
	for _, c := range s.Cases {
		s.Tests++
		switch {
		case c.Failure != nil:
			s.Failures++
		case c.Error != nil:
			s.Errors++
		case c.Skipped != nil:
			s.Skipped++
		}
	}
	s.Time = seconds(s.seconds)
	d.Tests += s.Tests
	d.Failures += s.Failures
	d.Errors += s.Errors
	d.Skipped += s.Skipped
	d.Suites = append(d.Suites, *s)
}

func junitProperties(r Report) []junitProperty {
	var props []junitProperty
	if r.Summary.RunID != "" {
		props = append(props, junitProperty{"run_id", r.Summary.RunID})
	}
	props = append(props, junitProperty{"tape", r.Summary.Tape})
	if r.Summary.Target != "" {
		props = append(props, junitProperty{"target", r.Summary.Target})
	}
	if r.Summary.Speed != nil {
		props = append(props, junitProperty{"speed", r.Summary.Speed.String()})
	}
	if r.Chaos.Seed != nil {
		props = append(props, junitProperty{"chaos_seed", strconv.FormatInt(*r.Chaos.Seed, 10)})
	}
	if l := r.Load; l.Applicable {
		props = append(props, junitProperty{"load", l.Verdict},
			junitProperty{"load_delivered", strconv.FormatBool(l.Delivered)})
	}
	if p := r.Performance; p.ScheduleLagMS.Count > 0 {
		props = append(props,
			junitProperty{"lag_p99_ms", strconv.FormatFloat(p.ScheduleLagMS.P99, 'f', -1, 64)},
			junitProperty{"held_p99_ms", strconv.FormatFloat(p.HeldMS.P99, 'f', -1, 64)})
	}
	return props
}

// omissionNotes says what the report left out, for every suite's
// <system-out>.
func omissionNotes(r Report) []string {
	var notes []string
	if n := r.TimelineOmitted; n > 0 {
		notes = append(notes, fmt.Sprintf("%d replayed messages are not test cases: the report's timeline keeps the first %d (raise the limit to keep more: --timeline-limit; replay.TimelineLimit); failures and errors among them are still listed while the report keeps them", n, len(r.Timeline)))
	}
	if n := r.Validation.FailuresOmitted; n > 0 {
		notes = append(notes, fmt.Sprintf("%d validation failures were not kept in detail (the report keeps the first %d)", n, len(r.Validation.Failures)))
	}
	if n := r.ErrorsOmitted; n > 0 {
		notes = append(notes, fmt.Sprintf("%d errors and timeouts were not kept in detail (the report keeps the first %d)", n, len(r.Errors)))
	}
	if n := r.SessionsOmitted; n > 0 {
		notes = append(notes, fmt.Sprintf("%d sessions have no per-session totals (the report breaks down the first %d)", n, len(r.PerSession)))
	}
	return notes
}

func caseName(seq int64, method string) string {
	if method == "" {
		return "seq " + strconv.FormatInt(seq, 10)
	}
	return "seq " + strconv.FormatInt(seq, 10) + " " + method
}

// seconds formats a JUnit time attribute with three decimals, to the
// millisecond as JUnit writers do: "0.012", not the float noise of a sum
// ("0.012000000000000002"), and never an exponent.
func seconds(s float64) string { return strconv.FormatFloat(s, 'f', 3, 64) }

// failureProblem is a failed validation as a <failure>: the message names
// the first difference, the body lists them all.
func failureProblem(f Failure) *junitProblem {
	p := &junitProblem{Type: "validation"}
	if len(f.Differences) == 0 {
		p.Message = "the answer differed from the recording"
		p.Body = p.Message
		return p
	}
	d := f.Differences[0]
	p.Message = diffLine(d, textValueLimit)
	if n := len(f.Differences) - 1; n > 0 {
		p.Message += fmt.Sprintf(" (and %d more)", n)
	}
	var b strings.Builder
	for _, d := range f.Differences {
		b.WriteString(diffLine(d, junitValueLimit))
		if d.Kind != "" {
			b.WriteString(" (" + string(d.Kind) + ")")
		}
		b.WriteByte('\n')
	}
	p.Body = b.String()
	return p
}

// diffLine shows a difference as "path: expected → actual".
func diffLine(d Difference, limit int) string {
	return orDash(d.Path) + ": " + displayN(d.Expected, limit) + " → " + displayN(d.Actual, limit)
}

func errorProblem(e ErrorEntry) *junitProblem {
	return &junitProblem{Type: e.Kind, Message: e.Kind + ": " + e.Message, Body: e.Message}
}
