//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/replayctl/replayctl/internal/testbuf"
)

// TestRecordLeavesTheClientsEndsAsTheyWere: a stdio recording's stdin and
// stdout, as a shell or a client hands them over (pipes; a socket pair, as
// Node.js's child_process makes; a terminal), are in blocking mode when
// record has exited, as they were: their open file descriptions are
// shared with whoever handed them over, and a shell's next command
// reading a non-blocking stdin fails with EAGAIN ("Resource temporarily
// unavailable"). The server inherits none of record's copies of them (it
// would hold the client's pipes open after record exits: a client then
// waits for the end of record's stdout until a child the server left
// behind exits). Linux only: the server lists its descriptors in /proc.
func TestRecordLeavesTheClientsEndsAsTheyWere(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	for _, tc := range []struct {
		name string
		// ends returns record's stdin and stdout, the client's end of
		// its stdin, and what ends the client's input.
		ends func(t *testing.T) (in, out, client *os.File, eof func())
	}{
		{"pipes", pipeEnds},
		{"socket pair", socketEnds},
		{"terminal", terminalEnds},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, out, client, eof := tc.ends(t)
			// Raw descriptors, taken once: os.File.Fd puts a file the
			// poller serves back in blocking mode, which would hide
			// what record left.
			inFD, outFD := int(in.Fd()), int(out.Fd())
			list := filepath.Join(t.TempDir(), "fds")
			const answer = `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"t","version":"0"}}}`
			server := "read l; echo '" + answer + "'; ls -l /proc/$$/fd >" + list + " 2>&1; cat >/dev/null"
			cmd := exec.Command(binary, "record", "-o", filepath.Join(t.TempDir(), "t.jsonl"), "--", "sh", "-c", server)
			cmd.Dir = "../.."
			stderr := &testbuf.Buffer{}
			cmd.Stdin, cmd.Stdout, cmd.Stderr = in, out, stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{}) // closed once record has exited
			go func() {
				_ = cmd.Wait()
				close(done)
			}()
			t.Cleanup(func() {
				_ = cmd.Process.Kill()
				<-done
			})
			if _, err := client.Write([]byte(initializeLine + "\n")); err != nil {
				t.Fatal(err)
			}
			eof()
			select {
			case <-done:
			case <-time.After(2 * time.Minute): // a hang's bound
				t.Fatalf("record still running after 2 minutes; stderr:\n%s", stderr)
			}
			if code := cmd.ProcessState.ExitCode(); code != 0 || !strings.Contains(stderr.String(), "recorded 2 messages") {
				t.Errorf("exit %d, want 0 having recorded 2 messages; stderr:\n%s", code, stderr)
			}
			for _, e := range []struct {
				what string
				fd   int
			}{{"stdin", inFD}, {"stdout", outFD}} {
				fl, err := unix.FcntlInt(uintptr(e.fd), unix.F_GETFL, 0)
				if err != nil {
					t.Fatal(err)
				}
				if fl&unix.O_NONBLOCK != 0 {
					t.Errorf("record's %s is in non-blocking mode after it exited; want it as it was (blocking)", e.what)
				}
			}
			fds, err := os.ReadFile(list)
			if err != nil {
				t.Fatalf("the server listed no descriptors: %v; stderr:\n%s", err, stderr)
			}
			for _, e := range []struct {
				what string
				f    *os.File
			}{{"stdin", in}, {"stdout", out}} {
				if name := fdName(t, e.f); strings.Contains(string(fds), name) {
					t.Errorf("the server holds record's %s (%s):\n%s", e.what, name, fds)
				}
			}
		})
	}
}

// pipeEnds are two pipes, as a shell's pipeline makes them: record's
// stdin's read end and stdout's write end, the client's write end of
// stdin; eof closes it.
func pipeEnds(t *testing.T) (in, out, client *os.File, eof func()) {
	t.Helper()
	in, client = blockingPair(t, unix.Pipe2)
	_, out = blockingPair(t, unix.Pipe2) // nobody reads it: what record writes fits
	return in, out, client, func() { client.Close() }
}

// socketEnds is a socket pair for stdin and stdout both, as Node.js's
// child_process makes it (stdio "pipe"); eof shuts the client's writing
// down.
func socketEnds(t *testing.T) (in, out, client *os.File, eof func()) {
	t.Helper()
	in, client = blockingPair(t, func(fds []int, _ int) error {
		p, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		copy(fds, p[:])
		return err
	})
	return in, in, client, func() { _ = unix.Shutdown(int(client.Fd()), unix.SHUT_WR) }
}

// terminalEnds is a pseudo-terminal, stdin and stdout both, as a user's
// shell hands it over; eof types Ctrl-D.
func terminalEnds(t *testing.T) (in, out, client *os.File, eof func()) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	if err := syscall.SetNonblock(int(tty.Fd()), false); err != nil {
		t.Fatal(err)
	}
	return tty, tty, ptmx, func() { _, _ = ptmx.Write([]byte{4}) }
}

// blockingPair makes a pair of descriptors with mk (as unix.Pipe2, with
// O_CLOEXEC) and returns them as files in blocking mode, closed when t
// ends.
func blockingPair(t *testing.T, mk func(fds []int, flags int) error) (a, b *os.File) {
	t.Helper()
	fds := make([]int, 2)
	if err := mk(fds, unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	a, b = os.NewFile(uintptr(fds[0]), "a"), os.NewFile(uintptr(fds[1]), "b")
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// fdName is what /proc says f is (pipe:[N], socket:[N], /dev/pts/N).
func fdName(t *testing.T, f *os.File) string {
	t.Helper()
	name, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	return name
}
