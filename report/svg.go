package report

import (
	"fmt"
	"math"
	"strconv"
)

// maxChartMessages caps the messages the HTML timeline chart draws; the
// rest are sampled out (messages that failed or erred first kept).
const maxChartMessages = 1000

// Chart geometry, in SVG user units (the charts scale to the page width).
const (
	chartW, chartH        = 960.0, 340.0
	chartLeft, chartRight = 64.0, 16.0
	chartTop, chartBottom = 10.0, 34.0
	chartPlotW            = chartW - chartLeft - chartRight
	chartPlotH            = chartH - chartTop - chartBottom
	ticksWanted           = 8
	histW, histH          = 960.0, 240.0
	histLeft, histRight   = 48.0, 16.0
	histTop, histBottom   = 18.0, 40.0
	histPlotW             = histW - histLeft - histRight
	histPlotH             = histH - histTop - histBottom
	histBarGap            = 0.15 // of a bar's slot
	histMaxLabelled       = 24   // more bars than this: label every other one
	verdictClassOther     = "v-other"
	chartNoTime           = math.MaxFloat64
)

// timelineChart is the geometry of the HTML timeline: one row per drawn
// message, x the time since the start of the replay.
type timelineChart struct {
	Width, Height string
	Marks         []timelineMark
	XTicks        []tick
	PlotLeft      string
	PlotRight     string
	PlotTop       string
	PlotBottom    string
	Drawn, Total  int
	Omitted       int64 // entries the report's timeline left out
	Latency       latencyChart
}

// timelineMark is one message: a line from due (or sent) to answered, a
// hollow mark at due, a dot at sent and a dot at answered coloured by
// verdict.
type timelineMark struct {
	Class                        string
	Title                        string
	Y                            string
	X1, X2                       string
	Due, Sent, Answered          string // "" when not applicable
	HasDue, HasSent, HasAnswered bool
}

type tick struct {
	Pos   string
	Label string
}

// histChart is the geometry of the HTML latency histogram.
type histChart struct {
	Width, Height string
	Bars          []histBar
	Baseline      string
	PlotLeft      string
	PlotRight     string
	Max           int64
}

type histBar struct {
	X, Y, W, H     string
	LabelX, LabelY string
	Label          string // "≤5ms", empty when skipped for room
	Count          int64
	CountY         string
	Title          string
}

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// verdictClass is the CSS class of a verdict; verdicts from elsewhere get
// a fixed class, never their own text.
func verdictClass(v Verdict) string {
	switch v {
	case Passed, Warned, Failed, Skipped, Error, Timeout, Sent:
		return "v-" + string(v)
	default:
		return verdictClassOther
	}
}

// bad reports whether a verdict is one a reader looks for.
func bad(v Verdict) bool {
	return v != Passed && v != Warned && v != Skipped && v != Sent
}

// sampleTimeline picks at most limit indices of entries, in order: every
// bad entry up to half the limit, and the rest evenly spread.
func sampleTimeline(entries []TimelineEntry, limit int) []int {
	n := len(entries)
	if n <= limit {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	keep := make([]bool, n)
	kept := 0
	for i, e := range entries {
		if kept >= limit/2 {
			break
		}
		if bad(e.Verdict) {
			keep[i] = true
			kept++
		}
	}
	rest := make([]int, 0, n-kept) // the others, to spread the room over
	for i, k := range keep {
		if !k {
			rest = append(rest, i)
		}
	}
	room := min(limit-kept, len(rest))
	for j := range room {
		keep[rest[j*len(rest)/room]] = true
	}
	kept += room
	idx := make([]int, 0, kept)
	for i, k := range keep {
		if k {
			idx = append(idx, i)
		}
	}
	return idx
}

// newTimelineChart lays out the report's timeline.
func newTimelineChart(r Report) timelineChart {
	c := timelineChart{
		Width: f1(chartW), Height: f1(chartH),
		PlotLeft: f1(chartLeft), PlotRight: f1(chartW - chartRight),
		PlotTop: f1(chartTop), PlotBottom: f1(chartH - chartBottom),
		Total: len(r.Timeline), Omitted: r.TimelineOmitted,
	}
	idx := sampleTimeline(r.Timeline, maxChartMessages)
	c.Drawn = len(idx)
	maxMS := 0.0
	for _, i := range idx {
		e := r.Timeline[i]
		for _, p := range []*float64{e.DueMS, e.SentMS, e.AnsweredMS} {
			if p != nil && *p > maxMS {
				maxMS = *p
			}
		}
	}
	if maxMS <= 0 {
		maxMS = 1
	}
	step := niceStep(maxMS, ticksWanted)
	maxMS = math.Ceil(maxMS/step) * step
	x := func(ms float64) float64 { return chartLeft + max(ms, 0)/maxMS*chartPlotW }
	for v := 0.0; v <= maxMS+step/2; v += step {
		c.XTicks = append(c.XTicks, tick{Pos: f1(x(v)), Label: FormatDurationMS(v)})
	}
	rowH := chartPlotH / float64(max(len(idx), 1))
	c.Marks = make([]timelineMark, 0, len(idx))
	for row, i := range idx {
		e := r.Timeline[i]
		m := timelineMark{Class: verdictClass(e.Verdict), Y: f1(chartTop + (float64(row)+0.5)*rowH)}
		lo, hi := chartNoTime, -chartNoTime
		for _, p := range []struct {
			v   *float64
			has *bool
			out *string
		}{{e.DueMS, &m.HasDue, &m.Due}, {e.SentMS, &m.HasSent, &m.Sent}, {e.AnsweredMS, &m.HasAnswered, &m.Answered}} {
			if p.v == nil {
				continue
			}
			*p.has = true
			px := x(*p.v)
			*p.out = f1(px)
			lo, hi = min(lo, px), max(hi, px)
		}
		if hi < lo { // no time at all: nothing to draw
			continue
		}
		m.X1, m.X2 = f1(lo), f1(hi)
		m.Title = markTitle(e)
		c.Marks = append(c.Marks, m)
	}
	c.Latency = newLatencyChart(r, idx, x)
	return c
}

func markTitle(e TimelineEntry) string {
	s := fmt.Sprintf("seq %d %s %s (%s): %s", e.Seq, clean(e.Session), clean(orDash(e.Method)), e.Dir, clean(string(e.Verdict)))
	for _, p := range []struct {
		name string
		v    *float64
	}{{"due", e.DueMS}, {"sent", e.SentMS}, {"answered", e.AnsweredMS}, {"latency", e.LatencyMS}} {
		if p.v != nil {
			s += fmt.Sprintf("; %s %s", p.name, FormatMS(*p.v))
		}
	}
	return s
}

// niceStep is a 1-2-5 step that cuts 0..span into about n parts.
func niceStep(span float64, n int) float64 {
	raw := span / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			return m * mag
		}
	}
	return 10 * mag
}

// newHistChart lays out the latency histogram's buckets as bars.
func newHistChart(buckets []HistogramBucket) histChart {
	h := histChart{
		Width: f1(histW), Height: f1(histH),
		Baseline: f1(histTop + histPlotH), PlotLeft: f1(histLeft), PlotRight: f1(histW - histRight),
	}
	for _, b := range buckets {
		h.Max = max(h.Max, b.Count)
	}
	if len(buckets) == 0 || h.Max == 0 {
		return h
	}
	slot := histPlotW / float64(len(buckets))
	every := 1
	if len(buckets) > histMaxLabelled {
		every = 2
	}
	for i, b := range buckets {
		height := float64(b.Count) / float64(h.Max) * histPlotH
		if b.Count > 0 {
			height = max(height, 1) // a bucket with values is never invisible
		}
		x := histLeft + float64(i)*slot
		bar := histBar{
			X: f1(x + slot*histBarGap/2), W: f1(slot * (1 - histBarGap)),
			Y: f1(histTop + histPlotH - height), H: f1(height),
			LabelX: f1(x + slot/2), LabelY: f1(histTop + histPlotH + 16),
			Count: b.Count, CountY: f1(histTop + histPlotH - height - 4),
			Title: fmt.Sprintf("%d latencies ≤ %s", b.Count, FormatDurationMS(b.LeMS)),
		}
		if i%every == 0 {
			bar.Label = "≤" + FormatDurationMS(b.LeMS)
		}
		h.Bars = append(h.Bars, bar)
	}
	return h
}
