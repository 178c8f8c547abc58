package history

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"

	"github.com/replayctl/replayctl/report"
)

// WriteTrendHTML writes points of m as a self-contained HTML page: one
// inline SVG line chart (no script, nothing fetched), the runs under it
// as a table.
func WriteTrendHTML(w io.Writer, m report.Metric, points []Point) error {
	return trendPage.Execute(w, struct {
		Metric string
		SVG    template.HTML
		Points []Point
		Format func(Point) string
	}{m.String(), template.HTML(trendSVG(m, points)), points, func(p Point) string {
		if !p.Measured {
			return "no data"
		}
		return m.Format(p.Value)
	}})
}

// trendSVG draws the measured points as a polyline with a dot per run.
func trendSVG(m report.Metric, points []Point) string {
	const w, h, pad = 800.0, 300.0, 50.0
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range points {
		if p.Measured {
			lo, hi = math.Min(lo, p.Value), math.Max(hi, p.Value)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %g %g" width="%g" height="%g" role="img" aria-label="%s over runs">`, w, h, w, h, template.HTMLEscapeString(m.String()))
	fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#888"/><line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#888"/>`, pad, h-pad, w-pad/2, h-pad, pad, pad/2, pad, h-pad)
	if math.IsInf(lo, 0) {
		fmt.Fprintf(&b, `<text x="%g" y="%g">no data</text></svg>`, w/2, h/2)
		return b.String()
	}
	if hi == lo {
		hi, lo = hi+1, math.Max(0, lo-1)
	}
	x := func(i int) float64 {
		if len(points) == 1 {
			return (w + pad/2) / 2
		}
		return pad + float64(i)*(w-1.5*pad)/float64(len(points)-1)
	}
	y := func(v float64) float64 { return h - pad - (v-lo)/(hi-lo)*(h-1.5*pad) }
	fmt.Fprintf(&b, `<text x="4" y="%g" font-size="11">%s</text><text x="4" y="%g" font-size="11">%s</text>`,
		y(hi)+4, template.HTMLEscapeString(m.Format(hi)), y(lo)+4, template.HTMLEscapeString(m.Format(lo)))
	var line []string
	for i, p := range points {
		if p.Measured {
			line = append(line, fmt.Sprintf("%.1f,%.1f", x(i), y(p.Value)))
		}
	}
	fmt.Fprintf(&b, `<polyline fill="none" stroke="#2a6fdb" stroke-width="2" points="%s"/>`, strings.Join(line, " "))
	for i, p := range points {
		if p.Measured {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="#2a6fdb"><title>run %d: %s</title></circle>`, x(i), y(p.Value), p.Run, template.HTMLEscapeString(m.Format(p.Value)))
		}
	}
	fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="11">run %d</text><text x="%g" y="%g" font-size="11" text-anchor="end">run %d</text>`,
		pad, h-pad+16, points[0].Run, w-pad/2, h-pad+16, points[len(points)-1].Run)
	b.WriteString(`</svg>`)
	return b.String()
}

var trendPage = template.Must(template.New("trend").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>replayctl history: {{.Metric}}</title>
<style>body{font-family:system-ui,sans-serif;margin:2em}table{border-collapse:collapse}td,th{padding:2px 8px;text-align:right}</style>
</head><body>
<h1>{{.Metric}} over runs</h1>
{{.SVG}}
<table><tr><th>run</th><th>started (UTC)</th><th>version</th><th>{{.Metric}}</th></tr>
{{range .Points}}<tr><td>{{.Run}}</td><td>{{.StartedAt.Format "2006-01-02 15:04:05"}}</td><td>{{.Version}}</td><td>{{call $.Format .}}</td></tr>
{{end}}</table>
</body></html>
`))
