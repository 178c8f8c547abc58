package replay

import (
	"time"

	"github.com/replayctl/replayctl/scheduler"
)

// Speed is the pacing of a replay, a value made once: Realtime (the
// default), Fast, Stepped, Times, Rate, Fixed, or ParseSpeed of the text
// the CLI and the config file take. Give it with WithSpeed. The zero Speed
// is Realtime. A Speed out of range (Times(0), Rate(-1)) is an
// *OptionError of New, naming Speed.
type Speed struct{ v scheduler.Speed }

// Realtime replays at the recorded pace.
func Realtime() Speed { return Speed{scheduler.Speed{Mode: scheduler.Realtime}} }

// Fast sends each message as soon as what it waits for has come.
func Fast() Speed { return Speed{scheduler.Speed{Mode: scheduler.Fast}} }

// Stepped releases one message per value received on Steps.
func Stepped() Speed { return Speed{scheduler.Speed{Mode: scheduler.Stepped}} }

// Times replays at the recorded pace times f: Times(10) ten times as fast,
// Times(0.5) at half speed ("10x", "0.5x").
func Times(f float64) Speed { return Speed{scheduler.Speed{Mode: scheduler.Scaled, Factor: f}} }

// Rate sends n messages a second, the recorded times ignored ("rps:N").
func Rate(n float64) Speed { return Speed{scheduler.Speed{Mode: scheduler.Rate, RPS: n}} }

// Fixed sends one message every d, the recorded times ignored
// ("fixed:50ms").
func Fixed(d time.Duration) Speed {
	return Speed{scheduler.Speed{Mode: scheduler.Fixed, Interval: d}}
}

// ParseSpeed reads a speed as the CLI's --speed and the config file's
// speed write it: realtime, fast, stepped, Nx (e.g. 10x, 0.5x),
// fixed:D (e.g. fixed:50ms) or rps:N. Its error is a
// *scheduler.SpeedError saying what is accepted.
func ParseSpeed(s string) (Speed, error) {
	v, err := scheduler.Parse(s)
	if err != nil {
		return Speed{}, err
	}
	return Speed{v}, nil
}

// String is the speed as ParseSpeed reads it: ParseSpeed(s.String())
// gives s back.
func (s Speed) String() string { return s.v.String() }

// WithSpeed sets the pacing (Realtime by default).
func WithSpeed(sp Speed) Option {
	return func(s *settings) {
		s.speed = speedValue(sp.v, sp.v.String())
		s.given("Speed")
	}
}

// SpeedText sets the pacing from its text, as ParseSpeed reads it, for a
// speed a person wrote (a flag, a setting); a bad one is an *OptionError
// of New. Realtime by default. A program gives WithSpeed a Speed.
func SpeedText(speed string) Option {
	return func(s *settings) { s.speed = speedText(speed); s.given("Speed") }
}
