//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package stdpipe

import (
	"errors"
	"io"
	"os"
	"sync"
	"syscall"

	"github.com/mattn/go-isatty"
	"golang.org/x/sys/unix"
)

// readEnd is Ends' reader of f: a pipe or a socket through a copy Go's
// poller serves or, failing that, through polled; a terminal through
// polled; anything else (a regular file, /dev/null) through a plain copy,
// so that closing it leaves f open. f itself when it cannot be copied.
func readEnd(f *os.File) io.Reader {
	if r, ok := pollerEnd(f, unix.O_RDONLY); ok {
		return r
	}
	if p, ok := newPolled(f, false); ok {
		return p
	}
	return plainCopy(f)
}

// writeEnd is Ends' writer of f: a pipe or a socket as readEnd's; a
// terminal, a regular file and the rest through a plain copy (a write to
// them does not wait on a reader).
func writeEnd(f *os.File) io.Writer {
	if w, ok := pollerEnd(f, unix.O_WRONLY); ok {
		return w
	}
	if p, ok := newPolled(f, true); ok {
		return p
	}
	return plainCopy(f)
}

// pollerEnd returns a copy of f, a pipe or a socket, which Go's poller
// serves (so that its Close ends a read or write in progress) without
// making f's open file description non-blocking: when it is already,
// a new descriptor of it; else, where the system can (see reopen), a new
// description of the same pipe, opened with access (O_RDONLY, O_WRONLY)
// in non-blocking mode. ok is false when it cannot, or when f is not a
// pipe or a socket.
func pollerEnd(f *os.File, access int) (_ *os.File, ok bool) {
	st, err := f.Stat()
	if err != nil || st.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return nil, false
	}
	var flags int
	if err := control(f, func(fd int) error {
		flags, err = unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
		return err
	}); err != nil {
		return nil, false
	}
	if flags&unix.O_NONBLOCK != 0 {
		// Nothing changes for the other holders: os.NewFile sees the
		// mode and hands the descriptor to the poller.
		fd, err := dupCloexec(f)
		if err != nil {
			return nil, false
		}
		return os.NewFile(uintptr(fd), f.Name()), true
	}
	if st.Mode()&os.ModeNamedPipe == 0 {
		return nil, false // a socket has no other description to open
	}
	return reopen(f, access)
}

// plainCopy returns a new descriptor of f (close-on-exec), or f when it
// cannot be made.
func plainCopy(f *os.File) *os.File {
	fd, err := dupCloexec(f)
	if err != nil {
		return f
	}
	return os.NewFile(uintptr(fd), f.Name())
}

// dupCloexec returns a new descriptor of f's, close-on-exec from the
// start: a server started meanwhile does not inherit it (it would hold
// the client's pipes open after this process exits).
func dupCloexec(f *os.File) (dup int, err error) {
	err = control(f, func(fd int) error {
		dup, err = unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
		return err
	})
	return dup, err
}

// control calls fn with f's descriptor and returns fn's error, or why it
// could not be called (f is closed). It goes through f.SyscallConn, never
// f.Fd: Fd puts a file Go made non-blocking (os.Pipe's ends, a
// net.Conn's File) back into blocking mode, and the caller's file would
// then lose its deadlines and the Close that ends its reads.
func control(f *os.File, fn func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var fnErr error
	if err := rc.Control(func(fd uintptr) { fnErr = fn(int(fd)) }); err != nil {
		return err
	}
	return fnErr
}

// polled reads or writes a copy of a pipe, a socket or a terminal left in
// blocking mode (the shell or client that shares the open file
// description wants that), and waits for it with poll(2) beside a pipe of
// its own, so that Close ends a Read or Write in progress. A socket is
// read and written with MSG_DONTWAIT, which never blocks; a pipe or a
// terminal is read once poll says it has input, and a pipe written at
// most pipeBuf bytes at a time once poll says it has room, which POSIX
// says a write never waits for.
//
// A Read or Write waiting holds an OS thread in poll(2) (a socket's read
// for as long as the client is quiet). That is kept on purpose: Go's
// poller serves only descriptors in non-blocking mode, a socket has no
// other open file description to make non-blocking (reopen works for
// pipes only), and setting the mode on the shared one breaks the client;
// an epoll loop of its own would hold a thread as well. It is one thread
// per process, and the runtime keeps idle threads anyway: replayctl
// record with a socket as stdin had 7–8 threads, with a pipe 6–7
// (BENCHMARKS.md, "record's threads with a socket as stdin").
type polled struct {
	fd     int
	wake   [2]int // the read end, polled beside fd; the write end, for Close
	name   string
	socket bool

	closeOnce sync.Once
	mu        sync.Mutex // held by a Read or Write, and by Close to free the descriptors
	closed    bool       // guarded by mu
}

// pipeBuf is the most a write to a pipe with room may be sure not to wait
// for (POSIX's least PIPE_BUF).
const pipeBuf = 512

// newPolled returns a polled copy of f for reading, or for writing when
// write is set: f must be a pipe, a socket, or (for reading) a terminal.
// ok is false when it is none of them, or its descriptor cannot be
// copied.
func newPolled(f *os.File, write bool) (_ *polled, ok bool) {
	st, err := f.Stat()
	if err != nil {
		return nil, false
	}
	mode := st.Mode()
	tty := false
	if !write && mode&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		_ = control(f, func(fd int) error { tty = isatty.IsTerminal(uintptr(fd)); return nil })
	}
	switch {
	case mode&(os.ModeNamedPipe|os.ModeSocket) != 0:
	case tty:
	default:
		return nil, false
	}
	fd, err := dupCloexec(f)
	if err != nil {
		return nil, false
	}
	p := &polled{fd: fd, name: f.Name(), socket: mode&os.ModeSocket != 0}
	// Under ForkLock, as os.Pipe where pipe2 is missing: a process
	// started meanwhile does not inherit the pipe.
	syscall.ForkLock.RLock()
	err = unix.Pipe(p.wake[:])
	if err == nil {
		unix.CloseOnExec(p.wake[0])
		unix.CloseOnExec(p.wake[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		unix.Close(fd)
		return nil, false
	}
	return p, true
}

// wait returns once fd is ready for events (unix.POLLIN, unix.POLLOUT),
// or has hung up or failed (the read or write then says how), with
// os.ErrClosed once Close was called. The caller holds mu.
func (p *polled) wait(events int16) error {
	for {
		fds := []unix.PollFd{{Fd: int32(p.fd), Events: events}, {Fd: int32(p.wake[0]), Events: unix.POLLIN}}
		_, err := unix.Poll(fds, -1)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return &os.PathError{Op: "poll", Path: p.name, Err: err}
		case fds[1].Revents != 0:
			return os.ErrClosed
		case fds[0].Revents != 0:
			return nil
		}
	}
}

// Read reads what fd has, waiting for it until it has some, or returns
// os.ErrClosed once Close was called, or io.EOF at the end of the input.
func (p *polled) Read(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ready := p.socket // a socket is tried first: MSG_DONTWAIT says when it has nothing
	for !p.closed {
		if !ready {
			if err := p.wait(unix.POLLIN); err != nil {
				return 0, err
			}
		}
		var n int
		var err error
		if p.socket {
			n, _, err = unix.Recvfrom(p.fd, b, unix.MSG_DONTWAIT)
		} else {
			n, err = unix.Read(p.fd, b)
		}
		switch {
		case errors.Is(err, unix.EINTR):
			ready = true
			continue
		case errors.Is(err, unix.EAGAIN):
			ready = false
			continue
		case err != nil:
			return 0, &os.PathError{Op: "read", Path: p.name, Err: err}
		case n == 0 && len(b) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
	return 0, os.ErrClosed
}

// Write writes all of b, waiting for room as long as it must, or returns
// what it wrote with os.ErrClosed once Close was called, or with the
// error of the write (EPIPE when the reader is gone).
func (p *polled) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	done := 0
	ready := p.socket
	for done < len(b) {
		if p.closed {
			return done, os.ErrClosed
		}
		if !ready {
			if err := p.wait(unix.POLLOUT); err != nil {
				return done, err
			}
		}
		var n int
		var err error
		if p.socket {
			n, err = unix.SendmsgN(p.fd, b[done:], nil, nil, unix.MSG_DONTWAIT)
		} else {
			n, err = unix.Write(p.fd, b[done:min(len(b), done+pipeBuf)])
		}
		done += max(n, 0)
		switch {
		case errors.Is(err, unix.EINTR):
			ready = true
		case errors.Is(err, unix.EAGAIN):
			ready = false
		case err != nil:
			return done, &os.PathError{Op: "write", Path: p.name, Err: err}
		default:
			ready = p.socket
		}
	}
	return done, nil
}

// Close ends a Read or Write in progress, waits for it to return, and
// frees the copy's descriptors (not those of the file it copied).
func (p *polled) Close() error {
	p.closeOnce.Do(func() {
		_, _ = unix.Write(p.wake[1], []byte{0})
		p.mu.Lock()
		defer p.mu.Unlock()
		p.closed = true
		unix.Close(p.fd)
		unix.Close(p.wake[0])
		unix.Close(p.wake[1])
	})
	return nil
}

func (*polled) closeInterruptsRead() {}
