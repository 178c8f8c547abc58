package scheduler

import (
	"strings"
	"testing"
)

// TestParseBareNumberSuggestsFactor: a bare number is a factor without
// its "x": the error says which speed was meant.
func TestParseBareNumberSuggestsFactor(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"10", `did you mean "10x"?`},
		{"0.5", `did you mean "0.5x"?`},
		{" 2 ", `did you mean "2x"?`},
	} {
		_, err := Parse(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q): got %v, want it to say %s", tc.in, err, tc.want)
		}
	}
	for _, in := range []string{"0", "-3", "NaN"} {
		if _, err := Parse(in); err == nil || strings.Contains(err.Error(), "did you mean") {
			t.Errorf("Parse(%q): got %v, want an error with no suggestion (no factor fits)", in, err)
		}
	}
}
