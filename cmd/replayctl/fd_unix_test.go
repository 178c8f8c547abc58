//go:build unix

package main

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestTerminalChecksLeaveTheModeAlone: asking whether a stream is a
// terminal (colours, the progress line, the debugger's line editor) and
// how wide it is leaves a non-blocking stream non-blocking. They used to
// go through Fd, which puts a file Go holds in non-blocking mode (an
// inherited non-blocking pipe, os.Pipe's ends) back into blocking mode:
// the open file description every other holder shares changed, and the
// file left Go's poller (its Close no longer ended a read).
func TestTerminalChecksLeaveTheModeAlone(t *testing.T) {
	r, w, err := os.Pipe() // non-blocking, on Go's poller
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _, _ = r.Close(), w.Close() }()
	for _, f := range []*os.File{r, w} {
		if !nonBlocking(t, f) {
			t.Fatalf("%s: os.Pipe's end is blocking before the checks", f.Name())
		}
	}
	if isTerminal(w) || colorOn(w) {
		t.Errorf("a pipe taken for a terminal")
	}
	if got := outputWidth(w)(); got != defaultWidth {
		t.Errorf("a pipe's width %d, want the default %d", got, defaultWidth)
	}
	if lr := newLineReader(r, w); lr.terminal {
		t.Errorf("the debugger's input from a pipe taken for a terminal")
	}
	for _, f := range []*os.File{r, w} {
		if !nonBlocking(t, f) {
			t.Errorf("%s: blocking after the terminal checks, want non-blocking as before", f.Name())
		}
	}
}

// nonBlocking reports whether f's open file description is in
// non-blocking mode, asked without Fd.
func nonBlocking(t *testing.T, f *os.File) bool {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var flags int
	var ferr error
	if err := rc.Control(func(fd uintptr) { flags, ferr = unix.FcntlInt(fd, unix.F_GETFL, 0) }); err != nil || ferr != nil {
		t.Fatalf("%s: F_GETFL: %v %v", f.Name(), err, ferr)
	}
	return flags&unix.O_NONBLOCK != 0
}
