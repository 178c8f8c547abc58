package main

import (
	"strings"
	"testing"
)

// TestRampIgnoredWarns: --ramp spreads the copies' starts over recorded
// time, which fast and rps pacing do not follow: there it would be
// silently ignored. A warning says so and the run goes on (exit 0); at a
// speed that follows time, no warning.
func TestRampIgnoredWarns(t *testing.T) {
	for _, tt := range []struct {
		speed, want string
	}{
		{"fast", "warning: --ramp 5s does nothing at speed fast"},
		{"rps:1000", "warning: --ramp 5s does nothing at speed rps:1000"},
		{"100x", ""},
	} {
		res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", tt.speed, "--sessions", "2", "--ramp", "5s", "-q", "-o", "json")
		if res.code != 0 {
			t.Errorf("--speed %s: exit %d, want 0\n%s", tt.speed, res.code, res.stderr)
		}
		if tt.want == "" && strings.Contains(res.stderr, "--ramp") {
			t.Errorf("--speed %s: stderr %q; want no word of --ramp", tt.speed, res.stderr)
		}
		if tt.want != "" && !strings.Contains(res.stderr, tt.want) {
			t.Errorf("--speed %s: stderr %q; want %q", tt.speed, res.stderr, tt.want)
		}
	}
}
