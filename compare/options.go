package compare

import (
	"fmt"
	"math"

	"github.com/replayctl/replayctl/history"
	"github.com/replayctl/replayctl/replay"
)

// The defaults of the margins, Diffy's.
const (
	// DefaultRelativeMargin is the relative margin in percent: a path is
	// reported when |raw − noise| / (raw + noise) × 100 is above it.
	DefaultRelativeMargin = 20.0
	// DefaultAbsoluteMargin is the absolute margin in percent: a path is
	// reported when |raw − noise| / total × 100 is above it.
	DefaultAbsoluteMargin = 0.03
)

// Option configures Run. Options are checked before anything is
// replayed: a bad value is an *OptionError.
type Option func(*settings)

type settings struct {
	secondary *replay.Target
	relative  float64
	absolute  float64
	ignore    []string
	normalize []string
	replay    []replay.Option
	alpha     float64
	minEffect float64
	notes     bool
}

func defaults() settings {
	return settings{
		relative:  DefaultRelativeMargin,
		absolute:  DefaultAbsoluteMargin,
		alpha:     history.DefaultAlpha,
		minEffect: history.DefaultMinEffect,
		notes:     true,
	}
}

// Secondary gives the noise run its own target: a second deployment of
// the primary's code. Without it the primary is replayed a second time.
func Secondary(t replay.Target) Option { return func(s *settings) { s.secondary = &t } }

// RelativeMargin sets the relative margin in percent (default
// DefaultRelativeMargin, 20): a path is reported only when
// |raw − noise| / (raw + noise) × 100 is above it. It must be from 0 to
// 100.
func RelativeMargin(pct float64) Option { return func(s *settings) { s.relative = pct } }

// AbsoluteMargin sets the absolute margin in percent (default
// DefaultAbsoluteMargin, 0.03): a path is reported only when
// |raw − noise| / total × 100 is above it, total being the answers of
// its method and name. It must be from 0 to 100.
func AbsoluteMargin(pct float64) Option { return func(s *settings) { s.absolute = pct } }

// Ignore adds paths not compared, as validator patterns:
// "result.content[*].annotations", "**.timestamp".
func Ignore(paths ...string) Option {
	return func(s *settings) { s.ignore = append(s.ignore, paths...) }
}

// Normalize adds validator normalisers by name ("ids" makes every word
// holding a digit that looks like an id <id>) to those always on,
// tapediff.DefaultNormalizers (uuid, timestamp).
func Normalize(names ...string) Option {
	return func(s *settings) { s.normalize = append(s.normalize, names...) }
}

// ReplayOptions are given to each of the three replays: pacing, timeout,
// sessions, a config file, a logger. Against and the result hooks are
// compare's own; a replay option that sets a target is overridden.
func ReplayOptions(opts ...replay.Option) Option {
	return func(s *settings) { s.replay = append(s.replay, opts...) }
}

// Notifications says whether the server's notifications are compared
// too (the default): each recorded one is paired with the live one of
// the same method, in order, per session (replay.ValidateNotifications),
// and the live ones of the three runs are compared as answers are; a
// recorded one that did not come differs at "$". Live notifications the
// tape does not have are not compared. Notifications(false) compares
// answers only.
func Notifications(on bool) Option { return func(s *settings) { s.notes = on } }

// LatencyAlpha is the significance level of the latency tests (default
// history.DefaultAlpha, 0.01): a method's latency changed when the
// Kolmogorov–Smirnov p is below it (and LatencyMinEffect is met). It
// must be in (0, 1).
func LatencyAlpha(a float64) Option { return func(s *settings) { s.alpha = a } }

// LatencyMinEffect is the smallest move of the median or p95, as a
// fraction of the primary's, that counts as a latency change (default
// history.DefaultMinEffect, 0.10). It must be 0 or more.
func LatencyMinEffect(f float64) Option { return func(s *settings) { s.minEffect = f } }

// OptionError is a bad option value, named.
type OptionError struct {
	Option string // RelativeMargin, AbsoluteMargin, LatencyAlpha, …
	Value  string
	Err    error
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("compare: %s %s: %v", e.Option, e.Value, e.Err)
}

func (e *OptionError) Unwrap() error { return e.Err }

// check refuses values that cannot be meant.
func (s settings) check() error {
	for _, m := range []struct {
		name string
		v    float64
	}{{"RelativeMargin", s.relative}, {"AbsoluteMargin", s.absolute}} {
		if math.IsNaN(m.v) || m.v < 0 || m.v > 100 {
			return &OptionError{Option: m.name, Value: fmt.Sprint(m.v), Err: fmt.Errorf("want a percentage from 0 to 100")}
		}
	}
	if math.IsNaN(s.alpha) || s.alpha <= 0 || s.alpha >= 1 {
		return &OptionError{Option: "LatencyAlpha", Value: fmt.Sprint(s.alpha), Err: fmt.Errorf("want a probability between 0 and 1, e.g. 0.01")}
	}
	if math.IsNaN(s.minEffect) || math.IsInf(s.minEffect, 0) || s.minEffect < 0 {
		return &OptionError{Option: "LatencyMinEffect", Value: fmt.Sprint(s.minEffect), Err: fmt.Errorf("want a fraction, 0 or more, e.g. 0.1")}
	}
	return nil
}
