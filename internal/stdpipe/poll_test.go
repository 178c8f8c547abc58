//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package stdpipe

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestEndsTerminal: Ends reads a terminal (blocking, as stdin) through a
// reader that passes its lines and that Close interrupts mid-read; the
// terminal itself stays open, and in blocking mode.
func TestEndsTerminal(t *testing.T) {
	term, ptmx := terminal(t)
	if term == nil {
		t.Skip("no pseudo-terminal")
	}
	in, _ := Ends(term, io.Discard)
	rc, ok := in.(io.ReadCloser)
	if !ok || in == io.Reader(term) || !Interruptible(in) {
		t.Fatalf("got %T (interruptible %v), want a reader Close interrupts", in, Interruptible(in))
	}
	if _, err := io.WriteString(ptmx, "hello\n"); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(rc).ReadString('\n')
	if err != nil || line != "hello\n" {
		t.Fatalf("got %q, %v; want the line written", line, err)
	}
	readUntilClosed(t, rc)
	if _, err := term.Stat(); err != nil {
		t.Errorf("the terminal was closed with the reader: %v", err)
	}
	checkBlocking(t, "the terminal", term)
}

// TestEndsShareNoFlags: Ends' copies of a pipe's ends and of a socket's
// pass data, and their Close ends a read or a write in progress, yet the
// caller's descriptors (a shell's or a client's, which share their open
// file descriptions) stay in blocking mode all along and stay open; the
// copies are close-on-exec, so that a server started meanwhile does not
// hold the client's pipes.
func TestEndsShareNoFlags(t *testing.T) {
	// polledEnds are the copies Ends falls back to where it cannot open
	// a pipe anew (see reopen).
	polledEnds := func(r, w *os.File) (io.Reader, io.Writer) {
		in, ok := newPolled(r, false)
		out, ok2 := newPolled(w, true)
		if !ok || !ok2 {
			t.Fatal("newPolled refused a pipe")
		}
		return in, out
	}
	for _, tc := range []struct {
		name string
		pair func(t *testing.T) (r, w *os.File)
		ends func(r, w *os.File) (io.Reader, io.Writer)
	}{
		{"pipe", pipePair, endsOf},
		{"pipe, polled", pipePair, polledEnds},
		{"socket", socketPair, endsOf},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, w := tc.pair(t) // this process's stdin and stdout, as another holds them
			in, out := tc.ends(r, w)
			if !Interruptible(in) {
				t.Errorf("the reader %T is not Interruptible", in)
			}
			checkBlocking(t, "the caller's read end", r)
			checkBlocking(t, "the caller's write end", w)
			checkCloseOnExec(t, "the reader", in)
			checkCloseOnExec(t, "the writer", out)

			// Two lines through the copies (w's pipe is r's), the
			// second longer than a pipe takes in one write.
			long := bytes.Repeat([]byte("x"), 3*pipeBuf+7)
			want := append([]byte("first\n"), append(long, '\n')...)
			go func() { _, _ = out.Write(want) }()
			got := make([]byte, len(want))
			if _, err := io.ReadFull(in, got); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("read %d bytes (%v), want the %d written", len(got), err, len(want))
			}

			readUntilClosed(t, in.(io.Closer))
			writeUntilClosed(t, out.(io.WriteCloser))
			checkBlocking(t, "the caller's read end after Close", r)
			checkBlocking(t, "the caller's write end after Close", w)
			for _, f := range []*os.File{r, w} {
				if _, err := f.Stat(); err != nil {
					t.Errorf("the caller's %s was closed with its copy: %v", f.Name(), err)
				}
			}
		})
	}
}

// endsOf is Ends of two files.
func endsOf(r, w *os.File) (io.Reader, io.Writer) { return Ends(r, w) }

// pipePair is a pipe, both ends in blocking mode as a process inherits
// them.
func pipePair(t *testing.T) (r, w *os.File) {
	t.Helper()
	var fds [2]int
	if err := unix.Pipe(fds[:]); err != nil {
		t.Fatal(err)
	}
	return blockingFile(t, fds[0], "pipe r"), blockingFile(t, fds[1], "pipe w")
}

// socketPair is a connected pair of Unix stream sockets, in blocking mode
// (what Node.js's child_process gives a child as its stdin and stdout).
func socketPair(t *testing.T) (r, w *os.File) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	return blockingFile(t, fds[0], "socket r"), blockingFile(t, fds[1], "socket w")
}

// blockingFile is fd as an *os.File that stays in blocking mode (the
// poller does not take it), closed when t ends.
func blockingFile(t *testing.T, fd int, name string) *os.File {
	t.Helper()
	unix.CloseOnExec(fd)
	f := os.NewFile(uintptr(fd), name)
	t.Cleanup(func() { f.Close() })
	return f
}

// checkBlocking fails t when f's open file description is in
// non-blocking mode.
func checkBlocking(t *testing.T, what string, f *os.File) {
	t.Helper()
	fl, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	if err != nil {
		t.Fatalf("%s: F_GETFL: %v", what, err)
	}
	if fl&unix.O_NONBLOCK != 0 {
		t.Errorf("%s is in non-blocking mode; want it left as it was (blocking)", what)
	}
}

// checkCloseOnExec fails t when x, one of Ends' copies, would be
// inherited by a process started now.
func checkCloseOnExec(t *testing.T, what string, x any) {
	t.Helper()
	var fd int
	switch x := x.(type) {
	case *os.File:
		fd = int(x.Fd())
	case *polled:
		fd = x.fd
	default:
		t.Fatalf("%s is a %T, want a copy of the descriptor", what, x)
	}
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	if err != nil {
		t.Fatalf("%s: F_GETFD: %v", what, err)
	}
	if fl&unix.FD_CLOEXEC == 0 {
		t.Errorf("%s (descriptor %d) is not close-on-exec: a server started now inherits it", what, fd)
	}
}

// readUntilClosed starts a read of r that has nothing to read, closes r
// once the read waits (in Go's poller or in poll(2)), and fails t unless
// the read then ends with os.ErrClosed.
func readUntilClosed(t *testing.T, r io.Closer) {
	t.Helper()
	done := make(chan error, 1)
	go readOnce(r.(io.Reader), done)
	waitBlocked(t, "stdpipe.readOnce")
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrClosed) {
			t.Errorf("a read in progress ended with %v at Close, want os.ErrClosed", err)
		}
	case <-time.After(time.Minute): // a hang's bound
		t.Fatal("a read in progress did not end at Close")
	}
}

func readOnce(r io.Reader, done chan<- error) {
	_, err := r.Read(make([]byte, 10))
	done <- err
}

// writeUntilClosed starts a write to w larger than its pipe or socket
// holds, with nobody reading, closes w once the write waits, and fails t
// unless the write then ends with os.ErrClosed.
func writeUntilClosed(t *testing.T, w io.WriteCloser) {
	t.Helper()
	done := make(chan error, 1)
	go writeOnce(w, done)
	waitBlocked(t, "stdpipe.writeOnce")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrClosed) {
			t.Errorf("a write in progress ended with %v at Close, want os.ErrClosed", err)
		}
	case <-time.After(time.Minute): // a hang's bound
		t.Fatal("a write in progress did not end at Close")
	}
}

func writeOnce(w io.Writer, done chan<- error) {
	_, err := w.Write(make([]byte, 16<<20))
	done <- err
}

// waitBlocked returns once a goroutine whose stack holds fn waits for
// its descriptor: in Go's poller ("IO wait") or in a system call (poll).
func waitBlocked(t *testing.T, fn string) {
	t.Helper()
	waitParked(t, fn, "IO wait", "syscall")
}

// TestEndsKeepGoNonBlocking: an os.Pipe's ends (which Go's poller serves,
// in non-blocking mode) handed to Ends are left as Go made them: still
// non-blocking, their deadlines working, and Close ending a read in
// progress (os.File.Fd would have put them back into blocking mode).
func TestEndsKeepGoNonBlocking(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	in, out := Ends(r, w)
	defer in.(io.Closer).Close()
	defer out.(io.Closer).Close()
	for _, f := range []*os.File{r, w} {
		var fl int
		if err := control(f, func(fd int) (err error) {
			fl, err = unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if fl&unix.O_NONBLOCK == 0 {
			t.Fatalf("the caller's %s was put into blocking mode; want it left non-blocking, as Go made it", f.Name())
		}
	}
	if err := r.SetReadDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Fatalf("the caller's read end takes no deadline any more: %v", err)
	}
	if _, err := r.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a read past the deadline ended with %v, want os.ErrDeadlineExceeded", err)
	}
	if err := r.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	readUntilClosed(t, r)
}
