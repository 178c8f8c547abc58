package shrink

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/tape"
)

// ErrNoFailure is returned by Shrink when no baseline run of the whole
// tape failed: there is nothing to shrink.
var ErrNoFailure = errors.New("shrink: the tape replays without a failure")

// ErrTarget is returned by Shrink when every baseline run stopped at the
// target (it could not be reached, or died) and showed no failure: the
// environment is broken, there is nothing to shrink.
var ErrTarget = errors.New("shrink: the target failed every baseline run")

// ErrReset is wrapped by the error of a Reset hook that failed: it
// stops the shrink.
var ErrReset = errors.New("shrink: the reset hook failed")

// errBudget stops the search at MaxRuns.
var errBudget = errors.New("shrink: the run budget is spent")

// Size is how big a tape and its faults are.
type Size struct {
	Sessions       int   `json:"sessions"`
	Units          int   `json:"units"`
	Messages       int   `json:"messages"`
	ClientMessages int   `json:"client_messages"`
	Bytes          int64 `json:"bytes"`
	Faults         int   `json:"faults"`
}

// Rate is how many of some runs failed the same way.
type Rate struct {
	Runs   int `json:"runs"`
	Failed int `json:"failed"`
}

// Result is what a shrink found.
type Result struct {
	// Failure is the failure kept: the one the most baseline runs showed,
	// of those the first in tape order (or the one At named).
	Failure Failure
	// Tape is the smallest tape found that still fails so, in the native
	// format; its messages keep their recorded seq.
	Tape []byte
	// Seed and Faults are the smallest chaos plan found (nil when none was
	// given, or none is needed): as a report lists them, for
	// replay.ChaosFaults or a --chaos-from file (WritePlan).
	Seed   int64
	Faults []report.Fault
	// Units are the units kept, handshakes included.
	Units         []Unit
	Before, After Size
	Baseline      Rate
	RunsPerTry    int // n of k-of-n
	Need          int // k
	Proof         Rate
	Runs          int // replays in all: baseline, tries and proof
	Tries         int // candidates tried
	Duration      time.Duration
	Exhausted     bool // MaxRuns stopped the search early
	// Interrupted: ctx ended the search or the proof; the tape is the
	// smallest found so far, and no proof is claimed.
	Interrupted   bool
	Deterministic bool // every baseline run failed
	// ProofHolds: every proof run failed, for a failure every baseline
	// run showed; at least Need of them, for a flaky one. Never for an
	// interrupted shrink.
	ProofHolds bool
	Simplified int // messages whose parameters were simplified
}

// shrinker is one shrink's state. The search runs on the caller's
// goroutine; only the runs of a batch of tries go in parallel.
type shrinker struct {
	s      *settings
	t      *Tape
	target Failure
	runs   atomic.Int64
	tries  atomic.Int64
	n      int          // runs per candidate
	budget atomic.Int64 // the runs allowed: MaxRuns, and the proof's on top
	mu     sync.Mutex   // serialises Reset and the runs when a reset hook is set
}

// Shrink replays the tape src many times, each time with less of it, and
// returns the smallest tape (and chaos plan) found that still fails the
// same way as the whole tape does: the same kind of failure (a
// difference at the same path, a crash, a timeout, a protocol error) at
// the same message. It first replays the whole tape Baseline times;
// then it drops whole sessions, then chunks of units (delta debugging),
// then single units from the back, then faults, then simplifies the
// parameters of what is left, and goes round again until nothing more
// can go: the result is 1-minimal (no single unit, fault or
// simplification can go without losing the failure). Last, it replays
// the result Proof times.
//
// The error is nil when a result was found; ErrNoFailure when the
// baseline saw no failure; a replay's input error (a bad option) as the
// replay gave it. When ctx is done or MaxRuns is reached mid-way, the
// result so far is returned (with ctx's error and Interrupted set, or
// Exhausted set).
func Shrink(ctx context.Context, src tape.Source, opts ...Option) (*Result, error) {
	s := defaults()
	for _, o := range opts {
		o(s)
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	start := time.Now()
	t, err := Load(src, s.tapeOpts...)
	if err != nil {
		return nil, err
	}
	sh := &shrinker{s: s, t: t}
	sh.budget.Store(int64(s.maxRuns))
	all := Candidate{}
	for i := range t.Units {
		all.Units = append(all.Units, i)
	}
	for i := range s.faults {
		all.Faults = append(all.Faults, i)
	}
	res := &Result{Before: t.size(all, s.faults), Seed: s.seed, Need: s.need}
	if err := sh.baseline(ctx, all, res); err != nil {
		return nil, err
	}
	best, err := sh.search(ctx, all)
	if errors.Is(err, errBudget) {
		res.Exhausted, err = true, nil
	}
	if err == nil {
		err = sh.prove(ctx, best, res)
		if errors.Is(err, errBudget) {
			res.Exhausted, err = true, nil
		}
	}
	res.Interrupted = err != nil && ctx.Err() != nil
	if fin := sh.finish(best, res, start); fin != nil {
		return nil, fin
	}
	return res, err
}

func (s *settings) check() error {
	switch {
	case s.parallel < 1:
		return fmt.Errorf("shrink: parallel %d: want 1 or more", s.parallel)
	case s.baseline < 1:
		return fmt.Errorf("shrink: baseline %d: want 1 or more runs", s.baseline)
	case s.runs < 0:
		return fmt.Errorf("shrink: runs %d: want 0 (from the baseline) or more", s.runs)
	case s.need < 1 || (s.runs > 0 && s.need > s.runs):
		return fmt.Errorf("shrink: need %d of %d runs: want 1 to the runs per candidate", s.need, s.runs)
	case s.proof < 0:
		return fmt.Errorf("shrink: proof %d: want 0 or more runs", s.proof)
	case s.maxRuns < 1:
		return fmt.Errorf("shrink: max runs %d: want 1 or more", s.maxRuns)
	}
	if s.reset != nil {
		s.parallel = 1
	}
	return nil
}

// baseline replays the whole tape, picks the failure to keep and the runs
// per candidate.
func (sh *shrinker) baseline(ctx context.Context, all Candidate, res *Result) error {
	s := sh.s
	runs := make([][]Failure, s.baseline)
	runErrs := make([]error, s.baseline)
	if err := sh.batch(ctx, s.baseline, func(ctx context.Context, i int) error {
		fs, runErr, err := sh.run(ctx, all)
		runs[i], runErrs[i] = fs, runErr
		return err
	}); err != nil {
		return err
	}
	target, found := pick(runs, s.at)
	switch {
	case !found && !slices.Contains(runErrs, nil):
		// Every run failed before a message could: the target is down,
		// not a failure to shrink.
		return fmt.Errorf("%w: %d runs of %s, none replayed: %w", ErrTarget, s.baseline, sh.t.Name, runErrs[0])
	case !found && s.at != nil:
		var seen []Failure
		for _, fs := range runs {
			if f, ok := first(fs); ok && !slices.ContainsFunc(seen, f.Same) {
				seen = append(seen, f)
			}
		}
		return fmt.Errorf("%w at %s seq %d: %d runs of %s; the first failures they showed: %s", ErrNoFailure, s.at.session, s.at.seq, s.baseline, sh.t.Name, failureList(seen))
	case !found:
		return fmt.Errorf("%w: %d runs of %s, none failed; check the target and the run flags (a failure that comes only at realtime speed needs --speed realtime)", ErrNoFailure, s.baseline, sh.t.Name)
	}
	sh.target = target
	res.Failure = sh.target
	res.Baseline = Rate{Runs: s.baseline}
	for _, fs := range runs {
		if reproduces(sh.target, fs) {
			res.Baseline.Failed++
		}
	}
	res.Deterministic = res.Baseline.Failed == res.Baseline.Runs
	sh.n = s.runs
	if sh.n == 0 {
		sh.n = autoRuns(res.Baseline)
	}
	sh.n = max(sh.n, s.need)
	res.RunsPerTry = sh.n
	s.logger.Info().Str("failure", sh.target.String()).Int("baseline_failed", res.Baseline.Failed).Int("baseline_runs", res.Baseline.Runs).Int("runs_per_try", sh.n).Msg("shrinking")
	return nil
}

// pick is the failure a shrink aims at, among the baseline runs'
// failures (those at the message at names, when it is set): the one the
// most runs showed, and of those the first in tape order (first). A
// failure every run shows wins over one that came once, under load, in
// a single run.
func pick(runs [][]Failure, at *where) (Failure, bool) {
	var all []Failure
	for _, fs := range runs {
		for _, f := range fs {
			if at != nil && (f.Session != at.session || f.Seq != at.seq) {
				continue
			}
			if !slices.ContainsFunc(all, f.Same) {
				all = append(all, f)
			}
		}
	}
	best := 0
	var top []Failure
	for _, f := range all {
		n := 0
		for _, fs := range runs {
			if reproduces(f, fs) {
				n++
			}
		}
		switch {
		case n > best:
			best, top = n, []Failure{f}
		case n == best:
			top = append(top, f)
		}
	}
	return first(top)
}

// autoRuns is the runs per candidate that see a failure of the
// baseline's rate with autoConfidence: 1 for a failure every run showed.
func autoRuns(b Rate) int {
	if b.Failed >= b.Runs {
		return 1
	}
	p := float64(b.Failed) / float64(b.Runs)
	n := int(math.Ceil(math.Log(1-autoConfidence) / math.Log(1-p)))
	return min(max(n, 1), MaxAutoRuns)
}

// fails reports whether candidate c keeps the failure: k of its n runs
// show it. The runs stop as soon as the answer is known.
func (sh *shrinker) fails(ctx context.Context, c Candidate) (bool, error) {
	sh.tries.Add(1)
	failed := 0
	for i := range sh.n {
		fs, err := sh.runOnce(ctx, c)
		if err != nil {
			return false, err
		}
		if reproduces(sh.target, fs) {
			failed++
		}
		if failed >= sh.s.need {
			return true, nil
		}
		if failed+(sh.n-i-1) < sh.s.need {
			return false, nil
		}
	}
	return false, nil
}

// firstFailing tries cands in batches of Parallel and returns the index
// of the first (in order) that keeps the failure, or -1. Within a batch
// all are tried; the lowest index wins, so the search does not depend on
// which run ends first.
func (sh *shrinker) firstFailing(ctx context.Context, cands []Candidate) (int, error) {
	for lo := 0; lo < len(cands); lo += sh.s.parallel {
		hi := min(lo+sh.s.parallel, len(cands))
		ok := make([]bool, hi-lo)
		if err := sh.batch(ctx, hi-lo, func(ctx context.Context, i int) error {
			var err error
			ok[i], err = sh.fails(ctx, cands[lo+i])
			return err
		}); err != nil {
			return -1, err
		}
		if i := slices.Index(ok, true); i >= 0 {
			return lo + i, nil
		}
	}
	return -1, nil
}

// batch calls f(ctx, i) for i in [0, n), at most Parallel at once, and
// returns the first error.
func (sh *shrinker) batch(ctx context.Context, n int, f func(context.Context, int) error) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(sh.s.parallel)
	for i := range n {
		g.Go(func() error { return f(ctx, i) })
	}
	return g.Wait()
}

// runOnce replays candidate c once and returns its failures. Its error
// is ctx's, the budget's, the reset hook's or a replay's input error:
// each stops the shrink.
func (sh *shrinker) runOnce(ctx context.Context, c Candidate) ([]Failure, error) {
	fs, _, err := sh.run(ctx, c)
	return fs, err
}

// run replays c once: the failures it showed, the replay's own error (a
// target that could not be reached, that died), and an error that stops
// the shrink.
func (sh *shrinker) run(ctx context.Context, c Candidate) (_ []Failure, runErr, _ error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if sh.runs.Add(1) > sh.budget.Load() {
		sh.runs.Add(-1)
		return nil, nil, errBudget
	}
	b, err := sh.t.Encode(c)
	if err != nil {
		return nil, nil, fmt.Errorf("shrink: encode a candidate tape: %w", err)
	}
	if sh.s.reset != nil {
		sh.mu.Lock()
		defer sh.mu.Unlock()
		if err := sh.s.reset(ctx); err != nil {
			return nil, nil, fmt.Errorf("%w: %w", ErrReset, err)
		}
	}
	var mu sync.Mutex // OnResult runs on the replay's goroutine
	var fs []Failure
	opts := []replay.Option{replay.Defaults(replay.WithSpeed(replay.Fast()))}
	opts = append(opts, sh.s.replay...)
	opts = append(opts, replay.OnResult(func(r report.Result) {
		if f, ok := FailureOf(r); ok {
			mu.Lock()
			fs = append(fs, f)
			mu.Unlock()
		}
	}))
	if faults := sh.t.faultsOf(c, sh.s.faults); len(faults) > 0 {
		opts = append(opts, replay.ChaosFaults(sh.s.seed, faults))
	}
	began := time.Now()
	rep, err := replay.RunSource(ctx, tape.Bytes(sh.t.Name, b), opts...)
	sh.s.logger.Debug().Dur("took", time.Since(began)).Int("units", len(c.Units)).Int("faults", len(c.Faults)).Msg("run")
	if rep == nil {
		return nil, nil, fmt.Errorf("shrink: replay: %w", err)
	}
	if ctx.Err() != nil {
		return nil, nil, ctx.Err()
	}
	mu.Lock()
	defer mu.Unlock()
	return fs, err, nil
}

// prove replays the result Proof times.
func (sh *shrinker) prove(ctx context.Context, c Candidate, res *Result) error {
	n := sh.s.proof
	sh.budget.Store(sh.runs.Load() + int64(n)) // the proof runs, whatever the search spent
	ok := make([]bool, n)
	err := sh.batch(ctx, n, func(ctx context.Context, i int) error {
		fs, err := sh.runOnce(ctx, c)
		ok[i] = reproduces(sh.target, fs)
		return err
	})
	res.Proof = Rate{Runs: n}
	for _, v := range ok {
		if v {
			res.Proof.Failed++
		}
	}
	return err
}

// finish fills in the result from the best candidate.
func (sh *shrinker) finish(best Candidate, res *Result, start time.Time) error {
	b, err := sh.t.Encode(best)
	if err != nil {
		return fmt.Errorf("shrink: encode the result: %w", err)
	}
	res.Tape = b
	res.Faults = sh.t.faultsOf(best, sh.s.faults)
	res.After = sh.t.size(best, sh.s.faults)
	for _, u := range best.Units {
		res.Units = append(res.Units, sh.t.Units[u])
	}
	res.Simplified = len(best.Edits)
	res.Runs = int(sh.runs.Load())
	res.Tries = int(sh.tries.Load())
	res.Duration = time.Since(start)
	res.ProofHolds = !res.Interrupted && res.holds()
	return nil
}

// holds: the proof replays failed every time for a failure every
// baseline run showed, and at least Need times for a flaky one.
func (r *Result) holds() bool {
	if r.Proof.Runs == 0 {
		return true
	}
	if r.Deterministic {
		return r.Proof.Failed == r.Proof.Runs
	}
	return r.Proof.Failed >= r.Need
}

// failureList names failures for an error: "none" when there are none.
func failureList(fs []Failure) string {
	if len(fs) == 0 {
		return "none"
	}
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.String()
	}
	return strings.Join(names, "; ")
}
