package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/replayctl/replayctl/report"
)

// mergeFlags are the flags of `replayctl merge`.
type mergeFlags struct {
	output     string
	reports    []string
	thresholds []string
	allowTapes bool
	partial    bool
}

func (a *app) mergeCommand() *cobra.Command {
	var f mergeFlags
	cmd := &cobra.Command{
		Use:   "merge REPORT.json... [flags]",
		Short: "Merge the JSON reports of replays (shards, or runs of one tape) into one, exactly",
		Long: `Merge the JSON reports of replays into the report of them all.

The latency, schedule lag and held histograms of the reports are added bucket
by bucket, so the merged percentiles are exactly those of one replay that saw
every result; counts add up, rates are over the merged span, and the listed
failures, errors and timeline are appended (within the limits one report
keeps). The reports' thresholds, and those given with --threshold, are judged
on the merged figures.

A run given twice (the same file, or a copy: one run_id) is refused, as is
a shard given twice. A merge that lacks shards of the run does not pass (its
result says incomplete, naming them) unless --allow-partial accepts it.

Exit status: 0 the merged report passes, 1 it does not (a failure, an error,
a threshold, shards missing), 2 a report cannot be read or merged (the file and field are
named).`,
		Example: `  replayctl run tape.jsonl --sessions 50 --report a.json
  replayctl run tape.jsonl --sessions 50 --report b.json
  replayctl merge a.json b.json --report all.json --threshold "p99<200ms"`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("merge: missing REPORT.json (replayctl merge REPORT.json...)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.merge(cmd, args, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.output, "output", "o", "text", "what goes to stdout: text or json")
	fl.StringArrayVar(&f.reports, "report", nil, "write the merged report to FILE; format by extension: .json, .xml (JUnit), .html (repeatable)")
	fl.StringArrayVar(&f.thresholds, "threshold", nil, `a condition the merged figures must meet, as run's: "p99<200ms", "error_rate<1%" (repeatable; exit 1 if one fails); the reports' own thresholds are judged again too`)
	fl.BoolVar(&f.partial, "allow-partial", false, "pass a merge of shards that lacks some of the run's, judged on the shards it has (without it such a merge fails: exit 1, result incomplete)")
	fl.BoolVar(&f.allowTapes, "allow-different-tapes", false, "merge reports of different tapes (refused without it: such percentiles mix two workloads)")
	registerValues(cmd, "output", outputs...)
	return cmd
}

func (a *app) merge(cmd *cobra.Command, args []string, f mergeFlags) error {
	if f.output != "text" && f.output != "json" {
		return usageError("-o %q: want text or json", f.output)
	}
	for _, p := range f.reports {
		if err := report.CheckPath(p); err != nil {
			return usageError("--report: %w", err)
		}
	}
	var opts []report.MergeOption
	for _, x := range f.thresholds {
		t, err := report.ParseThreshold(x)
		if err != nil {
			return usageError("--threshold: %w", err)
		}
		opts = append(opts, report.MergeThresholds(t))
	}
	if f.allowTapes {
		opts = append(opts, report.AllowDifferentTapes())
	}
	if f.partial {
		opts = append(opts, report.AllowPartial())
	}
	reports := make([]*report.Report, len(args))
	for i, p := range args {
		r, err := report.ReadWhole(p)
		if err != nil {
			return &exitError{code: exitBadInput, err: err}
		}
		reports[i] = r
	}
	rep, err := report.Merge(reports, opts...)
	if err != nil {
		return &exitError{code: exitBadInput, err: fmt.Errorf("merge: %w", err)}
	}
	if err := a.showReport(cmd.OutOrStdout(), rep, f.output, nil, f.reports); err != nil {
		return err
	}
	if !rep.Passed() {
		return errReported
	}
	return nil
}
