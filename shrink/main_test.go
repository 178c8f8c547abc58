package shrink_test

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// untilDeadline bounds a long shrink by the test binary's -timeout, less
// a minute for the test to report the shrink's error itself, not as a
// panic of the test timeout: a shrink's work is fixed (seeded), its wall
// time is the machine's, and a bound of its own (5 minutes) was passed
// under load (TestShrinkFlaky: 246 s, then over 300 s twice, load 40-60).
// Without -timeout it is the test's context.
func untilDeadline(t *testing.T) (context.Context, context.CancelFunc) {
	t.Helper()
	end, ok := t.Deadline()
	if !ok {
		return context.WithCancel(t.Context())
	}
	if time.Until(end) < 2*time.Minute {
		t.Fatalf("the test binary's -timeout leaves %s: a shrink test needs more than a minute over the minute kept for its report; run with a longer -timeout", time.Until(end).Round(time.Second))
	}
	return context.WithDeadline(t.Context(), end.Add(-time.Minute))
}
