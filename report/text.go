package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/replayctl/replayctl/internal/english"
	"github.com/replayctl/replayctl/internal/termsafe"
	"github.com/replayctl/replayctl/validator"
)

// textListLimit is how many failures and errors WriteText shows.
const textListLimit = 10

// textValueLimit is how many runes of an expected or actual value
// WriteText shows.
const textValueLimit = 80

// ANSI escapes used when WriteText is asked for color.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
)

// WriteText writes a readable summary of r for a terminal: a few aligned
// lines of counts, duration, throughput, latency, lag, where the time went
// (lag, held, latency), the load verdict of a paced replay and validation,
// then the first failures with their differences and the first errors. It
// uses ANSI colors only when color is true. Text that came from the wire
// is stripped of control characters.
//
// A chaos replay gets a line of counts (faults injected, sessions that
// survived and did not) and one line per session: its verdict, its faults
// by kind, what broke it. With Verbose, each session's faults and notes
// follow it; without, the first textListLimit sessions that did not survive
// are shown (all of them when there are no more sessions than that).
func (r Report) WriteText(w io.Writer, color bool, opts ...TextOption) error {
	t := textWriter{color: color}
	for _, o := range opts {
		o(&t)
	}
	t.header(r)
	if r.Coordination != nil {
		t.buf.WriteString(r.Coordination.text())
	}
	t.body(r)
	t.methods(r)
	t.failures(r)
	t.errors(r)
	if _, err := w.Write(t.buf.Bytes()); err != nil {
		return fmt.Errorf("report: write text: %w", err)
	}
	return nil
}

// TextOption changes what WriteText shows.
type TextOption func(*textWriter)

// Verbose makes WriteText list the details: each chaos session's faults
// and notes.
func Verbose() TextOption { return func(t *textWriter) { t.verbose = true } }

// AbortShownAs has the result line of a replay that stopped early say
// why instead of Summary.Aborted, for a caller that prints the reason
// itself beside the text (the CLI's error line on stderr), so that a long
// error is not shown twice.
func AbortShownAs(why string) TextOption { return func(t *textWriter) { t.abortShownAs = why } }

type textWriter struct {
	buf     bytes.Buffer
	color   bool
	verbose bool
	// abortShownAs replaces Summary.Aborted in the result line when set
	// (AbortShownAs).
	abortShownAs string
}

func (t *textWriter) paint(code, s string) string {
	if !t.color {
		return s
	}
	return code + s + ansiReset
}

func (t *textWriter) line(label, format string, args ...any) {
	fmt.Fprintf(&t.buf, "  %-11s %s\n", label, fmt.Sprintf(format, args...))
}

func (t *textWriter) header(r Report) {
	s := r.Summary
	fmt.Fprintf(&t.buf, "%s %s", t.paint(ansiBold, "Replay of"), clean(orDash(s.Tape)))
	if s.Target != "" {
		fmt.Fprintf(&t.buf, " against %s", clean(s.Target))
	}
	var extra []string
	if s.Speed != nil {
		extra = append(extra, s.Speed.String())
	}
	switch {
	case s.SessionsAsked > s.Sessions:
		extra = append(extra, fmt.Sprintf("%d of %s started", s.Sessions, english.Count(int64(s.SessionsAsked), "session")))
	case s.Sessions > 0:
		extra = append(extra, english.Count(int64(s.Sessions), "session"))
	}
	if s.Shard != nil {
		extra = append(extra, fmt.Sprintf("shard %d/%d", s.Shard.Index, s.Shard.Count))
	}
	if s.Shards != nil {
		extra = append(extra, fmt.Sprintf("%d of %d shards merged", len(s.Shards.Merged), s.Shards.Count))
	}
	if s.Config != "" {
		extra = append(extra, "config "+clean(s.Config))
	}
	if s.RunID != "" {
		extra = append(extra, "run "+clean(s.RunID))
	}
	if len(extra) > 0 {
		fmt.Fprintf(&t.buf, " (%s)", strings.Join(extra, ", "))
	}
	t.buf.WriteByte('\n')
}

func (t *textWriter) body(r Report) {
	s, p, v := r.Summary, r.Performance, r.Validation
	if m := s.Shards; m != nil && len(m.Missing) > 0 { // above the figures, which are not the run's
		missing := make([]string, len(m.Missing))
		for i, k := range m.Missing {
			missing[i] = fmt.Sprintf("%d/%d", k, m.Count)
		}
		t.line("shards", "%d of %d merged, missing %s: the figures below are of the shards merged, not of the whole run",
			len(m.Merged), m.Count, strings.Join(missing, ", "))
	}
	t.line("messages", "%d sent, %d received, %d skipped (%d on tape)", s.Sent, s.Received, s.Skipped, s.TotalMessages)
	// One rate: a paced replay's is the load line's achieved rate (of
	// the schedule, after the handshake); the others' the throughput
	// (requests answered over the whole run).
	if r.Load.Applicable {
		t.line("duration", "%s, error rate %.2f%%", FormatDurationMS(s.DurationMS), p.ErrorRate*100)
	} else {
		t.line("duration", "%s, throughput %.1f requests/s, error rate %.2f%%", FormatDurationMS(s.DurationMS), p.ThroughputPerS, p.ErrorRate*100)
	}
	if p.LatencyMS.Count > 0 {
		l := p.LatencyMS
		t.line("latency", "p50 %s  p95 %s  p99 %s  max %s", FormatDurationMS(l.P50), FormatDurationMS(l.P95), FormatDurationMS(l.P99), FormatDurationMS(l.Max))
	} else {
		t.line("latency", "no request answered")
	}
	if r.Handshake.Requests > 0 {
		t.line("handshake", "%s", handshakeLine(r.Handshake))
	}
	if p.ScheduleLagMS.Count > 0 {
		t.line("lag", "p99 %s  max %s", FormatDurationMS(p.ScheduleLagMS.P99), FormatDurationMS(p.ScheduleLagMS.Max))
		t.line("time", "%s", timeSplit(p))
	}
	if l := r.Load; l.Applicable {
		verdict := t.paint(ansiGreen, clean(l.Verdict))
		if !l.Delivered {
			verdict = t.paint(ansiYellow, clean(l.Verdict))
		}
		t.line("load", "%s", verdict)
	}
	failed := fmt.Sprintf("%d failed", v.Failed)
	if v.Failed > 0 {
		failed = t.paint(ansiRed, failed)
	}
	warned := english.Count(v.Warnings, "warning")
	if v.Warnings > 0 {
		warned = t.paint(ansiYellow, warned)
	}
	t.line("validation", "%d passed, %s, %s (%d checked)", v.Passed, failed, warned, v.Checked)
	if n := p.Errors + p.Timeouts; n > 0 {
		t.line("errors", "%s", t.paint(ansiRed, english.Count(p.Errors, "error")+", "+english.Count(p.Timeouts, "timeout")))
	}
	t.chaos(r.Chaos)
	if n := len(r.Thresholds); n > 0 {
		failed := len(r.ThresholdsFailed())
		msg := fmt.Sprintf("%d failed", failed)
		if failed > 0 {
			msg = t.paint(ansiRed, msg)
		}
		t.line("thresholds", "%d passed, %s", n-failed, msg)
	}
	if r.Summary.Aborted != "" {
		why := r.Summary.Aborted
		if t.abortShownAs != "" {
			why = t.abortShownAs
		}
		t.line("result", "%s", t.paint(ansiBold+ansiRed, "FAIL (stopped early: "+why+")"))
	} else if why := r.Unchecked(); why != "" {
		t.line("result", "%s", t.paint(ansiBold+ansiRed, "FAIL (nothing checked: "+clean(why)+")"))
	} else if why := r.Incomplete(); why != "" {
		t.line("result", "%s", t.paint(ansiBold+ansiRed, "FAIL (incomplete: "+why+"; merge every shard, or accept a partial merge with --allow-partial)"))
	} else if r.Passed() {
		t.line("result", "%s", t.paint(ansiBold+ansiGreen, "PASS"))
	} else {
		t.line("result", "%s", t.paint(ansiBold+ansiRed, "FAIL"))
	}
	for _, th := range r.ThresholdsFailed() {
		fmt.Fprintf(&t.buf, "  %s\n", t.paint(ansiRed, thresholdFailure(th)))
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(&t.buf, "  %s %s\n", t.paint(ansiYellow, "warning:"), clean(w))
	}
}

func (t *textWriter) failures(r Report) {
	v := r.Validation
	if v.Failed == 0 {
		return
	}
	fmt.Fprintf(&t.buf, "\n%s\n", t.paint(ansiBold, "Failures:"))
	groups := groupFailures(v.Failures)
	shown, listed := min(len(groups), textListLimit), int64(0)
	for _, g := range groups[:shown] {
		f := g.first
		fmt.Fprintf(&t.buf, "  %s\n", where(f.Seq, g.sessions, f.Method))
		for _, d := range f.Differences {
			fmt.Fprintf(&t.buf, "    %s: expected %s, got %s\n", clean(orDash(d.Path)), display(d.Expected), display(d.Actual))
		}
		listed += int64(len(g.sessions))
	}
	if more := v.Failed - listed; more > 0 {
		fmt.Fprintf(&t.buf, "  and %d more\n", more)
	}
}

// failureGroup is the failures of one message that differ alike in
// several sessions (the virtual copies of a load replay).
type failureGroup struct {
	first    Failure
	sessions []string // in natural order: s1#2 before s1#10
}

// groupFailures groups the failures that are the same but for their
// session: same seq, method and differences. The groups are in seq
// order, then by their first session.
func groupFailures(fs []Failure) []*failureGroup {
	var groups []*failureGroup
	byKey := map[string]*failureGroup{}
	for _, f := range fs {
		key, err := json.Marshal(Failure{Seq: f.Seq, Method: f.Method, Differences: f.Differences})
		if err != nil { // cannot happen: the differences are JSON
			key = []byte(fmt.Sprint(len(groups)))
		}
		g := byKey[string(key)]
		if g == nil {
			g = &failureGroup{first: f}
			byKey[string(key)] = g
			groups = append(groups, g)
		}
		g.sessions = append(g.sessions, f.Session)
	}
	for _, g := range groups {
		slices.SortFunc(g.sessions, naturalCompare)
	}
	slices.SortStableFunc(groups, func(a, b *failureGroup) int {
		if c := cmp.Compare(a.first.Seq, b.first.Seq); c != 0 {
			return c
		}
		return naturalCompare(a.sessions[0], b.sessions[0])
	})
	return groups
}

// where names a message in sessions: "seq 5 s1 tools/call", or for
// several, "seq 5 tools/call in 20 sessions: s1#1, s1#2, … and 10 more".
func where(seq int64, sessions []string, method string) string {
	if len(sessions) == 1 {
		return fmt.Sprintf("%s %s %s", seqLabel(seq), clean(sessions[0]), clean(method))
	}
	named := min(len(sessions), textListLimit)
	names := make([]string, named)
	for i, s := range sessions[:named] {
		names[i] = clean(s)
	}
	line := fmt.Sprintf("%s %s in %d sessions: %s", seqLabel(seq), clean(method), len(sessions), strings.Join(names, ", "))
	if more := len(sessions) - named; more > 0 {
		line += fmt.Sprintf(" and %d more", more)
	}
	return line
}

func (t *textWriter) errors(r Report) {
	total := r.Performance.Errors + r.Performance.Timeouts
	if total == 0 && len(r.Errors) == 0 {
		return
	}
	fmt.Fprintf(&t.buf, "\n%s\n", t.paint(ansiBold, "Errors:"))
	// The same error of one message in several sessions is one line.
	fs := make([]Failure, len(r.Errors))
	for i, e := range r.Errors {
		fs[i] = Failure{Seq: e.Seq, Session: e.Session, Method: e.Method,
			Differences: []Difference{{Path: e.Kind, Kind: validator.DiffKind(e.Message)}}}
	}
	groups := groupFailures(fs)
	shown, listed := min(len(groups), textListLimit), int64(0)
	for _, g := range groups[:shown] {
		e := g.first.Differences[0]
		fmt.Fprintf(&t.buf, "  %s %s: %s\n", where(g.first.Seq, g.sessions, orDash(g.first.Method)), clean(e.Path), clean(string(e.Kind)))
		listed += int64(len(g.sessions))
	}
	if more := total - listed; more > 0 {
		fmt.Fprintf(&t.buf, "  and %d more\n", more)
	}
}

// seqLabel names a failure's or an error's place on the tape: "seq 5"
// (as debug and JUnit write it; "#5" reads like the session copy s1#5), or,
// for a message the target sent that the tape does not have (seq -1: an
// unrecorded notification, an answer to no request), "(not on tape)".
func seqLabel(seq int64) string {
	if seq < 0 {
		return "(not on tape)"
	}
	return fmt.Sprintf("seq %d", seq)
}

// timeSplit says where the time went, p50 and p99 of each part: the
// replayer's lag, the time held for causal order or the in-flight limit,
// and the target's latency.
func timeSplit(p Performance) string {
	part := func(name string, s Stats) string {
		if s.Count == 0 {
			return name + " -"
		}
		return fmt.Sprintf("%s p50 %s p99 %s", name, FormatDurationMS(s.P50), FormatDurationMS(s.P99))
	}
	return part("lag", p.ScheduleLagMS) + " · " + part("held", p.HeldMS) + " · " + part("latency", p.LatencyMS)
}

// display renders a JSON value for one line: compacted, cut to
// textValueLimit runes, "(absent)" when there is none.
func display(raw json.RawMessage) string { return displayN(raw, textValueLimit) }

// displayN is display cut to limit runes.
func displayN(raw json.RawMessage, limit int) string {
	if len(raw) == 0 {
		return "(absent)"
	}
	var b bytes.Buffer
	s := string(raw)
	if json.Compact(&b, raw) == nil {
		s = b.String()
	}
	s = clean(s)
	if utf8.RuneCountInString(s) > limit {
		s = string([]rune(s)[:limit-1]) + "…"
	}
	return s
}

// clean escapes control characters (terminal escapes, newlines):
// termsafe.String.
func clean(s string) string { return termsafe.String(s) }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// isBudgetLimit reports whether a threshold's limit is a regression
// budget's, which history's gate writes with its comparison ("<= 1.2ms
// (median …)", ">= 4000/s (…)"); a threshold's own limit is a bare value
// ("200.0ms") that its expression already says. The expression cannot
// tell them apart: a budget's filter may hold an '=' (p99{tool:a=b}+20%).
func isBudgetLimit(limit string) bool {
	return strings.HasPrefix(limit, "<=") || strings.HasPrefix(limit, ">=")
}

// thresholdFailure says why a threshold failed:
// "threshold p99<200ms failed: p99 was 231.0ms"; "threshold p99+20%
// failed: p99 was 22.5ms, limit <= 1µs (median 1µs of 5 runs +20%)".
func thresholdFailure(th ThresholdResult) string {
	metric := th.Metric
	if th.Filter != "" {
		metric += "{" + th.Filter + "}"
	}
	s := fmt.Sprintf("threshold %s failed: %s was %s", clean(th.Expr), clean(metric), clean(th.Value))
	if isBudgetLimit(th.Limit) {
		// A regression budget (p99+20%) names no limit: say the one it broke.
		s += ", limit " + clean(th.Limit)
	}
	if th.Detail != "" {
		s += " (" + clean(th.Detail) + ")"
	}
	return s
}
