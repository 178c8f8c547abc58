package replay_test

import (
	"errors"
	"testing"
	"time"

	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/validator"
)

// TestSpeedValues: each constructor is the speed its text names, and
// ParseSpeed of that text gives it back.
func TestSpeedValues(t *testing.T) {
	for _, tc := range []struct {
		sp   replay.Speed
		text string
	}{
		{replay.Realtime(), "realtime"},
		{replay.Speed{}, "realtime"},
		{replay.Fast(), "fast"},
		{replay.Stepped(), "stepped"},
		{replay.Times(10), "10x"},
		{replay.Times(0.5), "0.5x"},
		{replay.Rate(500), "rps:500"},
		{replay.Fixed(50 * time.Millisecond), "fixed:50ms"},
	} {
		if got := tc.sp.String(); got != tc.text {
			t.Errorf("String() = %q, want %q", got, tc.text)
		}
		back, err := replay.ParseSpeed(tc.text)
		if err != nil || back != tc.sp {
			t.Errorf("ParseSpeed(%q) = %v, %v; want %v", tc.text, back, err, tc.sp)
		}
	}
	if _, err := replay.ParseSpeed("warp"); err == nil {
		t.Error("ParseSpeed(warp): no error")
	}
}

// TestTypedOptionErrors: a typed value out of range is an *OptionError of
// Run naming the option, as its text is.
func TestTypedOptionErrors(t *testing.T) {
	for _, tc := range []struct {
		opt    replay.Option
		option string
	}{
		{replay.WithSpeed(replay.Times(0)), "Speed"},
		{replay.WithSpeed(replay.Rate(-1)), "Speed"},
		{replay.WithSpeed(replay.Fixed(0)), "Speed"},
		{replay.SpeedText("0x"), "Speed"},
		{replay.Order(replay.Ordering("backwards")), "Order"},
		{replay.OnError(replay.Pause), "OnError"}, // not a controlled replay
		{replay.Validation(validator.Mode("loose")), "Validation"},
	} {
		rep, err := replay.Run(t.Context(), quickstart, tc.opt)
		var oe *replay.OptionError
		if rep != nil || !errors.As(err, &oe) || oe.Option != tc.option {
			t.Errorf("Run: %v, %v; want no report and an *OptionError naming %s", rep, err, tc.option)
		}
	}
}

// TestTypedOptionsReplay: the typed values replay as their texts do.
func TestTypedOptionsReplay(t *testing.T) {
	rep, err := replay.Run(t.Context(), quickstart,
		replay.WithSpeed(replay.Fast()), replay.Order(replay.Sequential),
		replay.OnError(replay.Continue), replay.Validation(validator.Structural))
	if err != nil || !rep.Passed() {
		t.Fatalf("replay: %v (passed %v)", err, rep != nil && rep.Passed())
	}
	if got := rep.Summary.Speed; got == nil || got.String() != "fast" {
		t.Errorf("report speed %v, want fast", got)
	}
}

func TestParsePolicies(t *testing.T) {
	for _, s := range []string{"causal", "sequential", "none", "random"} {
		if o, err := replay.ParseOrdering(s); err != nil || string(o) != s {
			t.Errorf("ParseOrdering(%q) = %q, %v", s, o, err)
		}
	}
	for _, s := range []string{"continue", "stop", "retry", "pause"} {
		if p, err := replay.ParseErrorPolicy(s); err != nil || string(p) != s {
			t.Errorf("ParseErrorPolicy(%q) = %q, %v", s, p, err)
		}
	}
	for _, s := range []string{"exact", "structural", "partial", "schema"} {
		if m, err := replay.ParseValidation(s); err != nil || string(m) != s {
			t.Errorf("ParseValidation(%q) = %q, %v", s, m, err)
		}
	}
	for _, bad := range []func() error{
		func() error { _, err := replay.ParseOrdering("backwards"); return err },
		func() error { _, err := replay.ParseErrorPolicy("explode"); return err },
		func() error { _, err := replay.ParseValidation("loose"); return err },
		func() error { _, err := replay.ParseValidation("contract"); return err },
	} {
		if bad() == nil {
			t.Error("a bad value parsed")
		}
	}
}
