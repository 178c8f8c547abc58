package config

import (
	"errors"
	"strings"
	"testing"
)

// TestParseListsEveryError: Parse goes on past a key that fails, and its
// error joins every *Error (errors.As finds the first); past maxErrors it
// says how many more.
func TestParseListsEveryError(t *testing.T) {
	_, err := Parse("c.yaml", []byte("sped: fast\nspeed: 10x\nspeed: 2x\nvalidation: { mode: [exact], tolerance: { numeric: lots } }\n"))
	var first *Error
	if !errors.As(err, &first) || first.Line != 1 {
		t.Fatalf("got %v, want an *Error at line 1 first", err)
	}
	for _, want := range []string{`line 1: unknown key "sped"`, `line 3: key "speed" appears twice`, "validation.mode", "validation.tolerance.numeric"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	var many strings.Builder
	for i := range maxErrors + 7 {
		many.WriteString(strings.Repeat("x", i+1) + "y: 1\n")
	}
	_, err = Parse("c.yaml", []byte(many.String()))
	if n := strings.Count(err.Error(), "unknown key"); n != maxErrors || !strings.Contains(err.Error(), "and 7 more errors") {
		t.Errorf("%d unknown keys listed, want %d and \"and 7 more errors\"", n, maxErrors)
	}
}

// TestThresholdValueErrorHasLine: a threshold of the right shape whose
// value is wrong (a latency with no unit, a rate as a bare number) is
// refused by the config check with the line it is on, as other keys are.
func TestThresholdValueErrorHasLine(t *testing.T) {
	for _, tt := range []struct{ value, want string }{
		{`"p99<200"`, "p99<200ms"},
		{`"error_rate<1"`, "error_rate<1%"},
	} {
		_, err := Parse("c.yaml", []byte("speed: fast\nthresholds: [\"p99<1s\", "+tt.value+"]\n"))
		var e *Error
		if !errors.As(err, &e) || e.Line != 2 || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("thresholds [%s]: got %v, want an *Error at line 2 that says %s", tt.value, err, tt.want)
		}
	}
}

// TestSessionsRangeHasLine: performance.sessions follows --sessions' rule
// (1 to 100000; 0 or absent: not set), said with its line.
func TestSessionsRangeHasLine(t *testing.T) {
	for _, n := range []string{"-4", "200000"} {
		_, err := Parse("c.yaml", []byte("speed: fast\nperformance:\n  sessions: "+n+"\n"))
		var e *Error
		if !errors.As(err, &e) || e.Line != 3 || !strings.Contains(err.Error(), "want 1 to 100000") {
			t.Errorf("sessions: %s: got %v, want an *Error at line 3 that says want 1 to 100000", n, err)
		}
	}
	if _, err := Parse("c.yaml", []byte("performance:\n  sessions: 100000\n")); err != nil {
		t.Errorf("sessions: 100000: %v, want no error", err)
	}
}
