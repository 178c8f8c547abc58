package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/replayctl/replayctl/internal/atomicfile"
	"github.com/replayctl/replayctl/internal/english"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/validator"
)

// textNoiseLimit is how many noise paths the text lists; -o json and the
// HTML page list them all.
const textNoiseLimit = 20

// WriteJSON writes r as one indented JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteText writes r for a terminal: the runs, the changed paths with an
// example each, the noise, and the latency per method and name.
func (r *Report) WriteText(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "compare %s\n", r.Tape)
	for _, run := range r.Runs {
		target := run.Target
		if run.Again {
			target += " (the primary again)"
		}
		fmt.Fprintf(&b, "  %-9s  %s: %d answers in %s", run.Role, target, run.Answers, report.FormatDurationMS(run.DurationMS))
		switch {
		case run.Status == report.ExitTarget:
			fmt.Fprintf(&b, ", target failed")
		case run.Error != "":
			fmt.Fprintf(&b, ", stopped early")
		}
		if run.Error != "" {
			fmt.Fprintf(&b, ": %s", run.Error)
		}
		b.WriteByte('\n')
	}
	for _, run := range r.Runs {
		if run.Status == report.ExitTarget {
			fmt.Fprintf(&b, "the %s's target failed: each answer it did not give is a change at $, and its latency rows are empty\n", run.Role)
		}
	}
	s := r.Summary
	fmt.Fprintf(&b, "%d answers paired over %d methods and names; margins: relative %g%%, absolute %g%%\n",
		s.Compared, s.Endpoints, r.Margins.Relative, r.Margins.Absolute)
	if r.Seed != nil {
		fmt.Fprintf(&b, "seed %d, picked by the primary's replay, given to the others (repeat with --seed %d)\n", *r.Seed, *r.Seed)
	}
	b.WriteByte('\n')

	if len(r.Changed) == 0 {
		b.WriteString("changed: none (no path differs more between primary and candidate than between two runs of the primary)\n")
	} else {
		fmt.Fprintf(&b, "changed: %d %s\n", len(r.Changed), english.Plural(int64(len(r.Changed)), "path"))
		tw := tabwriter.NewWriter(&b, 2, 8, 2, ' ', 0)
		for _, p := range r.Changed {
			fmt.Fprintf(tw, "  %s\t%s\traw %d/%d\tnoise %d/%d\t%s\n", endpointName(p.Method, p.Name), p.Path, p.Raw, p.Total, p.Noise, p.Total, example(p))
		}
		tw.Flush()
	}
	noise := r.noise()
	if len(noise) > 0 {
		fmt.Fprintf(&b, "\nnoise: %d %s not reported (they differ as much between runs of the primary)\n", len(noise), english.Plural(int64(len(noise)), "path"))
		tw := tabwriter.NewWriter(&b, 2, 8, 2, ' ', 0)
		for i, p := range noise {
			if i == textNoiseLimit {
				fmt.Fprintf(tw, "  … %d more (-o json lists them all)\n", len(noise)-i)
				break
			}
			fmt.Fprintf(tw, "  %s\t%s\traw %d/%d\tnoise %d/%d\n", endpointName(p.Method, p.Name), p.Path, p.Raw, p.Total, p.Noise, p.Total)
		}
		tw.Flush()
	}
	if len(r.Latency) > 0 {
		b.WriteString("\nlatency, primary → candidate (secondary):\n")
		tw := tabwriter.NewWriter(&b, 2, 8, 2, ' ', 0)
		fmt.Fprintf(tw, "  \tn\tp50\tp90\tp99\tKS p\t\n")
		for _, l := range r.Latency {
			verdict := ""
			switch {
			case l.Missing != "":
				verdict = l.Missing
			case l.Changed && l.NoiseChanged:
				verdict = "changed (but so did the secondary: noisy)"
			case l.Changed:
				verdict = "changed"
			}
			fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%s\t%.2g\t%s\n", endpointName(l.Method, l.Name), l.Candidate.N,
				arrow(l.Primary.P50, l.Candidate.P50, l.Secondary.P50),
				arrow(l.Primary.P90, l.Candidate.P90, l.Secondary.P90),
				arrow(l.Primary.P99, l.Candidate.P99, l.Secondary.P99), l.KSP, verdict)
		}
		tw.Flush()
	}
	_, err := w.Write(b.Bytes())
	return err
}

// noise is the paths that differed and were not reported.
func (r *Report) noise() []Path {
	var out []Path
	for _, p := range r.Paths {
		if !p.Changed {
			out = append(out, p)
		}
	}
	return out
}

func endpointName(method, name string) string {
	if name == "" {
		return method
	}
	return method + " " + name
}

func example(p Path) string {
	e := p.Example
	switch {
	case e == nil:
		return ""
	case p.Path == MorePaths:
		return fmt.Sprintf("e.g. %s seq %d: %s", e.Session, e.Seq, more(e.Candidate))
	}
	return fmt.Sprintf("e.g. %s seq %d: %s → %s", e.Session, e.Seq, shown(e.Primary), shown(e.Candidate))
}

// more says what MorePaths' example holds: how many differences one
// answer had past those listed.
func more(n json.RawMessage) string {
	return fmt.Sprintf("%s more differences, past the %d listed", shown(n), validator.MaxDifferences)
}

// shown is a value on one line, cut to 60 runes; "(absent)" for none.
func shown(v json.RawMessage) string {
	if v == nil {
		return "(absent)"
	}
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		b.Reset()
		b.Write(v)
	}
	s := strings.ReplaceAll(b.String(), "\n", " ")
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return s
}

// arrow shows three latencies in milliseconds as durations: "1.51s → 1.62s (1.50s)".
func arrow(p, c, s float64) string {
	return fmt.Sprintf("%s → %s (%s)", report.FormatMS(p), report.FormatMS(c), report.FormatMS(s))
}

// WriteHTML writes r as a self-contained HTML page (no script, nothing
// fetched): the runs, the changed paths, the noise and the latency, as
// tables.
func (r *Report) WriteHTML(w io.Writer) error {
	return htmlPage.Execute(w, struct {
		R     *Report
		Noise []Path
	}{r, r.noise()})
}

var htmlPage = template.Must(template.New("compare").Funcs(template.FuncMap{
	"endpoint": endpointName,
	"shown":    shown,
	"arrow":    arrow,
	"ms":       report.FormatDurationMS,
	"p":        func(v float64) string { return fmt.Sprintf("%.2g", v) },
	"pct":      func(v float64) string { return fmt.Sprintf("%.3g%%", v) },
	"more":     more,
	"isMore":   func(path string) bool { return path == MorePaths },
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>replayctl compare: {{.R.Tape}}</title>
<style>body{font-family:system-ui,sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:1.5em}td,th{padding:2px 8px;text-align:left;border-bottom:1px solid #ddd}td.n{text-align:right;white-space:nowrap}.changed{color:#b00020;font-weight:600}.quiet{color:#666}code{font-size:90%}</style>
</head><body>
<h1>compare {{.R.Tape}}</h1>
<table><tr><th>run</th><th>target</th><th>answers</th><th>time</th><th>status</th></tr>
{{range .R.Runs}}<tr><td>{{.Role}}</td><td><code>{{.Target}}</code>{{if .Again}} (the primary again){{end}}</td><td class="n">{{.Answers}}</td><td class="n">{{ms .DurationMS}}</td><td>{{if eq .Status 3}}<span class="changed">failed</span>{{else}}ok{{end}}{{if .Error}}: {{.Error}}{{end}}</td></tr>
{{end}}</table>
<p>{{.R.Summary.Compared}} answers paired over {{.R.Summary.Endpoints}} methods and names. A path is reported when it differs more often between primary and candidate (raw) than between two runs of the primary's code (noise): raw &gt; noise, relative margin &gt; {{.R.Margins.Relative}}%, absolute margin &gt; {{.R.Margins.Absolute}}%.</p>
<h2 class="{{if .R.Changed}}changed{{end}}">Changed: {{len .R.Changed}}</h2>
{{if .R.Changed}}<table><tr><th>method</th><th>path</th><th>raw</th><th>noise</th><th>relative</th><th>absolute</th><th>example: primary → candidate</th></tr>
{{range .R.Changed}}<tr><td>{{endpoint .Method .Name}}</td><td><code>{{.Path}}</code></td><td class="n">{{.Raw}}/{{.Total}}</td><td class="n">{{.Noise}}/{{.Total}}</td><td class="n">{{pct .Relative}}</td><td class="n">{{pct .Absolute}}</td><td>{{$more := isMore .Path}}{{with .Example}}{{.Session}} seq {{.Seq}}: {{if $more}}{{more .Candidate}}{{else}}<code>{{shown .Primary}}</code> → <code>{{shown .Candidate}}</code>{{end}}{{end}}</td></tr>
{{end}}</table>{{end}}
<h2>Noise: {{len .Noise}}</h2>
{{if .Noise}}<table class="quiet"><tr><th>method</th><th>path</th><th>raw</th><th>noise</th></tr>
{{range .Noise}}<tr><td>{{endpoint .Method .Name}}</td><td><code>{{.Path}}</code></td><td class="n">{{.Raw}}/{{.Total}}</td><td class="n">{{.Noise}}/{{.Total}}</td></tr>
{{end}}</table>{{end}}
<h2>Latency</h2>
<table><tr><th>method</th><th>n</th><th>p50 primary → candidate (secondary)</th><th>p90</th><th>p99</th><th>KS p</th><th>P(candidate slower)</th><th></th></tr>
{{range .R.Latency}}<tr><td>{{endpoint .Method .Name}}</td><td class="n">{{.Candidate.N}}</td><td class="n">{{arrow .Primary.P50 .Candidate.P50 .Secondary.P50}}</td><td class="n">{{arrow .Primary.P90 .Candidate.P90 .Secondary.P90}}</td><td class="n">{{arrow .Primary.P99 .Candidate.P99 .Secondary.P99}}</td><td class="n">{{p .KSP}}</td><td class="n">{{p .ProbSlower}}</td><td>{{if .Missing}}{{.Missing}}{{else if .Changed}}<span class="changed">changed</span>{{if .NoiseChanged}} (so did the secondary: noisy){{end}}{{end}}</td></tr>
{{end}}</table>
</body></html>
`))

// CheckPath says whether a report can be written at path: a name ending
// in .json or .html, in a folder that exists and can be written to.
// Check it before replaying: the runs take a while.
func CheckPath(path string) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json", ".html":
	default:
		return fmt.Errorf("report %s: name the file .json or .html", path)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return fmt.Errorf("report %s: the folder %s does not exist; create it first", path, filepath.Dir(path))
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("report %s: is a directory; name a file", path)
	}
	if err := atomicfile.Probe(path); err != nil {
		return fmt.Errorf("report %s: cannot write in the folder %s; choose a folder you can write to", path, filepath.Dir(path))
	}
	return nil
}

// WriteFile writes r to path, whole or not at all: JSON for a .json
// name, the HTML page for .html (see CheckPath).
func (r *Report) WriteFile(path string) error {
	if err := CheckPath(path); err != nil {
		return err
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return fmt.Errorf("report %s: %w", path, err)
	}
	defer f.Abort() // after Commit, nothing
	write := r.WriteJSON
	if strings.EqualFold(filepath.Ext(path), ".html") {
		write = r.WriteHTML
	}
	if err := write(f); err != nil {
		return fmt.Errorf("report %s: %w", path, err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("report %s: %w", path, err)
	}
	return nil
}
