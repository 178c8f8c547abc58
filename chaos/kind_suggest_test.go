package chaos

import (
	"strings"
	"testing"
)

// TestParseKindSuggests: a misspelt fault kind is answered with the kind
// meant, as a misspelt flag is ("did you mean"), before the list.
func TestParseKindSuggests(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"malformd", `did you mean "malformed"?`},
		{"dissconnect", `did you mean "disconnect"?`},
		{"unknown_methd", `did you mean "unknown-method"?`},
	} {
		_, err := ParseKind(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "known kinds: malformed") {
			t.Errorf("ParseKind(%q): got %v, want it to say %s and list the known kinds", tc.in, err, tc.want)
		}
	}
	if _, err := ParseKind("zzzzzzzz"); err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("ParseKind(zzzzzzzz): got %v, want the list alone (nothing is close)", err)
	}
}
