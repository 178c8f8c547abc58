package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/replayctl/replayctl/internal/termsafe"
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
	t.body(r)
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
	if s.Sessions > 0 {
		extra = append(extra, plural(int64(s.Sessions), "session"))
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
	t.line("messages", "%d sent, %d received, %d skipped (%d on tape)", s.Sent, s.Received, s.Skipped, s.TotalMessages)
	t.line("duration", "%s, %.1f requests/s, error rate %.2f%%", msDuration(s.DurationMS), p.ThroughputPerS, p.ErrorRate*100)
	if p.LatencyMS.Count > 0 {
		l := p.LatencyMS
		t.line("latency", "p50 %s  p95 %s  p99 %s  max %s", msDuration(l.P50), msDuration(l.P95), msDuration(l.P99), msDuration(l.Max))
	} else {
		t.line("latency", "no request answered")
	}
	if p.ScheduleLagMS.Count > 0 {
		t.line("lag", "p99 %s  max %s", msDuration(p.ScheduleLagMS.P99), msDuration(p.ScheduleLagMS.Max))
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
	warned := plural(v.Warnings, "warning")
	if v.Warnings > 0 {
		warned = t.paint(ansiYellow, warned)
	}
	t.line("validation", "%d passed, %s, %s (%d checked)", v.Passed, failed, warned, v.Checked)
	if n := p.Errors + p.Timeouts; n > 0 {
		t.line("errors", "%s", t.paint(ansiRed, plural(p.Errors, "error")+", "+plural(p.Timeouts, "timeout")))
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
	shown := min(len(v.Failures), textListLimit)
	for _, f := range v.Failures[:shown] {
		fmt.Fprintf(&t.buf, "  %s %s %s\n", seqLabel(f.Seq), clean(f.Session), clean(f.Method))
		for _, d := range f.Differences {
			fmt.Fprintf(&t.buf, "    %s: expected %s, got %s\n", clean(orDash(d.Path)), display(d.Expected), display(d.Actual))
		}
	}
	if more := v.Failed - int64(shown); more > 0 {
		fmt.Fprintf(&t.buf, "  and %d more\n", more)
	}
}

func (t *textWriter) errors(r Report) {
	total := r.Performance.Errors + r.Performance.Timeouts
	if total == 0 && len(r.Errors) == 0 {
		return
	}
	fmt.Fprintf(&t.buf, "\n%s\n", t.paint(ansiBold, "Errors:"))
	shown := min(len(r.Errors), textListLimit)
	for _, e := range r.Errors[:shown] {
		fmt.Fprintf(&t.buf, "  %s %s %s %s: %s\n", seqLabel(e.Seq), clean(e.Session), clean(orDash(e.Method)), clean(e.Kind), clean(e.Message))
	}
	if more := total - int64(shown); more > 0 {
		fmt.Fprintf(&t.buf, "  and %d more\n", more)
	}
}

// seqLabel names a failure's or an error's place on the tape: #seq, or,
// for a message the target sent that the tape does not have (seq -1: an
// unrecorded notification, an answer to no request), "(not on tape)".
func seqLabel(seq int64) string {
	if seq < 0 {
		return "(not on tape)"
	}
	return fmt.Sprintf("#%d", seq)
}

// timeSplit says where the time went, p50 and p99 of each part: the
// replayer's lag, the time held for causal order or the in-flight limit,
// and the target's latency.
func timeSplit(p Performance) string {
	part := func(name string, s Stats) string {
		if s.Count == 0 {
			return name + " -"
		}
		return fmt.Sprintf("%s p50 %s p99 %s", name, msDuration(s.P50), msDuration(s.P99))
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

func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// msDuration renders milliseconds as a duration with sensible precision.
func msDuration(ms float64) string {
	d := time.Duration(ms * float64(time.Millisecond))
	switch {
	case d < time.Millisecond:
		d = d.Round(time.Microsecond)
	case d < time.Second:
		d = d.Round(10 * time.Microsecond)
	default:
		d = d.Round(time.Millisecond)
	}
	return d.String()
}

// thresholdFailure says why a threshold failed:
// "threshold p99<200ms failed: p99 was 231.0ms".
func thresholdFailure(th ThresholdResult) string {
	return fmt.Sprintf("threshold %s failed: %s was %s", clean(th.Expr), clean(th.Metric), clean(th.Value))
}
