package shrink

import (
	"context"
	"slices"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/tape"
)

// Defaults of the options.
const (
	DefaultParallel = 2
	DefaultBaseline = 5
	DefaultProof    = 10
	DefaultMaxRuns  = 5000
	// MaxAutoRuns bounds the runs per candidate Runs(0) picks for a flaky
	// failure.
	MaxAutoRuns = 50
	// autoConfidence is the chance that Runs(0)'s runs see a failure that
	// is there, at the baseline's rate.
	autoConfidence = 0.999
)

// Option sets one knob of a shrink.
type Option func(*settings)

type settings struct {
	replay   []replay.Option
	seed     int64
	faults   []report.Fault
	parallel int
	baseline int
	runs     int
	need     int
	proof    int
	maxRuns  int
	simplify bool
	reset    func(context.Context) error
	logger   zerolog.Logger
	tapeOpts []tape.Option
	onStep   []func(Step)
	at       *where // At
}

// where is a message named by At.
type where struct {
	session string
	seq     int64
}

func defaults() *settings {
	return &settings{parallel: DefaultParallel, baseline: DefaultBaseline, need: 1, proof: DefaultProof, maxRuns: DefaultMaxRuns, simplify: true, logger: zerolog.Nop()}
}

// Replay gives the options of every replay the shrink runs: the target
// (replay.Against), validation, timeouts, a config. The speed is "fast"
// unless one is given. Hooks given here see every run. Chaos faults are
// not given here but with Faults.
func Replay(opts ...replay.Option) Option {
	return func(s *settings) { s.replay = append(s.replay, opts...) }
}

// Faults shrinks the chaos faults with the tape: the faults of an
// earlier run's report (its chaos.faults, as replay.ChaosFrom reads
// them), with that run's seed. Each run replays the faults still kept
// that fall on a message still on the tape, and no other.
func Faults(seed int64, faults []report.Fault) Option {
	return func(s *settings) { s.seed, s.faults = seed, slices.Clone(faults) }
}

// Parallel runs up to n tries at once (default DefaultParallel); 1 runs
// them one after another. Each try has its own target: with a command,
// processes of its own.
func Parallel(n int) Option { return func(s *settings) { s.parallel = n } }

// Baseline replays the whole tape n times first (default
// DefaultBaseline): the failure to shrink is the one the most runs
// showed (of those, the first in tape order), and how often it came sets
// the runs per candidate.
func Baseline(n int) Option { return func(s *settings) { s.baseline = n } }

// Runs replays each candidate up to n times (k-of-n with Need): a
// candidate keeps the failure when Need of its runs show it. 0 (the
// default) picks n from the baseline: 1 when every baseline run failed,
// else enough runs to see the failure at the baseline's rate with 99.9%
// confidence, at most MaxAutoRuns.
func Runs(n int) Option { return func(s *settings) { s.runs = n } }

// Need is the k of k-of-n: the runs of a candidate that must show the
// failure (default 1). A candidate's runs stop as soon as k have failed,
// or when the rest can no longer reach k.
func Need(k int) Option { return func(s *settings) { s.need = k } }

// Proof replays the result n times at the end (default DefaultProof) and
// reports how many failed the same way.
func Proof(n int) Option { return func(s *settings) { s.proof = n } }

// MaxRuns bounds the replays of the baseline and the search (default
// DefaultMaxRuns); at the bound the search stops, and the smallest
// failing candidate found so far is proved (the Proof runs come on top)
// and returned, with Result.Exhausted set.
func MaxRuns(n int) Option { return func(s *settings) { s.maxRuns = n } }

// NoSimplify leaves the messages' parameters as recorded (no members
// dropped, no strings shortened).
func NoSimplify() Option { return func(s *settings) { s.simplify = false } }

// Reset is called before each replay, for a target that keeps state
// between runs (an HTTP server): it should bring the target back to
// where the recording started, and return when it is ready. A non-nil
// error stops the shrink. With a reset hook the replays run one at a
// time (Parallel is 1).
func Reset(f func(ctx context.Context) error) Option { return func(s *settings) { s.reset = f } }

// Logger receives the shrink's progress: each step that kept the
// failure (default: none).
func Logger(l zerolog.Logger) Option { return func(s *settings) { s.logger = l } }

// TapeOptions are the options the tape is read with (tape.WithMaxLine
// for lines longer than the default); give the replays the same
// (replay.MaxLine).
func TapeOptions(opts ...tape.Option) Option {
	return func(s *settings) { s.tapeOpts = append(s.tapeOpts, opts...) }
}

// Step is a step of the search that kept the failure with less: after
// Phase ("sessions", "chunks", "units from the back", "faults",
// "parameters") of Round, the candidate is Size, and Runs replays have
// been run so far.
type Step struct {
	Round int
	Phase string
	Size  Size
	Runs  int
}

// OnStep calls f after each phase that made the candidate smaller, from
// the goroutine that called Shrink (progress for a person: a long shrink
// is otherwise silent until it ends).
func OnStep(f func(Step)) Option { return func(s *settings) { s.onStep = append(s.onStep, f) } }

// At aims the shrink at the failure of the message at (session, seq):
// of the failures the baseline runs show there, the one the most runs
// showed. Without it, the shrink aims at the failure the most baseline
// runs showed, of those the first in tape order.
// A seq of -1 names a session's failure with no message in flight (a
// crash between two messages). When no baseline run fails there, Shrink
// returns ErrNoFailure naming the failures it saw.
func At(session string, seq int64) Option {
	return func(s *settings) { s.at = &where{session, seq} }
}
