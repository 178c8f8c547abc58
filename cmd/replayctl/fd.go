package main

import (
	"io"
	"os"

	"github.com/mattn/go-isatty"
)

// withFd calls fn with f's descriptor and reports whether it could (not
// when f is closed). It goes through f.SyscallConn, never f.Fd: Fd puts
// a file Go holds in non-blocking mode (a stream inherited so, such as a
// pipe from a Node.js parent or a terminal another program made
// non-blocking) back into blocking mode, which changes the open file
// description every other holder shares, takes the file off Go's poller
// (its Close no longer ends a read) and sends stdpipe.Ends, later, down
// its path for blocking streams.
func withFd(f *os.File, fn func(fd uintptr)) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	return rc.Control(fn) == nil
}

// terminalFile is w as a file when it is one and a terminal.
func terminalFile(w any) (*os.File, bool) {
	f, ok := w.(*os.File)
	if !ok {
		return nil, false
	}
	var tty bool
	return f, withFd(f, func(fd uintptr) { tty = isatty.IsTerminal(fd) }) && tty
}

func isTerminal(w io.Writer) bool {
	_, ok := terminalFile(w)
	return ok
}
