package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/replayctl/replayctl/report"
)

// reportFlags are the flags of `replayctl report`.
type reportFlags struct {
	output  string
	reports []string
	verbose bool
}

// reportCommand is `replayctl report FILE.json`: a saved JSON report
// rendered again, as vegeta's report does for its results.
func (a *app) reportCommand() *cobra.Command {
	var f reportFlags
	cmd := &cobra.Command{
		Use:   "report REPORT.json [flags]",
		Short: "Render a saved JSON report again: the text summary, JSON, or a report file (.html, .xml)",
		Long: `Render a JSON report that run (--report FILE.json) or merge saved: the
text summary or JSON on stdout, and report files by extension (.json, .xml
JUnit, .html), as run writes them. "-" reads the report from stdin.

Rendering does not judge again: the exit status is 0 whatever the report's
verdict (run's exit status gave it; merge judges the figures again), 2 when
the file is not a JSON report (the line or field is named).`,
		Example: `  replayctl run tape.jsonl --report run.json
  replayctl report run.json
  replayctl report run.json --report run.html --report junit.xml
  replayctl report run.json -o json | jq .summary`,
		Args: exactArgs(1, "report REPORT.json [flags]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.renderReport(cmd, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.output, "output", "o", "text", "what goes to stdout: text or json")
	fl.StringArrayVar(&f.reports, "report", nil, "write the report to FILE; format by extension: .json, .xml (JUnit), .html (repeatable)")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "the text summary lists the details: each chaos session's faults and notes")
	registerValues(cmd, "output", outputs...)
	return cmd
}

func (a *app) renderReport(cmd *cobra.Command, path string, f reportFlags) error {
	if f.output != "text" && f.output != "json" {
		return usageError("-o %q: want text or json", f.output)
	}
	for _, p := range f.reports {
		if err := report.CheckPath(p); err != nil {
			return usageError("--report: %w", err)
		}
	}
	rep, err := a.readReport(path)
	if err != nil {
		return &exitError{code: exitBadInput, err: err}
	}
	var opts []report.TextOption
	if f.verbose {
		opts = append(opts, report.Verbose())
	}
	return a.showReport(cmd.OutOrStdout(), rep, f.output, opts, f.reports)
}

// showReport writes rep to w as text (with opts) or JSON, rendered whole
// (one Write), then to each of the report files; the summary comes first,
// so that a file that cannot be written does not lose it.
func (a *app) showReport(w io.Writer, rep *report.Report, output string, opts []report.TextOption, files []string) error {
	var buf bytes.Buffer
	var err error
	if output == "json" {
		err = rep.WriteJSON(&buf)
	} else {
		err = rep.WriteText(&buf, colorOn(a.stdout), opts...)
	}
	if err != nil {
		return err
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return err
	}
	var writeErr error
	for _, p := range files {
		writeErr = errors.Join(writeErr, report.WriteFile(p, *rep))
	}
	if writeErr != nil {
		return fmt.Errorf("write report: %w", writeErr)
	}
	return nil
}

// readReport reads the JSON report at path, or on stdin for "-".
func (a *app) readReport(path string) (*report.Report, error) {
	if path != "-" {
		return report.ReadWhole(path)
	}
	data, err := io.ReadAll(io.LimitReader(a.stdin, maxStdinReport+1))
	if err != nil {
		return nil, fmt.Errorf("read report from stdin: %w", err)
	}
	if len(data) > maxStdinReport {
		return nil, fmt.Errorf("report on stdin: longer than %d MiB; save it to a file and give that", maxStdinReport>>20)
	}
	rep, err := report.ParseWhole(data)
	if err != nil {
		return nil, fmt.Errorf("report on stdin: %w", err)
	}
	return rep, nil
}

// maxStdinReport is the most of a report read from stdin.
const maxStdinReport = 256 << 20
