//go:build linux || darwin

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/replayctl/replayctl/internal/testserver"
)

// ptySession is `replayctl debug` on a pseudo-terminal: what a user at a
// terminal sees, and the keys they type.
type ptySession struct {
	t      *testing.T
	cmd    *exec.Cmd
	tty    io.ReadWriteCloser
	chunks chan []byte
	seen   bytes.Buffer // all output so far
	from   int          // where the next expect looks from
}

func startPTY(t *testing.T, args ...string) *ptySession {
	t.Helper()
	return startPTYEnv(t, nil, args...)
}

// startPTYEnv is startPTY with env added to the environment.
func startPTYEnv(t *testing.T, env []string, args ...string) *ptySession {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"debug"}, args...)...)
	cmd.Dir = "../.."
	cmd.Env = append(append(os.Environ(), "TERM=xterm"), env...) // a terminal the line editor knows, as a user's is
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 100})
	if err != nil {
		t.Fatalf("start on a pty: %v", err)
	}
	s := &ptySession{t: t, cmd: cmd, tty: tty, chunks: make(chan []byte, 64)}
	go func() {
		defer close(s.chunks)
		for {
			b := make([]byte, 4096)
			n, err := tty.Read(b)
			if n > 0 {
				s.chunks <- b[:n]
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
		tty.Close()
		for range s.chunks {
		}
	})
	return s
}

// ptyWait bounds expect's wait for output that comes (a prompt, a step's
// line): a bound on a wait for a condition, not a check of how fast debug
// answers, so it is generous for a loaded machine. The one expect whose
// bound matters (Ctrl-C's "interrupted" before the server's answer at
// 20 s) keeps its own.
const ptyWait = 30 * time.Second

// expect waits, within d, for want in what was printed since the last
// expect, and returns the time it took.
func (s *ptySession) expect(want string, d time.Duration) time.Duration {
	s.t.Helper()
	start := time.Now()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		if i := strings.Index(s.seen.String()[s.from:], want); i >= 0 {
			s.from += i + len(want)
			return time.Since(start)
		}
		select {
		case b, ok := <-s.chunks:
			if !ok {
				s.t.Fatalf("output ended before %q; it was:\n%s", want, s.seen.String())
			}
			s.seen.Write(b)
		case <-deadline.C:
			s.t.Fatalf("no %q within %s; output:\n%s", want, d, s.seen.String())
		}
	}
}

func (s *ptySession) send(keys string) {
	s.t.Helper()
	if _, err := io.WriteString(s.tty, keys); err != nil {
		s.t.Fatalf("type %q: %v", keys, err)
	}
}

// ctrlD types Ctrl-D at the prompt, which ends the session: it waits for
// the summary and for debug to exit.
func (s *ptySession) ctrlD() {
	s.t.Helper()
	s.end("\x04", "Ctrl-D")
}

// end types keys (named what) that end the session, and waits for the
// summary and for debug to exit.
func (s *ptySession) end(keys, what string) {
	s.t.Helper()
	s.send(keys)
	s.expect("summary:", ptyWait)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		s.t.Fatalf("debug did not end after %s:\n%s", what, s.seen.String())
	}
}

// TestNoColorDebug: with NO_COLOR=1, debug on a terminal prints no
// colour (its prompt, its steps, its summary). It types Ctrl-D at the
// prompt to end the session, rather than leaving the end of input to
// script(1), which may give it while the line editor switches the
// terminal's mode, where it is lost and debug waits on.
func TestNoColorDebug(t *testing.T) {
	s := startPTYEnv(t, []string{"NO_COLOR=1"}, "examples/quickstart.jsonl")
	s.expect(prompt, ptyWait)
	s.send("step\r")
	s.expect(prompt, ptyWait)
	s.ctrlD()
	for b := range s.chunks { // the rest of what it printed
		s.seen.Write(b)
	}
	if out := s.seen.String(); strings.Contains(out, "\x1b[3") || strings.Contains(out, "\x1b[1m") {
		t.Errorf("debug coloured its output with NO_COLOR=1:\n%q", out)
	}
}

// TestDebugTerminalCtrlC: on a terminal, Ctrl-C interrupts a step that
// waits for an answer (the server takes 20s) and brings the prompt back;
// at the prompt Ctrl-C drops the line typed and does not end the session;
// Ctrl-D does.
func TestDebugTerminalCtrlC(t *testing.T) {
	arrivals := filepath.Join(t.TempDir(), "arrivals")
	args := append([]string{"examples/quickstart.jsonl", "--on-error", "continue", "--"}, testserver.Slow(t, "-delay", "20s", "-arrivals", arrivals)...)
	s := startPTY(t, args...)
	s.expect(prompt, ptyWait)
	s.send("break tools/call\r")
	s.expect("breakpoint 1", ptyWait)
	s.expect(prompt, ptyWait)
	s.send("continue\r")
	s.expect("⏸ breakpoint 1", ptyWait)
	s.expect(prompt, ptyWait)
	s.send("step\r")
	// The step waits for the answer once the server has the call.
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for giveUp := time.Now().Add(10 * time.Second); ; <-tick.C {
		if b, _ := os.ReadFile(arrivals); strings.Contains(string(b), "tools/call") {
			break
		}
		if time.Now().After(giveUp) {
			t.Fatalf("the server never got the tools/call; output:\n%s", s.seen.String())
		}
	}
	s.send("\x03")
	s.expect("interrupted", 15*time.Second) // the server answers after 20s
	s.expect(prompt, ptyWait)

	// At the prompt: Ctrl-C drops "bogus" and the session goes on.
	s.send("bogus\x03status\r")
	s.expect("before seq", ptyWait)
	if strings.Contains(s.seen.String(), "unknown command") {
		t.Errorf("the line Ctrl-C dropped was run:\n%s", s.seen.String())
	}
	s.expect(prompt, ptyWait)
	s.ctrlD()
}

// TestDebugTerminalLineEditing: on a terminal Tab completes a command's
// name ("st" → step, the first of step and status) and the completed line
// runs; Up recalls the previous line.
func TestDebugTerminalLineEditing(t *testing.T) {
	s := startPTY(t, append([]string{"examples/quickstart.jsonl", "--on-error", "continue", "--"}, testserver.Slow(t)...)...)
	s.expect(prompt, ptyWait)
	s.send("st\t")
	s.expect(prompt+"step", ptyWait) // the line redrawn, completed
	s.send("\r")
	s.expect("→ seq 3", ptyWait) // the step ran
	s.expect(prompt, ptyWait)
	s.send("status\r")
	s.expect("before seq", ptyWait)
	s.expect(prompt, ptyWait)
	s.send("\x1b[A") // Up: status again
	s.expect(prompt+"status", ptyWait)
	s.send("\r")
	s.expect("before seq", ptyWait)
	s.expect(prompt, ptyWait)
	if got := strings.Count(s.seen.String(), "unknown command"); got != 0 {
		t.Errorf("got %d unknown commands, want 0:\n%s", got, s.seen.String())
	}
	s.end("quit\r", "quit")
}
