package scheduler

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/replayctl/replayctl/internal/editdist"
)

// Mode is a pacing strategy.
type Mode int

// The pacing strategies. The zero Mode is Realtime, so the zero Speed is the
// default "replay at the recorded pace".
const (
	Realtime Mode = iota // the recorded pace (1x)
	Scaled               // the recorded pace times Speed.Factor ("10x", "0.5x")
	Fast                 // no waiting at all
	Fixed                // one item every Speed.Interval, offsets ignored
	Stepped              // no waiting: the controller's gate releases items
	Rate                 // Speed.RPS items a second, offsets ignored
)

var modeNames = [...]string{
	Realtime: "realtime",
	Scaled:   "scaled",
	Fast:     "fast",
	Fixed:    "fixed",
	Stepped:  "stepped",
	Rate:     "rate",
}

// String returns the mode's lower-case name, or "mode(N)" for an unknown one.
func (m Mode) String() string {
	if m >= 0 && int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("mode(%d)", int(m))
}

// Speed is a pacing strategy with its parameter. Only the field that belongs
// to Mode is read: Factor for Scaled, Interval for Fixed, RPS for Rate.
type Speed struct {
	Mode     Mode
	Factor   float64       // Scaled: recorded time is divided by Factor
	Interval time.Duration // Fixed: the gap between two items
	RPS      float64       // Rate: items per second
}

// SpeedError is the error Parse and Speed.Validate return. Its message names
// the input and says what is accepted.
type SpeedError struct {
	Input  string // the text given, or Speed.String() for a Speed value
	Reason string
}

func (e *SpeedError) Error() string {
	return fmt.Sprintf("speed %q: %s", e.Input, e.Reason)
}

const (
	wantSpeed  = "want realtime, fast, stepped, Nx (e.g. 10x), fixed:<duration> (e.g. fixed:50ms) or rps:<N>"
	wantFactor = "the factor must be a finite number above 0 (e.g. 10x or 0.5x)"
	wantFixed  = "the interval must be a duration above 0 (e.g. fixed:50ms)"
	wantRate   = "the rate must be a finite number of requests per second above 0 (e.g. rps:500)"
)

// Parse reads a speed as written on the command line or in a config file:
// "realtime", "fast", "stepped", "Nx" (a factor: "10x", "0.5x"),
// "fixed:<duration>" ("fixed:50ms") or "rps:<N>" ("rps:500", "rps:12.5").
// Case and surrounding spaces are ignored. Zero, negative, NaN and infinite
// factors, intervals and rates are refused with a *SpeedError.
func Parse(s string) (Speed, error) {
	in := strings.ToLower(strings.TrimSpace(s))
	switch in {
	case "realtime":
		return Speed{Mode: Realtime}, nil
	case "fast":
		return Speed{Mode: Fast}, nil
	case "stepped":
		return Speed{Mode: Stepped}, nil
	}
	switch {
	case strings.HasPrefix(in, "fixed:"):
		d, err := time.ParseDuration(strings.TrimPrefix(in, "fixed:"))
		if err != nil || d <= 0 {
			return Speed{}, &SpeedError{Input: s, Reason: wantFixed}
		}
		return Speed{Mode: Fixed, Interval: d}, nil
	case strings.HasPrefix(in, "rps:"):
		r, ok := positive(strings.TrimPrefix(in, "rps:"))
		if !ok {
			return Speed{}, &SpeedError{Input: s, Reason: wantRate}
		}
		return Speed{Mode: Rate, RPS: r}, nil
	case strings.HasSuffix(in, "x") && len(in) > 1:
		f, ok := positive(strings.TrimSuffix(in, "x"))
		if !ok {
			return Speed{}, &SpeedError{Input: s, Reason: wantFactor}
		}
		return Speed{Mode: Scaled, Factor: f}, nil
	}
	reason := wantSpeed
	if _, ok := positive(in); ok { // a factor without its x
		reason = fmt.Sprintf("did you mean %q? %s", in+"x", wantSpeed)
	} else if c := editdist.Closest(in, []string{"realtime", "fast", "stepped"}); c != "" {
		reason = fmt.Sprintf("did you mean %q? %s", c, wantSpeed)
	}
	return Speed{}, &SpeedError{Input: s, Reason: reason}
}

// positive parses a finite number above zero.
func positive(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 {
		return 0, false
	}
	return f, true
}

// String returns the speed in the form Parse reads: Parse(s.String()) gives s
// back for every valid s (fields that do not belong to the mode are dropped).
func (s Speed) String() string {
	switch s.Mode {
	case Realtime, Fast, Stepped:
		return s.Mode.String()
	case Scaled:
		return strconv.FormatFloat(s.Factor, 'g', -1, 64) + "x"
	case Fixed:
		return "fixed:" + s.Interval.String()
	case Rate:
		return "rps:" + strconv.FormatFloat(s.RPS, 'g', -1, 64)
	}
	return s.Mode.String()
}

// Validate reports whether s can be used, as a *SpeedError: a known mode, and
// for Scaled, Fixed and Rate a finite parameter above zero.
func (s Speed) Validate() error {
	switch s.Mode {
	case Realtime, Fast, Stepped:
		return nil
	case Scaled:
		if !finitePositive(s.Factor) {
			return &SpeedError{Input: s.String(), Reason: wantFactor}
		}
	case Fixed:
		if s.Interval <= 0 {
			return &SpeedError{Input: s.String(), Reason: wantFixed}
		}
	case Rate:
		if !finitePositive(s.RPS) {
			return &SpeedError{Input: s.String(), Reason: wantRate}
		}
	default:
		return &SpeedError{Input: s.String(), Reason: "unknown mode; " + wantSpeed}
	}
	return nil
}

func finitePositive(f float64) bool {
	return f > 0 && !math.IsInf(f, 0) // NaN fails f > 0
}

// Limit returns the item rate of a Fixed or Rate speed as a rate.Limit, for
// callers that throttle with golang.org/x/time/rate (a per-target cap, say).
// Other modes are not paced by count and return rate.Inf.
func (s Speed) Limit() rate.Limit {
	switch s.Mode {
	case Fixed:
		if s.Interval > 0 {
			return rate.Every(s.Interval)
		}
	case Rate:
		if finitePositive(s.RPS) {
			return rate.Limit(s.RPS)
		}
	}
	return rate.Inf
}

// ByTime reports whether the speed paces by recorded time (realtime and
// Nx), as opposed to by count (fixed, rps) or not at all (fast, stepped).
// Only speeds that pace by recorded time can give each session a clock of
// its own.
func (s Speed) ByTime() bool { return s.Mode == Realtime || s.Mode == Scaled }

// Paced reports whether the speed follows a schedule, so that a message
// can be late: realtime and Nx by recorded time, fixed and rps by count.
// Fast and stepped follow none.
func (s Speed) Paced() bool { return s.ByTime() || s.Mode == Fixed || s.Mode == Rate }

// MarshalText writes the speed as String does, so that a report or a
// config written with it reads back with UnmarshalText. An invalid speed
// is refused with its *SpeedError.
func (s Speed) MarshalText() ([]byte, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return []byte(s.String()), nil
}

// UnmarshalText reads a speed as Parse does; bad text is a *SpeedError
// that says what is accepted, and leaves s as it was.
func (s *Speed) UnmarshalText(text []byte) error {
	v, err := Parse(string(text))
	if err != nil {
		return err
	}
	*s = v
	return nil
}
