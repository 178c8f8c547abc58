package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// tcpPair is a connected pair of loopback TCP connections: ours (read
// and written through rawIO in the tests) and the peer's.
func tcpPair(t *testing.T) (ours, peer *net.TCPConn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			c = nil
		}
		accepted <- c
	}()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	p := <-accepted
	if p == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { c.Close(); p.Close() })
	return c.(*net.TCPConn), p.(*net.TCPConn)
}

// TestRawIOBytes: what is written through rawIO arrives whole and in
// order, and what the peer writes is read whole up to io.EOF, through a
// socket buffer much smaller than the data (the writer and the reader
// wait on the poller, EAGAIN, many times).
func TestRawIOBytes(t *testing.T) {
	ours, peer := tcpPair(t)
	r, w := rawIO(ours)
	if r == io.Reader(ours) || w == io.Writer(ours) {
		t.Fatal("rawIO of a TCP connection returned the connection itself")
	}
	_ = ours.SetWriteBuffer(16 << 10)
	_ = peer.SetReadBuffer(16 << 10)
	data := make([]byte, 4<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(peer, int64(len(data))))
		got <- b
	}()
	if n, err := w.Write(data); n != len(data) || err != nil {
		t.Fatalf("Write: got %d, %v, want %d, nil", n, err, len(data))
	}
	if b := <-got; !bytes.Equal(b, data) {
		t.Fatalf("the peer read %d bytes, not the %d written (or not in order)", len(b), len(data))
	}

	go func() {
		_, _ = peer.Write(data)
		_ = peer.CloseWrite()
	}()
	b, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(b, data) {
		t.Fatalf("ReadAll: got %d bytes, %v, want the %d written and io.EOF", len(b), err, len(data))
	}
	if n, err := r.Read(make([]byte, 10)); n != 0 || err != io.EOF {
		t.Fatalf("Read after the end: got %d, %v, want 0, io.EOF", n, err)
	}
}

// TestRawIOErrors: a deadline, a reset by the peer and Close end a read
// through rawIO with the errors net.Conn's Read returns — the same
// text, and the causes errors.Is finds (closedUnanswered and leanErr
// rely on them).
func TestRawIOErrors(t *testing.T) {
	cases := []struct {
		name string
		// set up ours and peer so that the next read fails
		prep func(ours, peer *net.TCPConn)
		want error
	}{
		{"deadline", func(ours, _ *net.TCPConn) { _ = ours.SetReadDeadline(aLongTimeAgo) }, os.ErrDeadlineExceeded},
		{"reset", func(_, peer *net.TCPConn) { _ = peer.SetLinger(0); _ = peer.Close() }, syscall.ECONNRESET},
		{"closed", func(ours, _ *net.TCPConn) { _ = ours.Close() }, net.ErrClosed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			read := func(raw bool) error {
				ours, peer := tcpPair(t)
				tc.prep(ours, peer)
				var rd io.Reader = ours
				if raw {
					rd, _ = rawIO(ours)
				}
				deadline := time.Now().Add(time.Minute) // a bound on a broken test, not a timing
				for time.Now().Before(deadline) {
					_, err := rd.Read(make([]byte, 64))
					if err != nil {
						return err
					}
				}
				return errors.New("no error")
			}
			got, plain := read(true), read(false)
			if !errors.Is(got, tc.want) {
				t.Errorf("got %v, want an error that is %v", got, tc.want)
			}
			var oe *net.OpError
			if !errors.As(got, &oe) || oe.Op != "read" {
				t.Errorf("got %#v, want a *net.OpError of read", got)
			}
			// The addresses differ from pair to pair: compare the rest.
			if g, p := errTail(got), errTail(plain); g != p {
				t.Errorf("got %q, want net.Conn's %q", g, p)
			}
		})
	}
}

// errTail is an error's text after its addresses.
func errTail(err error) string {
	var oe *net.OpError
	if errors.As(err, &oe) {
		return oe.Op + " " + oe.Net + ": " + oe.Err.Error()
	}
	return err.Error()
}

// TestRawIOWriteAfterReset: a write to a connection the peer reset fails
// as net.Conn's does (EPIPE or ECONNRESET: closedUnanswered's causes).
func TestRawIOWriteAfterReset(t *testing.T) {
	ours, peer := tcpPair(t)
	_, w := rawIO(ours)
	_ = peer.SetLinger(0)
	_ = peer.Close()
	var err error
	deadline := time.Now().Add(time.Minute) // a bound on a broken test, not a timing
	for err == nil && time.Now().Before(deadline) {
		_, err = w.Write([]byte("POST / HTTP/1.1\r\n\r\n"))
	}
	if !errors.Is(err, syscall.EPIPE) && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("got %v, want EPIPE or ECONNRESET", err)
	}
	if !closedUnanswered(&noAnswerError{err}) {
		t.Errorf("closedUnanswered(%v) = false, want true: the lean client would not try again", err)
	}
}

// TestRawIOOther: a connection that is not the net package's TCP
// connection is read and written as it is.
func TestRawIOOther(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	r, w := rawIO(a)
	if r != io.Reader(a) || w != io.Writer(a) {
		t.Fatalf("rawIO(net.Pipe) = %T, %T, want the pipe itself", r, w)
	}
}

// TestRawIOBlockingFD: a TCP connection whose socket a custom dialer
// left in blocking mode (File().Fd() clears O_NONBLOCK on the socket
// the connection shares with the file) must not be read with a raw
// system call: one that blocks holds its thread's processor, and the
// garbage collector's stop of the world waits for it — the whole
// program stalls until the peer writes. The child process
// (rawIOBlockingChild) reads such a connection on one goroutine and,
// once that goroutine is in read(2), collects garbage before the peer
// writes; the parent bounds the child, which on a stall never ends.
func TestRawIOBlockingFD(t *testing.T) {
	if os.Getenv("RAWIO_BLOCKING_CHILD") == "1" {
		rawIOBlockingChild(t)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a bound on a stalled child, not a timing
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestRawIOBlockingFD$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "RAWIO_BLOCKING_CHILD=1")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the child stalled (a raw read on a blocking socket held the runtime: the GC could not stop the world):\n%s", out)
	}
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func rawIOBlockingChild(t *testing.T) {
	ours, peer := tcpPair(t)
	f, err := ours.File()
	if err != nil {
		t.Fatal(err)
	}
	_ = f.Fd() // sets the shared socket blocking, as a dialer setting an option this way does
	f.Close()
	var fd int
	rc, _ := ours.SyscallConn()
	_ = rc.Control(func(s uintptr) { fd = int(s) })
	if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err != nil || fl&unix.O_NONBLOCK != 0 {
		t.Fatalf("the socket is not blocking (flags %#x, %v): the test tests nothing", fl, err)
	}
	r, _ := rawIO(ours)
	read := make(chan error, 1)
	go func() {
		_, err := io.ReadFull(r, make([]byte, 5))
		read <- err
	}()
	for !inRead(t, fd) {
		runtime.Gosched()
	}
	runtime.GC()
	if _, err := peer.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	if err := <-read; err != nil {
		t.Fatalf("read: %v", err)
	}
}

// inRead reports whether a thread of this process is in read(2) of fd
// (/proc/self/task/*/syscall: the call's number, then its arguments).
func inRead(t *testing.T, fd int) bool {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%d %#x ", unix.SYS_READ, fd)
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/syscall")
		if err == nil && strings.HasPrefix(string(b), want) {
			return true
		}
	}
	return false
}

// TestRawIORaceHappensBefore: under the race detector, what a goroutine
// wrote before its write to a socket happens before what the reader of
// the other end reads after its read, as with net.Conn (syscall's Read
// and Write tell the detector so): an in-process server's handler and
// the test that replays against it share memory that way. Run with
// -race: without the detector there is nothing to see.
func TestRawIORaceHappensBefore(t *testing.T) {
	ours, peer := tcpPair(t)
	r, w := rawIO(ours)
	var theirs, mine int // written before a write, read after the read at the other end

	go func() {
		theirs = 1
		_, _ = peer.Write([]byte("x"))
	}()
	if _, err := io.ReadFull(r, make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	if theirs != 1 {
		t.Fatalf("read %d, want 1", theirs)
	}

	got := make(chan int, 1)
	go func() {
		_, _ = io.ReadFull(peer, make([]byte, 1))
		got <- mine
	}()
	mine = 2
	if _, err := w.Write([]byte("y")); err != nil {
		t.Fatal(err)
	}
	if g := <-got; g != 2 {
		t.Fatalf("read %d, want 2", g)
	}
}

// TestRawIOZeroLength: a zero-length Read or Write through rawIO returns
// what net.Conn's returns for it — 0 and nil on an open connection,
// net.ErrClosed once the connection is closed, and for a write the
// deadline's error once a deadline has passed — with the same text.
func TestRawIOZeroLength(t *testing.T) {
	cases := []struct {
		name string
		prep func(ours *net.TCPConn) // the state ours is in for the call
		// what net.Conn returns (nil: no error)
		wantRead, wantWrite error
	}{
		{"open", func(*net.TCPConn) {}, nil, nil},
		{"closed", func(ours *net.TCPConn) { _ = ours.Close() }, net.ErrClosed, net.ErrClosed},
		{"deadline", func(ours *net.TCPConn) { _ = ours.SetDeadline(aLongTimeAgo) }, nil, os.ErrDeadlineExceeded},
	}
	for _, tc := range cases {
		for _, op := range []string{"read", "write"} {
			t.Run(tc.name+"/"+op, func(t *testing.T) {
				want := tc.wantRead
				if op == "write" {
					want = tc.wantWrite
				}
				call := func(raw bool) (int, error) {
					ours, _ := tcpPair(t)
					var r io.Reader = ours
					var w io.Writer = ours
					if raw {
						r, w = rawIO(ours)
						if r == io.Reader(ours) {
							t.Fatal("rawIO of a TCP connection returned the connection itself")
						}
					}
					tc.prep(ours)
					if op == "read" {
						return r.Read(nil)
					}
					return w.Write([]byte{})
				}
				n, got := call(true)
				pn, plain := call(false)
				if n != 0 || pn != 0 {
					t.Errorf("got n %d (net.Conn's %d), want 0", n, pn)
				}
				if (want == nil) != (plain == nil) || (want != nil && !errors.Is(plain, want)) {
					t.Fatalf("net.Conn's %s: got %v, want %v (the test's premise)", op, plain, want)
				}
				if want == nil {
					if got != nil {
						t.Errorf("got %v, want nil as net.Conn's", got)
					}
					return
				}
				if !errors.Is(got, want) {
					t.Errorf("got %v, want an error that is %v", got, want)
				}
				if got != nil {
					if g, p := errTail(got), errTail(plain); g != p {
						t.Errorf("got %q, want net.Conn's %q", g, p)
					}
				}
			})
		}
	}
}
