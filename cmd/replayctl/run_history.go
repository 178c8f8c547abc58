package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/replayctl/replayctl/config"
	"github.com/replayctl/replayctl/history"
	"github.com/replayctl/replayctl/report"
)

// noHistory as --history keeps no run, whatever $REPLAYCTL_HISTORY and
// the config say (the shards of --local-shards get it: the runner keeps
// the merged run).
const noHistory = "none"

// The environment variables of run histories, for CI.
const (
	envHistory = "REPLAYCTL_HISTORY"            // the run store's folder
	envVersion = "REPLAYCTL_VERSION_UNDER_TEST" // the version under test
)

// historyFlags are run's flags about the run store.
type historyFlags struct {
	dir           string        // --history
	version       string        // --version-under-test
	regressions   []string      // --fail-on-regression
	baselineRuns  int           // --baseline-runs
	gateAlpha     float64       // --regression-alpha
	newFailure    bool          // --fail-on-new-failure
	quarantine    bool          // --quarantine-flaky
	flakyRuns     int           // --flaky-runs
	busyTimeout   time.Duration // --history-busy-timeout
	budgets       []history.Budget
	historyDirSet bool
}

// historyFlagNames are the run store's flags (addHistoryFlags).
var historyFlagNames = []string{"history", "version-under-test", "fail-on-regression", "baseline-runs", "regression-alpha", "fail-on-new-failure", "quarantine-flaky", "flaky-runs", "history-busy-timeout"}

func addHistoryFlags(fl *pflag.FlagSet, f *historyFlags) {
	fl.StringVar(&f.dir, "history", "", "keep the run in the run store in this folder (history.db; made when missing); default $"+envHistory+", then the config's history key; none: keep no run")
	fl.StringVar(&f.version, "version-under-test", "", "the version of the target this run tests (a commit, a tag), kept with the run; default $"+envVersion)
	fl.StringArrayVar(&f.regressions, "fail-on-regression", nil, `fail when a metric moved past a budget against the median of the tape's last --baseline-runs runs in --history: "p99{method:tools/call}+20%", "p95+15%", "throughput-10%", "error_rate+0.5pt" (repeatable; a latency budget on a method also needs its distribution to have changed)`)
	fl.IntVar(&f.baselineRuns, "baseline-runs", history.DefaultBaselineRuns, "earlier runs of the same tape --fail-on-regression compares with")
	fl.Float64Var(&f.gateAlpha, "regression-alpha", history.DefaultGateAlpha, "significance level a latency budget's distribution test must reach to fail the run (KS p below it)")
	fl.BoolVar(&f.newFailure, "fail-on-new-failure", false, "fail when a message fails that failed in no earlier run of the tape in --history (listed as the new_failures threshold)")
	fl.BoolVar(&f.quarantine, "quarantine-flaky", false, "a failed check of a message that is flaky over the tape's last --flaky-runs runs in --history (pass rate in (0.2, 0.8) over 5 or more) warns instead of failing; the report lists it")
	fl.IntVar(&f.flakyRuns, "flaky-runs", defaultFlakyRuns, "the tape's last runs --quarantine-flaky judges a message's flakiness over")
	fl.DurationVar(&f.busyTimeout, "history-busy-timeout", history.DefaultBusyTimeout, "how long keeping the run waits for another writer of the --history store (a parallel CI job)")
}

// resolveHistory checks the history flags before the replay and finds the
// store's folder: the flag, the environment, then the config file.
func resolveHistory(cmd *cobra.Command, f *historyFlags, configFile string) error {
	from := "--history"
	if !cmd.Flags().Changed("history") {
		f.dir, from = os.Getenv(envHistory), "$"+envHistory
	}
	none := f.dir == noHistory // no store, whatever the environment and the config say
	if none {
		f.dir = ""
	}
	if f.dir == "" && configFile != "" && !none {
		if c, err := config.Load(configFile); err == nil {
			f.dir, from = c.History, configFile+": history:"
		}
	}
	// The store makes its folder when the run is kept, not the folders
	// above it: a missing one is refused now, as --report's is, before
	// anything is sent.
	if f.dir != "" {
		if err := checkOutParent(from, f.dir); err != nil {
			return err
		}
	}
	if !cmd.Flags().Changed("version-under-test") {
		f.version = os.Getenv(envVersion)
	}
	for _, e := range f.regressions {
		b, err := history.ParseBudget(e)
		if err != nil {
			return usageError("--fail-on-regression: %v", err)
		}
		f.budgets = append(f.budgets, b)
	}
	if f.baselineRuns < 1 {
		return usageError("--baseline-runs %d: want 1 or more", f.baselineRuns)
	}
	if f.gateAlpha <= 0 || f.gateAlpha >= 1 {
		return usageError("--regression-alpha %g: want a probability between 0 and 1, such as 0.001", f.gateAlpha)
	}
	if f.flakyRuns < 1 {
		return usageError("--flaky-runs %d: want 1 or more (5 at least for a message to be called flaky)", f.flakyRuns)
	}
	if f.busyTimeout <= 0 {
		return usageError("--history-busy-timeout %s: want a positive duration such as 30s", f.busyTimeout)
	}
	if f.dir == "" && (len(f.budgets) > 0 || f.newFailure || f.quarantine) {
		return usageError("--fail-on-regression, --fail-on-new-failure and --quarantine-flaky read earlier runs: give the run store with --history DIR (or $%s)", envHistory)
	}
	return nil
}

// keepHistory keeps rep in the run store of --history (history.Keep):
// judged against the earlier runs of its tape (the gates), its results
// added to the thresholds. A store that cannot be read or written loses
// nothing of the run: it is said on stderr, the report is written as
// without --history, and a gate that could not be judged fails (and says
// why in the report).
func (a *app) keepHistory(ctx context.Context, cmd *cobra.Command, tapeArg string, f historyFlags, rep *report.Report) {
	if f.dir == "" {
		return
	}
	// The store makes its folder (not the folders above it) when the run
	// is kept; one it cannot make is said then (history: run not kept):
	// the store never costs a run.
	made := func(dir string) { fmt.Fprintf(a.errOut, "--history: created the folder %s\n", dir) }
	opts := []history.KeepOption{history.StoreBusyTimeout(f.busyTimeout), history.StoreFolderMade(made), history.RunInfo(f.version, runOptions(cmd))}
	if len(f.budgets) > 0 {
		opts = append(opts, history.Budgets(f.baselineRuns, f.gateAlpha, f.budgets...))
	}
	if f.newFailure {
		opts = append(opts, history.GateNewFailures())
	}
	if f.quarantine {
		opts = append(opts, history.QuarantineFlaky(f.flakyRuns))
	}
	err := history.Keep(ctx, f.dir, tapeArg, rep, opts...)
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	gates := len(f.budgets) > 0 || f.newFailure
	for _, err := range errs {
		var ke *history.KeepError
		if !errors.As(err, &ke) {
			continue
		}
		const asWithout = "(the run's report and exit status are as without --history)"
		switch {
		case ke.GatesFail():
			what := map[history.Stage]string{history.StageOpen: "run not kept", history.StageGate: "regression gate", history.StageNewFailures: "new failures"}[ke.Stage]
			if gates {
				fmt.Fprintf(a.errOut, "replayctl: history: %s: %v (the run's report is kept; its gates on earlier runs could not be judged and fail it)\n", what, ke.Err)
			} else {
				fmt.Fprintf(a.errOut, "replayctl: history: %s: %v %s\n", what, ke.Err, asWithout)
			}
		case ke.Stage == history.StageRecord:
			fmt.Fprintf(a.errOut, "replayctl: history: run not kept: %v %s\n", ke.Err, asWithout)
		case ke.Stage == history.StageLink:
			fmt.Fprintf(a.errOut, "replayctl: history: the report's history section: %v (the run is kept)\n", ke.Err)
		case ke.Stage == history.StageQuarantine:
			fmt.Fprintf(a.errOut, "replayctl: history: --quarantine-flaky: %v (nothing quarantined)\n", ke.Err)
		}
	}
}

// defaultFlakyRuns is how many of the tape's last runs --quarantine-flaky
// and history flaky judge flakiness over.
const defaultFlakyRuns = history.DefaultFlakyRuns

// runOptions are the flags the user gave, without those that may carry
// secrets (headers, environment) or only say where things go.
func runOptions(cmd *cobra.Command) map[string]string {
	skip := map[string]bool{"header": true, "env": true, "history": true, "version-under-test": true, "report": true, "out": true, "quiet": true, "verbose": true, "output": true}
	out := map[string]string{}
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if skip[fl.Name] {
			return
		}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			vals := sv.GetSlice()
			sort.Strings(vals)
			out[fl.Name] = strings.Join(vals, ",")
			return
		}
		out[fl.Name] = fl.Value.String()
	})
	return out
}
