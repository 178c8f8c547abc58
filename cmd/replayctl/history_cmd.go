package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"text/tabwriter"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/spf13/cobra"

	"github.com/replayctl/replayctl/history"
	"github.com/replayctl/replayctl/internal/atomicfile"
	"github.com/replayctl/replayctl/internal/english"
	"github.com/replayctl/replayctl/report"
)

// historyCmdFlags are the flags every history subcommand shares.
type historyCmdFlags struct {
	dir  string
	tape string
	last int
}

func (a *app) historyCommand() *cobra.Command {
	var f historyCmdFlags
	cmd := &cobra.Command{
		Use:   "history [list|trend|flaky|compare]",
		Short: "Runs kept with run --history: list, trends, flaky messages, latency changes",
		Long: `Read the run store that replayctl run --history DIR keeps (history.db in DIR;
default $` + envHistory + `).

  list             runs, newest first
  trend METRIC     a metric over runs: p50{method:tools/call}, p99, error_rate, achieved_rate, …
  flaky            messages whose verdict flips between runs
  compare A B      per method, whether the latency distribution changed from A to B
                   (a run number, a run id's start, or a range of run numbers 1..10)`,
		Example: `  replayctl history --history .replayctl-history
  replayctl history trend 'p99{method:tools/call}' --tape smoke.jsonl --html trend.html
  replayctl history flaky --tape smoke.jsonl
  replayctl history compare 1..10 11..20`,
		Args: subcommandArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return a.historyList(cmd, f) },
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&f.dir, "history", "", "the run store's folder (default $"+envHistory+")")
	pf.StringVar(&f.tape, "tape", "", "only the runs of this tape: as run named it, or its sha256 hash (or its first 8 hex digits)")
	pf.IntVar(&f.last, "last", 0, fmt.Sprintf("only the newest N runs (0: all; flaky: default %d)", defaultFlakyRuns))
	list := &cobra.Command{Use: "list", Short: "Runs, newest first", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return a.historyList(cmd, f) }}
	var html string
	trend := &cobra.Command{Use: "trend METRIC", Short: "A metric over runs, as text or an HTML chart", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return a.historyTrend(cmd, f, args[0], html) }}
	trend.Flags().StringVar(&html, "html", "", "also write the trend as a self-contained HTML chart (inline SVG) to FILE")
	var rule history.Rule = history.DefaultRule
	flaky := &cobra.Command{Use: "flaky", Short: "Messages whose verdict flips between runs", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if rule.MinRuns < 1 {
				return usageError("--min-runs %d: want 1 or more", rule.MinRuns)
			}
			return a.historyFlaky(cmd, f, rule)
		}}
	flaky.Flags().IntVar(&rule.MinRuns, "min-runs", history.DefaultRule.MinRuns, "runs that judged a message before it can be called flaky")
	var copts history.CompareOptions
	compare := &cobra.Command{Use: "compare A B", Short: "Per method, whether the latency distribution changed", Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case copts.Alpha <= 0 || copts.Alpha >= 1:
				return usageError("--alpha %g: want a probability between 0 and 1, such as 0.01", copts.Alpha)
			case copts.MinEffect < 0:
				return usageError("--min-effect %g: want a fraction of 0 or more, such as 0.1 for 10%%", copts.MinEffect)
			case copts.MinShift < 0:
				return usageError("--min-shift %s: want a duration of 0 or more, such as 100µs", copts.MinShift)
			case copts.MinShift == 0:
				copts.MinShift = -1 // none (the library's zero is its default)
			}
			return a.historyCompare(cmd, f, args[0], args[1], copts)
		}}
	compare.Flags().Float64Var(&copts.Alpha, "alpha", history.DefaultAlpha, "significance level of the test: changed when p is below it")
	compare.Flags().Float64Var(&copts.MinEffect, "min-effect", history.DefaultMinEffect, "smallest move of the median or p95, as a fraction of A's, that counts as a change")
	compare.Flags().DurationVar(&copts.MinShift, "min-shift", history.DefaultMinShift, "smallest move of the median or p95, as a duration, that counts as a change (a few µs on a fast target is clock jitter)")
	cmd.AddCommand(list, trend, flaky, compare)
	return cmd
}

// openHistory opens the store f names, or says how to name one.
func openHistory(ctx context.Context, f historyCmdFlags) (*history.Store, error) {
	if f.last < 0 {
		return nil, usageError("--last %d: want 0 (all runs) or more", f.last)
	}
	dir := f.dir
	if dir == "" {
		dir = os.Getenv(envHistory)
	}
	if dir == "" {
		return nil, usageError("no run store: give --history DIR (the folder run --history kept runs in) or set $%s", envHistory)
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, usageError("--history %s is a file: name the folder replayctl run --history kept runs in (it holds %s)", dir, history.FileName)
	}
	if _, err := os.Stat(dir + "/" + history.FileName); err != nil {
		return nil, usageError("%s holds no run store (%s): keep runs there with replayctl run --history %s", dir, history.FileName, dir)
	}
	s, err := history.Open(ctx, dir)
	if err != nil {
		return nil, usageError("%v", err)
	}
	if err := knownTape(ctx, s, f.tape); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// knownTape refuses a --tape that names no run kept in s, naming the
// tapes s has: an empty answer would pass for "nothing to see".
func knownTape(ctx context.Context, s *history.Store, tape string) error {
	if tape == "" {
		return nil
	}
	if runs, err := s.Runs(ctx, history.Query{Tape: tape, Last: 1}); err != nil || len(runs) > 0 {
		return err
	}
	kept, err := s.Tapes(ctx)
	if err != nil {
		return err
	}
	const shown = 10
	var tapes []string
	for _, t := range kept {
		tapes = append(tapes, t.Name+" ("+shortHash(t.Hash)+")")
	}
	has := "it holds no run"
	switch {
	case len(tapes) > shown:
		has = "its tapes: " + strings.Join(tapes[:shown], ", ") + fmt.Sprintf(" and %d more", len(tapes)-shown)
	case len(tapes) > 0:
		has = "its tapes: " + strings.Join(tapes, ", ")
	}
	return usageError("--tape %s: no run in %s is of this tape; %s (give the tape as run was given it, or its hash's first 8 hex digits: replayctl history list shows them)", tape, s.Path(), has)
}

func (f historyCmdFlags) query() history.Query { return history.Query{Tape: f.tape, Last: f.last} }

func (a *app) historyList(cmd *cobra.Command, f historyCmdFlags) error {
	s, err := openHistory(cmd.Context(), f)
	if err != nil {
		return err
	}
	defer s.Close()
	runs, err := s.Runs(cmd.Context(), f.query())
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if len(runs) == 0 {
		fmt.Fprintln(out, "no runs")
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSTARTED (UTC)\tTAPE\tHASH\tVERSION\tRESULT\tSESSIONS\tSPEED\tSENT\tFAILED\tERRORS\tDURATION")
	for _, r := range runs {
		result := "passed"
		if !r.Passed {
			result = fmt.Sprintf("failed (exit %d)", r.ExitStatus)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%d\t%d\t%d\t%s\n", r.ID, r.StartedAt.Format("2006-01-02 15:04:05"), r.TapeName,
			shortHash(r.TapeHash), dash(r.Version), result, max(r.Sessions, 1), dash(r.Speed), r.Sent, r.Failed, r.Errors, report.FormatDurationMS(r.DurationMS))
	}
	return tw.Flush()
}

func shortHash(h string) string {
	h = strings.TrimPrefix(h, history.HashPrefix)
	if len(h) > 8 {
		return h[:8]
	}
	return h
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (a *app) historyTrend(cmd *cobra.Command, f historyCmdFlags, metric, html string) error {
	m, err := report.ParseMetric(metric)
	if err != nil {
		return usageError("history trend: %v", err)
	}
	s, err := openHistory(cmd.Context(), f)
	if err != nil {
		return err
	}
	defer s.Close()
	points, err := s.Trend(cmd.Context(), f.query(), m)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	tw := tabwriter.NewWriter(out, 0, 2, 2, ' ', 0)
	fmt.Fprintf(tw, "RUN\tSTARTED (UTC)\tVERSION\t%s\n", m)
	for _, p := range points {
		v := "no data"
		if p.Measured {
			v = m.Format(p.Value)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", p.Run, p.StartedAt.Format("2006-01-02 15:04:05"), dash(p.Version), v)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if slope, n := history.Slope(points); n >= 2 {
		if m.IsDuration() {
			fmt.Fprintf(out, "slope over %d runs: %s per run\n", n, signedMS(slope))
		} else {
			fmt.Fprintf(out, "slope over %d runs: %+g %s per run\n", n, round3(slope), m.Unit())
		}
	}
	if html != "" {
		if err := writeFileAtomic(html, func(w io.Writer) error { return history.WriteTrendHTML(w, m, points) }); err != nil {
			return fmt.Errorf("history trend --html: %w", err)
		}
	}
	return nil
}

func round3(f float64) float64 { return float64(int64(f*1000)) / 1000 }

func (a *app) historyFlaky(cmd *cobra.Command, f historyCmdFlags, rule history.Rule) error {
	s, err := openHistory(cmd.Context(), f)
	if err != nil {
		return err
	}
	defer s.Close()
	q := f.query()
	if !cmd.Flags().Changed("last") {
		q.Last = defaultFlakyRuns
	}
	found, err := s.Flaky(cmd.Context(), q, rule)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if len(found) == 0 {
		fmt.Fprintln(out, "no message flipped between runs")
		return nil
	}
	for _, fl := range found {
		verdict := "flips"
		if fl.Flaky {
			verdict = fmt.Sprintf("FLAKY (pass rate in (%g, %g) over %d+ runs)", rule.Low, rule.High, rule.MinRuns)
		}
		fmt.Fprintf(out, "%s seq %d %s (tape %s): %s\n", fl.Session, fl.Seq, fl.Method, fl.TapeName, verdict)
		fmt.Fprintf(out, "  pass rate %.0f%% (%d of %s), flip rate %.0f%% (%s), failed first in run %d, last in run %d\n",
			fl.PassRate*100, fl.Passes, english.Count(int64(fl.Runs), "run"), fl.FlipRate*100, english.Count(int64(fl.Flips), "flip"), fl.FirstFail, fl.LastFail)
		if len(fl.Inconsistent) > 0 {
			fmt.Fprintf(out, "  passed and failed on the same version: %s\n", strings.Join(fl.Inconsistent, ", "))
		}
		for _, d := range fl.Differences {
			path := d.Path
			if path == "" {
				path = "$"
			}
			fmt.Fprintf(out, "  %s: passing runs %s, failing runs %s (%s)\n", path, compactJSON(d.Expected), compactJSON(d.Actual), english.Count(int64(d.Runs), "run"))
		}
	}
	return nil
}

func compactJSON(b []byte) string {
	if len(b) == 0 {
		return "(absent)"
	}
	s := string(b)
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

func (a *app) historyCompare(cmd *cobra.Command, f historyCmdFlags, refA, refB string, o history.CompareOptions) error {
	s, err := openHistory(cmd.Context(), f)
	if err != nil {
		return err
	}
	defer s.Close()
	ctx := cmd.Context()
	q := history.Query{Tape: f.tape}
	side := func(ref string) (map[history.Group]*hdrHistogram, []int64, error) {
		ids, err := s.Select(ctx, ref, q)
		if err != nil {
			return nil, nil, usageError("history compare: %v", err)
		}
		h, err := s.Histograms(ctx, ids)
		return h, ids, err
	}
	ha, ia, err := side(refA)
	if err != nil {
		return err
	}
	hb, ib, err := side(refB)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "A: %s (%s)  B: %s (%s); KS test, changed when p < %g and the median or p95 moved %g%% or more and %s or more\n",
		refA, runsWord(len(ia)), refB, runsWord(len(ib)), o.Alpha, o.MinEffect*100, o.MinShift)
	tw := tabwriter.NewWriter(out, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "METHOD\tNAME\tN A/B\tP50 A→B\tP95 A→B\tP99 A→B\tΔP50\tΔP95\tΔP99\tKS D\tp\tP(B>A)\tCHANGED")
	for _, c := range history.Compare(ha, hb, o) {
		if c.Missing != "" {
			fmt.Fprintf(tw, "%s\t%s\t%d/%d\t\t\t\t\t\t\t\t\t\t%s\n", c.Method, dash(c.Name), c.NA, c.NB, c.Missing)
			continue
		}
		changed := "no"
		if c.Changed {
			changed = "YES"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s→%s\t%s→%s\t%s→%s\t%s\t%s\t%s\t%.3f\t%.2g\t%.2f\t%s\n",
			c.Method, dash(c.Name), c.NA, c.NB,
			report.FormatMS(c.A.P50), report.FormatMS(c.B.P50), report.FormatMS(c.A.P95), report.FormatMS(c.B.P95),
			report.FormatMS(c.A.P99), report.FormatMS(c.B.P99),
			signedMS(c.Effect.P50), signedMS(c.Effect.P95), signedMS(c.Effect.P99), c.D, c.P, c.ProbBGreater, changed)
	}
	return tw.Flush()
}

type hdrHistogram = hdrhistogram.Histogram

// writeFileAtomic writes path whole through write, or leaves it as it was.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// runsWord counts runs in words: "1 run", "10 runs".
func runsWord(n int) string {
	if n == 1 {
		return "1 run"
	}
	return fmt.Sprintf("%d runs", n)
}

// signedMS shows a change in milliseconds with its sign: "+40µs", "-1.2ms",
// "±0".
func signedMS(ms float64) string {
	if math.Round(ms*1000) == 0 { // FormatMS keeps the microsecond
		return "±0"
	}
	if ms < 0 {
		return "-" + report.FormatMS(-ms)
	}
	return "+" + report.FormatMS(ms)
}
