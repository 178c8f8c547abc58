//go:build unix

package main

import (
	"strings"
	"syscall"
	"testing"

	"github.com/replayctl/replayctl/internal/testserver"
)

// TestRecordDrainZeroWaitsForCtrlC: --drain 0 waits for every answer; a
// request never answered then holds the recording until Ctrl-C, which
// ends it at once with the tape whole (exit 130), naming the request.
// The signal is sent once record logs that the input ended (at
// --log-level debug), not once an answer shows: an answer can be
// relayed before the relay has read the file's end.
func TestRecordDrainZeroWaitsForCtrlC(t *testing.T) {
	r := recordFromFile(t, []string{
		initializeLine,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
	}, append([]string{"--drain", "0", "--stop-timeout", "10m", "--log-level", "debug", "--"}, testserver.Slow(t, "-hang", "silent")...)...)
	pollUntil(t, hangBound, func() bool {
		return strings.Contains(r.stdout.String(), `"id":3`) && strings.Contains(r.stderr.String(), "the client's input ended")
	}, "the ping's answer and the input's end")
	if err := r.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code := r.wait(t, hangBound)
	stderr := r.stderr.String()
	if code != exitInterrupted || !strings.Contains(stderr, "with its end line; still unanswered, as on the tape: tools/call id 2 (line 3 of the input") {
		t.Errorf("exit %d, want %d saying the tape has its end line and naming the call unanswered; stderr:\n%s", code, exitInterrupted, stderr)
	}
	if answered, sent := answeredIDs(t, r.path); answered["2"] || !answered["3"] || len(sent) != 3 {
		t.Errorf("answered %v, sent %v; want the 3 requests on the tape, the tools/call unanswered", answered, sent)
	}
}
