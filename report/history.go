package report

import (
	"fmt"
	"html/template"
	"math"
	"strings"
)

// HistoryLink is the report's "history" section: the run store the run
// was kept in and the recent trend of each method, for the HTML page's
// sparklines. Package history fills it.
type HistoryLink struct {
	Store    string `json:"store"`     // the store's file
	Run      int64  `json:"run"`       // the run's number in it
	TapeHash string `json:"tape_hash"` // the tape's content hash
	// Trends are each method's p99 over the tape's last runs, this one
	// last.
	Trends []MethodTrend `json:"trends,omitempty"`
}

// MethodTrend is one method's p99 in milliseconds over runs, oldest
// first; null where a run has none.
type MethodTrend struct {
	Method string     `json:"method"`
	Runs   []int64    `json:"runs"`
	P99MS  []*float64 `json:"p99_ms"`
}

// sparkline draws vs (nil: no value) as a small inline SVG polyline,
// its last point marked; the title lists the values.
func sparkline(t MethodTrend) template.HTML {
	const w, h = 160.0, 28.0
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range t.P99MS {
		if v != nil {
			lo, hi = math.Min(lo, *v), math.Max(hi, *v)
		}
	}
	if math.IsInf(lo, 0) {
		return "no data"
	}
	if hi == lo {
		hi, lo = hi+1, lo-1
	}
	n := len(t.P99MS)
	x := func(i int) float64 {
		if n == 1 {
			return w / 2
		}
		return 2 + float64(i)*(w-4)/float64(n-1)
	}
	y := func(v float64) float64 { return h - 3 - (v-lo)/(hi-lo)*(h-6) }
	var pts, titles []string
	last := ""
	for i, v := range t.P99MS {
		if v == nil {
			titles = append(titles, fmt.Sprintf("run %d: no data", t.Runs[i]))
			continue
		}
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), y(*v)))
		titles = append(titles, fmt.Sprintf("run %d: %s", t.Runs[i], FormatMS(*v)))
		last = fmt.Sprintf(`<circle cx="%.1f" cy="%.1f" r="2.5" fill="#c0392b"/>`, x(i), y(*v))
	}
	svg := fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" role="img"><title>%s</title><polyline fill="none" stroke="#2a6fdb" stroke-width="1.5" points="%s"/>%s</svg>`,
		w, h, w, h, template.HTMLEscapeString(strings.Join(titles, "; ")), strings.Join(pts, " "), last)
	return template.HTML(svg) //nolint:gosec // numbers and escaped text only
}
