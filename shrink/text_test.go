package shrink_test

import (
	"strings"
	"testing"

	"github.com/replayctl/replayctl/shrink"
)

// TestWriteTextCounts: the text's counts say one and many as a person
// does ("the parameters of 2 message(s)", "(1 tries)" before).
func TestWriteTextCounts(t *testing.T) {
	for _, tc := range []struct {
		simplified, tries int
		want, unwanted    []string
	}{
		{1, 1, []string{"simplified: the parameters of 1 message\n", "(1 try) in"}, []string{"(s)", "1 messages", "1 tries"}},
		{2, 3, []string{"simplified: the parameters of 2 messages\n", "(3 tries) in"}, []string{"(s)"}},
	} {
		res := &shrink.Result{Simplified: tc.simplified, Tries: tc.tries, Runs: 4}
		var b strings.Builder
		if err := res.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("simplified %d, tries %d: the text lacks %q:\n%s", tc.simplified, tc.tries, w, b.String())
			}
		}
		for _, u := range tc.unwanted {
			if strings.Contains(b.String(), u) {
				t.Errorf("simplified %d, tries %d: the text has %q:\n%s", tc.simplified, tc.tries, u, b.String())
			}
		}
	}
}
