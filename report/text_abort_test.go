package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestAbortShownAs: the result line of a replay that stopped early says
// the reason, or what AbortShownAs gives instead of it.
func TestAbortShownAs(t *testing.T) {
	var r Report
	r.Abort("connect session s1: connection refused")
	for _, tc := range []struct {
		opts []TextOption
		want string
	}{
		{nil, "FAIL (stopped early: connect session s1: connection refused)"},
		{[]TextOption{AbortShownAs("the error follows on stderr")}, "FAIL (stopped early: the error follows on stderr)"},
	} {
		var b bytes.Buffer
		if err := r.WriteText(&b, false, tc.opts...); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tc.want) || (tc.opts != nil && strings.Contains(b.String(), "refused")) {
			t.Errorf("got\n%s\nwant a result line %q", b.String(), tc.want)
		}
	}
}
