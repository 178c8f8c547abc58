package scheduler

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in     string
		want   Speed
		canon  string // String() of the result
		reason string // non-empty: Parse must fail with this reason
	}{
		{in: "realtime", want: Speed{Mode: Realtime}, canon: "realtime"},
		{in: " Realtime ", want: Speed{Mode: Realtime}, canon: "realtime"},
		{in: "fast", want: Speed{Mode: Fast}, canon: "fast"},
		{in: "stepped", want: Speed{Mode: Stepped}, canon: "stepped"},
		{in: "10x", want: Speed{Mode: Scaled, Factor: 10}, canon: "10x"},
		{in: "10X", want: Speed{Mode: Scaled, Factor: 10}, canon: "10x"},
		{in: "0.5x", want: Speed{Mode: Scaled, Factor: 0.5}, canon: "0.5x"},
		{in: "2.5x", want: Speed{Mode: Scaled, Factor: 2.5}, canon: "2.5x"},
		{in: "1x", want: Speed{Mode: Scaled, Factor: 1}, canon: "1x"},
		{in: "1e3x", want: Speed{Mode: Scaled, Factor: 1000}, canon: "1000x"},
		{in: "fixed:50ms", want: Speed{Mode: Fixed, Interval: 50 * time.Millisecond}, canon: "fixed:50ms"},
		{in: "fixed:1m30s", want: Speed{Mode: Fixed, Interval: 90 * time.Second}, canon: "fixed:1m30s"},
		{in: "fixed:1us", want: Speed{Mode: Fixed, Interval: time.Microsecond}, canon: "fixed:1µs"},
		{in: "rps:500", want: Speed{Mode: Rate, RPS: 500}, canon: "rps:500"},
		{in: "rps:12.5", want: Speed{Mode: Rate, RPS: 12.5}, canon: "rps:12.5"},

		{in: "10y", reason: wantSpeed},
		{in: "", reason: wantSpeed},
		{in: "x", reason: wantSpeed},
		{in: "10", reason: `did you mean "10x"? ` + wantSpeed},
		{in: "slow", reason: wantSpeed},
		{in: "0x", reason: wantFactor},
		{in: "-2x", reason: wantFactor},
		{in: "NaNx", reason: wantFactor},
		{in: "infx", reason: wantFactor},
		{in: "1e400x", reason: wantFactor},
		{in: "tenx", reason: wantFactor},
		{in: "fixed:", reason: wantFixed},
		{in: "fixed:0s", reason: wantFixed},
		{in: "fixed:-5ms", reason: wantFixed},
		{in: "fixed:50", reason: wantFixed},
		{in: "rps:", reason: wantRate},
		{in: "rps:0", reason: wantRate},
		{in: "rps:-1", reason: wantRate},
		{in: "rps:inf", reason: wantRate},
		{in: "rps:nan", reason: wantRate},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			if tt.reason != "" {
				var se *SpeedError
				if !errors.As(err, &se) {
					t.Fatalf("Parse(%q) error = %v, want a *SpeedError", tt.in, err)
				}
				if se.Input != tt.in || se.Reason != tt.reason {
					t.Errorf("got error %q, want input %q and reason %q", err, tt.in, tt.reason)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("Parse(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
			if s := got.String(); s != tt.canon {
				t.Errorf("String() = %q, want %q", s, tt.canon)
			}
			again, err := Parse(got.String())
			if err != nil || again != got {
				t.Errorf("Parse(String()) = %+v, %v, want %+v", again, err, got)
			}
		})
	}
}

func TestParseErrorMessage(t *testing.T) {
	_, err := Parse("10y")
	want := `speed "10y": want realtime, fast, stepped, Nx (e.g. 10x), fixed:<duration> (e.g. fixed:50ms) or rps:<N>`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		s    Speed
		ok   bool
	}{
		{"zero value is realtime", Speed{}, true},
		{"scaled", Speed{Mode: Scaled, Factor: 3}, true},
		{"scaled zero", Speed{Mode: Scaled}, false},
		{"scaled NaN", Speed{Mode: Scaled, Factor: math.NaN()}, false},
		{"scaled Inf", Speed{Mode: Scaled, Factor: math.Inf(1)}, false},
		{"fixed", Speed{Mode: Fixed, Interval: time.Millisecond}, true},
		{"fixed zero", Speed{Mode: Fixed}, false},
		{"rate", Speed{Mode: Rate, RPS: 0.1}, true},
		{"rate negative", Speed{Mode: Rate, RPS: -3}, false},
		{"unknown mode", Speed{Mode: 42}, false},
		{"negative mode", Speed{Mode: -1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.s.Validate()
			if got := err == nil; got != tt.ok {
				t.Errorf("Validate(%+v) = %v, want ok %v", tt.s, err, tt.ok)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "speed ") {
				t.Errorf("got message %q, want it to start with `speed `", err)
			}
		})
	}
}

func TestLimit(t *testing.T) {
	tests := []struct {
		s    Speed
		want rate.Limit
	}{
		{Speed{Mode: Rate, RPS: 500}, 500},
		{Speed{Mode: Fixed, Interval: 50 * time.Millisecond}, 20},
		{Speed{Mode: Scaled, Factor: 10}, rate.Inf},
		{Speed{Mode: Fast}, rate.Inf},
		{Speed{Mode: Rate}, rate.Inf},
	}
	for _, tt := range tests {
		t.Run(tt.s.String(), func(t *testing.T) {
			if got := tt.s.Limit(); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestModeString(t *testing.T) {
	if got, want := Rate.String(), "rate"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := Mode(9).String(), "mode(9)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// FuzzParse: any input either fails with a *SpeedError or gives a valid speed
// whose String parses back to the same speed.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"realtime", "fast", "stepped", "10x", "0.5x", "fixed:50ms", "rps:12.5", "10y", "0x1p-3x", "fixed:1h2m3.5s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := Parse(in)
		if err != nil {
			var se *SpeedError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) error %v is not a *SpeedError", in, err)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("Parse(%q) = %+v, which does not validate: %v", in, s, err)
		}
		again, err := Parse(s.String())
		if err != nil || again != s {
			t.Fatalf("Parse(%q) = %+v; Parse(%q) = %+v, %v", in, s, s.String(), again, err)
		}
	})
}

func TestPaced(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"realtime", true},
		{"10x", true},
		{"0.5x", true},
		{"fixed:50ms", true},
		{"rps:500", true},
		{" RPS:12.5 ", true},
		{"fast", false},
		{"stepped", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			s, err := Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Paced(); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSpeedText: a speed in a JSON document (as the report writes it) is
// its String, and reads back to the same value; bad text fails with the
// *SpeedError that says what is allowed.
func TestSpeedText(t *testing.T) {
	type doc struct {
		Speed *Speed `json:"speed,omitempty"`
	}
	for _, in := range []string{"realtime", "fast", "stepped", "10x", "0.5x", "fixed:50ms", "fixed:1m30s", "rps:12.5"} {
		t.Run(in, func(t *testing.T) {
			s, err := Parse(in)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(doc{Speed: &s})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := string(b), `{"speed":"`+s.String()+`"}`; got != want {
				t.Errorf("got %s, want %s", got, want)
			}
			var back doc
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if back.Speed == nil || *back.Speed != s {
				t.Errorf("read back %+v, want %+v", back.Speed, s)
			}
		})
	}
	t.Run("absent", func(t *testing.T) {
		var back doc
		if b, _ := json.Marshal(back); string(b) != `{}` {
			t.Errorf("got %s, want {}", b)
		}
		if err := json.Unmarshal([]byte(`{}`), &back); err != nil || back.Speed != nil {
			t.Errorf("got %+v, %v, want no speed", back.Speed, err)
		}
	})
	bad := []struct {
		in   string
		want string
	}{
		{"10y", `speed "10y": ` + wantSpeed},
		{"", `speed "": ` + wantSpeed},
		{"0x", `speed "0x": ` + wantFactor},
		{"fixed:-1s", `speed "fixed:-1s": ` + wantFixed},
		{"rps:0", `speed "rps:0": ` + wantRate},
	}
	for _, tt := range bad {
		t.Run("bad "+tt.in, func(t *testing.T) {
			s := Speed{Mode: Fast}
			err := s.UnmarshalText([]byte(tt.in))
			var se *SpeedError
			if !errors.As(err, &se) || err.Error() != tt.want {
				t.Errorf("got %v, want *SpeedError %s", err, tt.want)
			}
			if s != (Speed{Mode: Fast}) {
				t.Errorf("speed changed to %+v on bad text", s)
			}
			var d doc
			if err := json.Unmarshal([]byte(`{"speed":"`+tt.in+`"}`), &d); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("json: got %v, want an error containing %s", err, tt.want)
			}
		})
	}
	t.Run("invalid value", func(t *testing.T) {
		_, err := json.Marshal(doc{Speed: &Speed{Mode: Scaled}})
		if err == nil || !strings.Contains(err.Error(), wantFactor) {
			t.Errorf("got %v, want an error containing %s", err, wantFactor)
		}
	})
}
