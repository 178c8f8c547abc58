package coord

import (
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestAdmit is the retry rule, case by case.
func TestAdmit(t *testing.T) {
	for _, tc := range []struct {
		name    string
		s       shard
		attempt string
		started bool
		want    Action
		takes   bool
	}{
		{"first registration", shard{}, "a", false, Run, true},
		{"a retried process before the start", shard{phase: registered, attempt: "a"}, "b", false, Run, true},
		{"a retried process after the start", shard{phase: registered, attempt: "a"}, "b", true, Stop, false},
		{"a retried process after the first was lost", shard{phase: dead, attempt: "a", why: "no heartbeat"}, "b", true, Stop, false},
		{"the same process reconnecting", shard{phase: registered, attempt: "a"}, "a", true, Resume, false},
		{"the same process, named lost meanwhile", shard{phase: dead, attempt: "a", why: "no heartbeat"}, "a", true, Stop, false},
		{"any process once the report is in", shard{phase: done, attempt: "a"}, "b", true, Stop, false},
		{"the same process once the report is in", shard{phase: done, attempt: "a"}, "a", true, Stop, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, why, takes := admit(tc.s, tc.attempt, tc.started, 1, 4)
			if got != tc.want || takes != tc.takes {
				t.Errorf("got %s (takes %t, %q), want %s (takes %t)", got, takes, why, tc.want, tc.takes)
			}
			if got == Stop && why == "" {
				t.Error("a stop without a reason")
			}
		})
	}
}

// TestLost: a registered shard is lost when it has no poll open and has
// not been heard of for longer than the heartbeat.
func TestLost(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC)
	hb := 2 * time.Second
	for _, tc := range []struct {
		name string
		s    shard
		want bool
	}{
		{"heard of within the heartbeat", shard{phase: registered, heard: now.Add(-time.Second)}, false},
		{"silent past the heartbeat", shard{phase: registered, heard: now.Add(-3 * time.Second)}, true},
		{"silent, but a poll is open", shard{phase: registered, polls: 1, heard: now.Add(-time.Minute)}, false},
		{"done", shard{phase: done, heard: now.Add(-time.Minute)}, false},
		{"never registered", shard{phase: missing}, false},
	} {
		if got := lost(tc.s, now, hb); got != tc.want {
			t.Errorf("%s: lost = %t, want %t", tc.name, got, tc.want)
		}
	}
}
