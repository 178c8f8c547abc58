package main

import (
	"strings"
	"testing"
)

// TestAskWaitReachesEveryReplay: --ask-wait reaches the replays of run,
// debug, shrink and compare. The tape has the recorded server asking
// roots/list; the go-sdk test server never asks it, so each replay holds
// the session's ping for --ask-wait and warns with the value it was
// given: 250ms, not the engine's default 1s (before, debug, shrink and
// compare had no such flag and replayed with the default).
func TestAskWaitReachesEveryReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("replays against a server process")
	}
	path := askTape(t, `{"roots":{"listChanged":true}}`)
	sum := sumCommand(t, 1)
	common := append([]string{"--ask-wait", "250ms", "--timeout", "2m"}, askTapeIgnore...)
	for _, tt := range []struct {
		name  string
		stdin string
		args  []string
		code  int
	}{
		{"run", "", append(append([]string{"run", path, "--speed", "fast"}, common...), append([]string{"--"}, sum...)...), 0},
		{"debug", "continue\n", append(append([]string{"debug", path}, common...), append([]string{"--"}, sum...)...), 0},
		// The tape replays without a failure (exit 1, nothing to
		// shrink); the replays' warnings show at --log-level debug.
		{"shrink", "", append(append([]string{"shrink", path, "--baseline", "1", "--log-level", "debug"}, common...), append([]string{"--"}, sum...)...), 1},
		// Answers only: the test server sends none of the tape's
		// notifications, which compare would wait --timeout for.
		{"compare", "", append([]string{"compare", path, "--notifications=false", "--primary", "cmd:" + strings.Join(sum, " "), "--candidate", "cmd:" + strings.Join(sum, " ")}, common[:4]...), 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := replayctlIn(t, tt.stdin, tt.args...)
			if res.code != tt.code || !strings.Contains(res.stderr, "did not ask roots/list within 250ms (--ask-wait") {
				t.Fatalf("replayctl %s: exit %d, want %d and the warning that the server did not ask roots/list within 250ms (--ask-wait)\nstdout:\n%s\nstderr:\n%s",
					tt.name, res.code, tt.code, res.stdout, res.stderr)
			}
			if strings.Contains(res.stderr, "within 1s") {
				t.Errorf("replayctl %s: a replay waited the default 1s:\n%s", tt.name, res.stderr)
			}
		})
	}
}
