package main

import (
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testbuf"
)

// quickTape is the tape these tests replay against the built-in mock.
const quickTape = "examples/quickstart.jsonl"

// proc is a replayctl process the test drives: its stdin stays open until
// closed, its output is collected.
type proc struct {
	t              *testing.T
	cmd            *exec.Cmd
	stdin          io.WriteCloser
	stdout, stderr *testbuf.Buffer
	done           chan struct{} // closed when it has exited
	code           int
}

// startProc starts the built binary from the repository root with args,
// killed if it is still running when the test ends.
func startProc(t *testing.T, argv ...string) *proc {
	t.Helper()
	p := &proc{t: t, stdout: &testbuf.Buffer{}, stderr: &testbuf.Buffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.Dir = "../.."
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := p.cmd.Wait()
		p.code = p.cmd.ProcessState.ExitCode()
		if err != nil && p.code < 0 {
			p.code = -1 // killed by a signal
		}
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// waitOutput waits until buf holds want, or fails.
func (p *proc) waitOutput(buf *testbuf.Buffer, want string, limit time.Duration) {
	p.t.Helper()
	deadline := time.Now().Add(limit)
	for !strings.Contains(buf.String(), want) {
		select {
		case <-p.done:
			p.t.Fatalf("exited (%d) before saying %q\nstdout:\n%s\nstderr:\n%s", p.code, want, p.stdout, p.stderr)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("did not say %q within %s\nstdout:\n%s\nstderr:\n%s", want, limit, p.stdout, p.stderr)
		}
	}
}

// wait returns the exit status, failing if the process runs past limit.
func (p *proc) wait(limit time.Duration) int {
	p.t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(limit):
		p.t.Fatalf("still running after %s\nstdout:\n%s\nstderr:\n%s", limit, p.stdout, p.stderr)
		return 0
	}
}
