package main

import (
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/internal/testtape"
	"github.com/replayctl/replayctl/transport"
)

// callTape records a handshake and n tools/call against the slow test
// server, for replays against its misbehaving modes.
func callTape(t *testing.T, n int) string {
	t.Helper()
	return testtape.Record(t, transport.HTTP{URL: testserver.SlowHTTP(t)}, "http", testtape.Conversation("echo", `{"text":"call %d"}`, n))
}

// TestTargetsThatHang: each way a target can hang ends within --timeout
// plus a margin, with a clear error and the documented exit status.
func TestTargetsThatHang(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	tp := callTape(t, 1)
	const timeout = 2 * time.Second
	cases := []struct {
		name   string
		args   []string
		code   int
		output string // in stdout or stderr
	}{
		{"no response headers", []string{"--target", testserver.SlowHTTP(t, "-hang", "headers")}, 1, "no answer within 2s"},
		{"429 with Retry-After 100000", []string{"--target", testserver.SlowHTTP(t, "-hang", "429")}, 1, "later than the 2s the request has"},
		{"stdio server that never reads", append([]string{"--"}, testserver.Slow(t, "-hang", "noread")...), 3, "did not read its stdin"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			res := replayctl(t, append([]string{"run", tp, "--speed", "fast", "--timeout", timeout.String()}, tc.args...)...)
			took := time.Since(start)
			if res.code != tc.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", res.code, tc.code, res.stdout, res.stderr)
			}
			if out := res.stdout + res.stderr; !strings.Contains(out, tc.output) {
				t.Errorf("output does not say %q:\nstdout:\n%s\nstderr:\n%s", tc.output, res.stdout, res.stderr)
			}
			// Every exchange is bounded by the timeout (here one request
			// hangs). The margin covers process start and stop.
			if limit := timeout + 8*time.Second; took > limit {
				t.Errorf("took %s, want under %s", took, limit)
			}
			t.Logf("ended after %s", took)
		})
	}
}
