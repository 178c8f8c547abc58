package compare

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/tapediff"
	"github.com/replayctl/replayctl/validator"
)

// Role names one of the three runs.
type Role string

// The runs, in the order they are replayed.
const (
	RolePrimary   Role = "primary"
	RoleCandidate Role = "candidate"
	// RoleSecondary is the noise run against Secondary's target, or
	// against the primary again without one (Run.Again says so).
	RoleSecondary Role = "secondary"
)

// RunError is a run that could not be made or did not go to the end of
// the tape for a reason of its own (a bad target, an interrupt); its
// target's failures while replaying are in the report instead (Run.Error,
// Run.Status).
type RunError struct {
	Role Role
	Err  error
}

func (e *RunError) Error() string { return fmt.Sprintf("compare: %s: %v", e.Role, e.Err) }

func (e *RunError) Unwrap() error { return e.Err }

// Run replays the tape at path against primary, candidate and the
// secondary (Secondary, or primary again), one after the other, and
// compares their answers (see the package documentation).
//
// It returns when the three replays are over and compared, or when ctx
// is done. The error is an *OptionError for a bad option, a *RunError
// wrapping replay.New's error for a bad tape or target (nothing was
// replayed then) or the error of a bad tape line met while replaying (a
// *tape.Error), or a *RunError wrapping ctx's error. A target that
// fails while it replays is no error: its run says so (Run.Status 3 as
// report.ExitTarget), and its answers that did not come differ at
// "$".
func Run(ctx context.Context, path string, primary, candidate replay.Target, opts ...Option) (*Report, error) {
	src, err := tape.Load(path)
	if err != nil {
		return nil, &RunError{Role: RolePrimary, Err: err}
	}
	return RunSource(ctx, src, primary, candidate, opts...)
}

// RunSource is Run with the tape given as a tape.Source (tape.Bytes for
// one in memory). The source is opened once per run.
func RunSource(ctx context.Context, src tape.Source, primary, candidate replay.Target, opts ...Option) (*Report, error) {
	s := defaults()
	for _, o := range opts {
		o(&s)
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	v, err := s.validator()
	if err != nil {
		return nil, err
	}
	third, again := primary, true
	if s.secondary != nil {
		third, again = *s.secondary, false
	}
	base := slices.Clone(s.replay)
	if s.notes {
		base = append(base, replay.ValidateNotifications())
	}
	plan := []struct {
		role Role
		t    replay.Target
	}{{RolePrimary, primary}, {RoleCandidate, candidate}, {RoleSecondary, third}}

	// Every replay is made before any runs: a bad target is bad input
	// before a server has been started.
	replays := make([]*replay.Replay, len(plan))
	answers := make([]*answers, len(plan))
	var seed *int64
	for i, p := range plan {
		answers[i] = newAnswers()
		ro := append(slices.Clone(base), replay.Against(p.t), replay.OnResult(answers[i].add))
		if seed != nil {
			ro = append(ro, replay.Seed(*seed))
		}
		if replays[i], err = replay.New(src, ro...); err != nil {
			return nil, &RunError{Role: p.role, Err: err}
		}
		if i == 0 {
			seed = randomSeed(replays[0])
		}
	}
	rep := &Report{
		Tape:    src.Name(),
		Margins: Margins{Relative: s.relative, Absolute: s.absolute},
		Latency: []Latency{},
		Seed:    seed,
	}
	reports := make([]*report.Report, len(plan))
	for i, p := range plan {
		start := time.Now()
		r, runErr := replays[i].Run(ctx)
		if ctx.Err() != nil {
			return nil, &RunError{Role: p.role, Err: ctx.Err()}
		}
		if r == nil || r.ExitStatus() == report.ExitBadInput {
			// Nothing replayed, or a bad tape line met on the way: every
			// run would stop there, and nothing it compared would mean
			// much.
			return nil, &RunError{Role: p.role, Err: runErr}
		}
		reports[i] = r
		run := RunInfo{
			Role: p.role, Target: p.t.String(), Again: p.role == RoleSecondary && again,
			Status: r.ExitStatus(), Answers: answers[i].answered, DurationMS: ms(time.Since(start)),
		}
		if runErr != nil {
			run.Error = runErr.Error()
		}
		rep.Runs = append(rep.Runs, run)
	}
	rep.Endpoints, rep.Paths = comparePaths(v, answers[0], answers[1], answers[2])
	rep.Changed = []Path{}
	for i := range rep.Paths {
		p := &rep.Paths[i]
		p.Relative, p.Absolute, p.Changed = Judge(p.Raw, p.Noise, p.Total, s.relative, s.absolute)
		if p.Changed {
			rep.Changed = append(rep.Changed, *p)
		}
	}
	rep.Latency, err = compareLatency(reports[0], reports[1], reports[2], s.alpha, s.minEffect)
	if err != nil {
		return nil, err
	}
	rep.summarise()
	return rep, nil
}

// randomSeed is the seed the primary's replay picked at random for its
// chaos or its random order, nil when it picked none: the other runs are
// given it, so that the three have the same schedule and faults.
func randomSeed(r *replay.Replay) *int64 {
	if seed, random, ok := r.ChaosSeed(); ok && random {
		return &seed
	}
	if seed, random, ok := r.OrderSeed(); ok && random {
		return &seed
	}
	return nil
}

// volatilePaths are the paths of a message left out beside the
// validator's own (id, jsonrpc, requestState, task ids): the members of
// params that differ from run to run (tapediff.VolatileParams) and a
// progress token, wherever the server puts it.
func volatilePaths() []string {
	var out []string
	for _, k := range tapediff.VolatileParams {
		out = append(out, "params."+k)
	}
	return append(out, "**.progressToken")
}

// validator is the comparison of two answers: exact, with the volatile
// paths left out and the default normalisers on, and the user's.
func (s settings) validator() (*validator.Validator, error) {
	v, err := validator.New(
		validator.WithNormalize(tapediff.DefaultNormalizers...),
		validator.WithNormalize(s.normalize...),
		validator.WithIgnore(volatilePaths()...),
		validator.WithIgnore(s.ignore...),
	)
	if err != nil {
		return nil, &OptionError{Option: "Ignore or Normalize", Value: "", Err: err}
	}
	return v, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
