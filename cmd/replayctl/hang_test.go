package main

import (
	"context"
	"encoding/json"
	"os/exec"
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

// TestTargetsThatHang: each way a target can hang ends — the wait for
// it is bounded by --timeout — with a clear error naming that timeout,
// the documented exit status, and the hang's end in the JSON report
// (the hung tools/call's one error, or the run's abort): the run ended
// by the timeout's expiry. A run that never ends is killed near this
// test's own deadline (-timeout) and fails it, its output shown; no
// bound on wall time is asserted (it was --timeout + 8 s, for a whole
// process on a loaded machine).
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
		// ended is how the JSON report tells the hang's end: the kind
		// of the run's one error (a tools/call's), or "aborted" when
		// the run was aborted with output in its message.
		ended string
	}{
		{"no response headers", []string{"--target", testserver.SlowHTTP(t, "-hang", "headers")}, 1, "no answer within 2s", "timeout"},
		{"429 with Retry-After 100000", []string{"--target", testserver.SlowHTTP(t, "-hang", "429")}, 1, "later than the 2s the request has", "target"},
		{"stdio server that never reads", append([]string{"--"}, testserver.Slow(t, "-hang", "noread")...), 3, "did not read its stdin", "aborted"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := replayctlUntilDeadline(t, append([]string{"run", tp, "--speed", "fast", "--timeout", timeout.String(), "-o", "json"}, tc.args...)...)
			if res.code != tc.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", res.code, tc.code, res.stdout, res.stderr)
			}
			if out := res.stdout + res.stderr; !strings.Contains(out, tc.output) {
				t.Errorf("output does not say %q:\nstdout:\n%s\nstderr:\n%s", tc.output, res.stdout, res.stderr)
			}
			var rep struct {
				Summary struct {
					Aborted string `json:"aborted"`
				} `json:"summary"`
				Errors []struct {
					Method  string `json:"method"`
					Kind    string `json:"kind"`
					Message string `json:"message"`
				} `json:"errors"`
			}
			if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
				t.Fatalf("the report is not JSON: %v\n%s", err, res.stdout)
			}
			switch {
			case tc.ended == "aborted":
				if !strings.Contains(rep.Summary.Aborted, tc.output) {
					t.Errorf("the report's aborted is %q, want it to say %q", rep.Summary.Aborted, tc.output)
				}
			case len(rep.Errors) != 1 || rep.Errors[0].Method != "tools/call" || rep.Errors[0].Kind != tc.ended || !strings.Contains(rep.Errors[0].Message, tc.output):
				t.Errorf("the report's errors: %+v\nwant one, the tools/call's, of kind %s, saying %q", rep.Errors, tc.ended, tc.output)
			}
		})
	}
}

// replayctlUntilDeadline is replayctl, but the process is killed if it
// has not ended shortly before this test's deadline (-timeout): the
// test then fails, with what the process wrote, rather than the whole
// test binary with a goroutine dump and the process left running.
func replayctlUntilDeadline(t *testing.T, args ...string) result {
	t.Helper()
	ctx := t.Context()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-deadlineMargin))
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, binary, args...)
	res := runCmd(t, cmd, "", args)
	if ctx.Err() != nil {
		t.Fatalf("replayctl %v did not end before the test's deadline (it was killed)\nstdout:\n%s\nstderr:\n%s", args, res.stdout, res.stderr)
	}
	return res
}

// deadlineMargin is what is left of a test's time when
// replayctlUntilDeadline kills a process that has not ended: time to
// report it and clean up before the test binary's own timeout.
const deadlineMargin = 20 * time.Second
