//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package stdpipe

import (
	"errors"
	"io"
	"os"
	"sync"

	"github.com/mattn/go-isatty"
	"golang.org/x/sys/unix"
)

// terminalReader reads a terminal f as it is, its descriptor left in
// blocking mode (the shell that shares it wants that), but waits for
// input with poll(2) beside a pipe of its own, so that Close ends a Read
// in progress. ok is false when f is not a terminal or its descriptor
// cannot be copied.
func terminalReader(f *os.File) (r io.ReadCloser, ok bool) {
	fd := int(f.Fd())
	if !isatty.IsTerminal(uintptr(fd)) {
		return nil, false
	}
	dup, err := unix.Dup(fd)
	if err != nil {
		return nil, false
	}
	var wake [2]int
	if err := unix.Pipe(wake[:]); err != nil {
		unix.Close(dup)
		return nil, false
	}
	unix.CloseOnExec(dup)
	unix.CloseOnExec(wake[0])
	unix.CloseOnExec(wake[1])
	return &pollReader{fd: dup, wake: wake}, true
}

// pollReader: see terminalReader.
type pollReader struct {
	fd   int
	wake [2]int // the read end, polled beside fd; the write end, for Close

	closeOnce sync.Once
	mu        sync.Mutex // held by a Read, and by Close to free the descriptors
	closed    bool       // guarded by mu
}

// Read waits until the terminal has input (a line, in canonical mode)
// and reads it, or returns os.ErrClosed once Close was called.
func (r *pollReader) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for !r.closed {
		fds := []unix.PollFd{{Fd: int32(r.fd), Events: unix.POLLIN}, {Fd: int32(r.wake[0]), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, -1); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return 0, &os.PathError{Op: "poll", Path: "terminal", Err: err}
		}
		if fds[1].Revents != 0 {
			break
		}
		n, err := unix.Read(r.fd, p)
		switch {
		case errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN):
			continue
		case err != nil:
			return 0, &os.PathError{Op: "read", Path: "terminal", Err: err}
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
	return 0, os.ErrClosed
}

// Close ends a Read in progress, waits for it to return, and frees the
// reader's descriptors (not the terminal's own).
func (r *pollReader) Close() error {
	r.closeOnce.Do(func() {
		_, _ = unix.Write(r.wake[1], []byte{0})
		r.mu.Lock()
		defer r.mu.Unlock()
		r.closed = true
		unix.Close(r.fd)
		unix.Close(r.wake[0])
		unix.Close(r.wake[1])
	})
	return nil
}

func (*pollReader) closeInterruptsRead() {}
