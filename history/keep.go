package history

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/replayctl/replayctl/report"
)

// DefaultFlakyRuns is how many of a tape's last runs QuarantineFlaky (and
// `replayctl history flaky`) judge flakiness over.
const DefaultFlakyRuns = 100

// KeepOption configures Keep.
type KeepOption func(*keepSettings)

type keepSettings struct {
	budgets      []Budget
	baselineRuns int
	alpha        float64
	newFailure   bool
	quarantine   bool
	flakyRuns    int
	busy         time.Duration
	made         func(dir string)
	version      string
	options      map[string]string
}

// Budgets gates the run on regression budgets against the median of the
// tape's last n earlier runs (DefaultBaselineRuns when n < 1), a latency
// budget's distribution test at significance alpha (DefaultGateAlpha when
// not in (0, 1)); see Store.Gate.
func Budgets(n int, alpha float64, budgets ...Budget) KeepOption {
	return func(s *keepSettings) { s.budgets, s.baselineRuns, s.alpha = budgets, n, alpha }
}

// GateNewFailures fails the run when a message fails that failed in no
// earlier run of the tape (the threshold new_failures==0).
func GateNewFailures() KeepOption { return func(s *keepSettings) { s.newFailure = true } }

// QuarantineFlaky turns a failed check of a message that is flaky over
// the tape's last runs (DefaultFlakyRuns when runs < 1; DefaultRule)
// into a warning; see Quarantine.
func QuarantineFlaky(runs int) KeepOption {
	return func(s *keepSettings) { s.quarantine, s.flakyRuns = true, runs }
}

// StoreBusyTimeout is how long the store waits for another writer
// (DefaultBusyTimeout by default); see BusyTimeout.
func StoreBusyTimeout(d time.Duration) KeepOption { return func(s *keepSettings) { s.busy = d } }

// StoreFolderMade has fn called with the store's folder when Keep makes
// it; see FolderMade.
func StoreFolderMade(fn func(dir string)) KeepOption { return func(s *keepSettings) { s.made = fn } }

// RunInfo sets what is kept with the run: the version under test and the
// options it ran with.
func RunInfo(version string, options map[string]string) KeepOption {
	return func(s *keepSettings) { s.version, s.options = version, options }
}

// Stage is a step of Keep, which a KeepError names.
type Stage int

// The stages of Keep, in order.
const (
	// StageOpen: the tape's file or the store could not be read; nothing
	// was kept, and the gates fail.
	StageOpen Stage = iota
	// StageGate: the regression gate could not be judged; nothing was
	// kept, and the gates fail.
	StageGate
	// StageNewFailures: the new-failure gate could not be judged; nothing
	// was kept, and the gates fail.
	StageNewFailures
	// StageRecord: the run could not be kept; the report is as without a
	// store (its gates were judged).
	StageRecord
	// StageLink: the report's history section could not be made; the run
	// is kept.
	StageLink
	// StageQuarantine: the flaky messages could not be read; nothing was
	// quarantined.
	StageQuarantine
)

// KeepError is a step of Keep that failed, and what it left undone (see
// Stage).
type KeepError struct {
	Stage Stage
	Err   error
}

func (e *KeepError) Error() string { return fmt.Sprintf("history: stage %d: %v", e.Stage, e.Err) }
func (e *KeepError) Unwrap() error { return e.Err }

// GatesFail reports whether the error left rep's gates failed, as not
// judged: Keep stopped before it kept the run.
func (e *KeepError) GatesFail() bool { return e.Stage <= StageNewFailures }

// Keep keeps rep, a run of the tape file at tapePath, in the run store in
// the folder dir (made when missing): it judges rep against the tape's
// earlier runs first (Budgets, GateNewFailures: their results are added
// to rep's thresholds), records it, links rep's history section to the
// tape's last DefaultLinkRuns runs, then quarantines its flaky failures
// (QuarantineFlaky, judged with this run in). rep.Summary.Passed is kept
// up to date.
//
// A store that cannot be read or written loses nothing of the run: Keep
// returns a *KeepError saying what failed and what was left undone, and
// rep is as without a store, but for the gates asked for, which then fail
// ("no data", the reason in their detail). A tape with no file (read from
// stdin) cannot be identified: that is a StageOpen error.
func Keep(ctx context.Context, dir, tapePath string, rep *report.Report, opts ...KeepOption) error {
	var s keepSettings
	for _, opt := range opts {
		opt(&s)
	}
	fail := func(stage Stage, err error) error {
		for _, b := range s.budgets {
			rep.Thresholds = append(rep.Thresholds, report.ThresholdResult{Expr: b.Expr, Metric: b.Metric.Name, Filter: b.Metric.Filter.String(), Value: "no data", Detail: "the run store could not be read: " + err.Error()})
		}
		if s.newFailure {
			rep.Thresholds = append(rep.Thresholds, report.ThresholdResult{Expr: "new_failures==0", Metric: "new_failures", Value: "no data", Detail: "the run store could not be read: " + err.Error()})
		}
		rep.Summary.Passed = rep.Passed()
		return &KeepError{Stage: stage, Err: err}
	}
	if tapePath == "-" || tapePath == "" {
		return fail(StageOpen, errors.New("a tape read from stdin has no file to identify it by: give the tape as a file"))
	}
	hash, err := HashFile(tapePath)
	if err != nil {
		return fail(StageOpen, err)
	}
	var storeOpts []Option
	if s.busy > 0 {
		storeOpts = append(storeOpts, BusyTimeout(s.busy))
	}
	if s.made != nil {
		storeOpts = append(storeOpts, FolderMade(s.made))
	}
	st, err := Open(ctx, dir, storeOpts...)
	if err != nil {
		return fail(StageOpen, err)
	}
	defer st.Close()
	if len(s.budgets) > 0 {
		res, err := st.Gate(ctx, rep, hash, s.budgets, s.baselineRuns, s.alpha)
		if err != nil {
			return fail(StageGate, err)
		}
		rep.Thresholds = append(rep.Thresholds, res...)
	}
	if s.newFailure {
		news, err := st.NewFailures(ctx, rep, hash)
		if err != nil {
			return fail(StageNewFailures, err)
		}
		n := float64(len(news))
		res := report.ThresholdResult{Expr: "new_failures==0", Metric: "new_failures", Value: fmt.Sprint(len(news)), Limit: "0", Actual: &n, Passed: len(news) == 0}
		if len(news) > 0 {
			res.Detail = "failed for the first time on this tape: " + strings.Join(news, ", ")
		}
		rep.Thresholds = append(rep.Thresholds, res)
	}
	rep.Summary.Passed = rep.Passed()
	info := Info{TapeHash: hash, TapeName: tapePath, Version: s.version, Options: s.options, ExitStatus: rep.ExitStatus()}
	var errs []error
	run, err := st.Record(ctx, rep, info)
	if err != nil {
		errs = append(errs, &KeepError{Stage: StageRecord, Err: err})
	} else if link, err := st.Link(ctx, run, hash, rep, DefaultLinkRuns); err != nil {
		errs = append(errs, &KeepError{Stage: StageLink, Err: err})
	} else {
		rep.History = link
	}
	if s.quarantine { // after Record: the store keeps the real verdicts
		runs := s.flakyRuns
		if runs < 1 {
			runs = DefaultFlakyRuns
		}
		flaky, err := st.Flaky(ctx, Query{Tape: hash, Last: runs}, DefaultRule)
		if err != nil {
			return errors.Join(append(errs, &KeepError{Stage: StageQuarantine, Err: err})...)
		}
		Quarantine(rep, flaky)
	}
	return errors.Join(errs...)
}
