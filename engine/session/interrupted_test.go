package session

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestInterruptedBy: a send that failed on a deadline after the run's
// deadline passed was interrupted, unless its own deadline came first
// (a timeout of its own), or it failed otherwise.
func TestInterruptedBy(t *testing.T) {
	d := time.Now().Add(-time.Second)
	ctx, cancel := context.WithDeadline(context.Background(), d) // passed: done at once
	defer cancel()
	cases := []struct {
		name string
		err  error
		own  time.Time
		want bool
	}{
		{"no deadline of its own", context.DeadlineExceeded, time.Time{}, true},
		{"its own after the run's", context.DeadlineExceeded, d.Add(time.Millisecond), true},
		{"its own before the run's", context.DeadlineExceeded, d.Add(-time.Millisecond), false},
		{"another error", errors.New("refused"), time.Time{}, false},
	}
	for _, c := range cases {
		if got := interruptedBy(ctx, c.err, c.own); got != c.want {
			t.Errorf("%s: interruptedBy = %v, want %v", c.name, got, c.want)
		}
	}
	if interruptedBy(context.Background(), context.DeadlineExceeded, time.Time{}) {
		t.Error("a run without a deadline: interruptedBy = true, want false")
	}
}
