package main

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRecordCtrlCWithTheClientThere: Ctrl-C ends a stdio recording whose
// client has not closed its input (stdin a pipe) as soon as the server
// has exited, and says what the recording holds: the tape with its end
// line. Before, the client's input was wrapped in a way that hid the
// pipe from the recorder, whose stop then waited 2 × --stop-timeout + 1s
// for a read of it to end (here 20 minutes; the test's bound is 2).
func TestRecordCtrlCWithTheClientThere(t *testing.T) {
	const answer = `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"t","version":"0"}}}`
	path := t.TempDir() + "/t.jsonl"
	p := startProc(t, binary, "record", "-o", path, "--stop-timeout", "10m", "--", "sh", "-c", "read l; echo '"+answer+"'; cat >/dev/null")
	const bound = 2 * time.Minute // a hang's bound; every wait is for a condition
	if _, err := p.stdin.Write([]byte(initializeLine + "\n")); err != nil {
		t.Fatal(err)
	}
	p.waitOutput(p.stdout, `"name":"t"`, bound) // recorded, then relayed
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code := p.wait(bound) // the client's input is still open
	stderr := p.stderr.String()
	if code != exitInterrupted || !strings.Contains(stderr, "2 messages recorded to "+path+", with its end line") {
		t.Errorf("exit %d, want %d saying the 2 messages are recorded with the end line\nstderr:\n%s", code, exitInterrupted, stderr)
	}
	if tp := readTapeOnDisk(path, true); tp.messages != 2 || !tp.ended {
		t.Errorf("the tape holds %+v; want its 2 messages and its end line", tp)
	}
}
