package report

import "math"

// Geometry of the latency-over-time chart, below the timeline and on the
// same time axis.
const (
	latH       = 220.0
	latTop     = 10.0
	latBottom  = 34.0
	latPlotH   = latH - latTop - latBottom
	latYTicks  = 4
	latPointR  = "2.2"
	latNoAnswR = "3"
)

// latencyChart plots each drawn request's latency (y) at the time it was
// sent (x); requests that got no answer (timeouts, errors) sit on the top
// edge.
type latencyChart struct {
	Height     string
	PlotTop    string
	PlotBottom string
	Points     []latPoint
	YTicks     []tick
}

type latPoint struct {
	X, Y, R, Class, Title string
}

// newLatencyChart lays out the messages idx of r's timeline with the
// timeline chart's x scale.
func newLatencyChart(r Report, idx []int, x func(ms float64) float64) latencyChart {
	c := latencyChart{Height: f1(latH), PlotTop: f1(latTop), PlotBottom: f1(latH - latBottom)}
	maxLat := 0.0
	for _, i := range idx {
		if l := r.Timeline[i].LatencyMS; l != nil {
			maxLat = max(maxLat, *l)
		}
	}
	if maxLat <= 0 {
		maxLat = 1
	}
	step := niceStep(maxLat, latYTicks)
	maxLat = math.Ceil(maxLat/step) * step
	y := func(ms float64) float64 { return latTop + latPlotH - min(max(ms, 0)/maxLat, 1)*latPlotH }
	for v := 0.0; v <= maxLat+step/2; v += step {
		c.YTicks = append(c.YTicks, tick{Pos: f1(y(v)), Label: FormatDurationMS(v)})
	}
	for _, i := range idx {
		e := r.Timeline[i]
		if e.SentMS == nil {
			continue
		}
		p := latPoint{X: f1(x(*e.SentMS)), Class: verdictClass(e.Verdict), Title: markTitle(e), R: latPointR}
		switch {
		case e.LatencyMS != nil:
			p.Y = f1(y(*e.LatencyMS))
		case e.Verdict == Timeout || e.Verdict == Error:
			p.Y, p.R = f1(latTop), latNoAnswR
		default:
			continue // a notification: no latency
		}
		c.Points = append(c.Points, p)
	}
	return c
}
