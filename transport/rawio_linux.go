package transport

// A lean connection's reads and writes as raw system calls through the
// network poller (issue 24): no runtime syscall entry, so no wake-up of
// the runtime's monitor thread (sysmon) per burst of work.

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// rawIO returns a reader and a writer of nc that make their read and
// write system calls without the runtime's syscall entry, when nc is a
// TCP connection of the net package; else nc itself for both.
//
// Why: a Go program whose processors all went idle — a load client
// waiting for its server's answers — has its monitor thread (sysmon) in
// a deep sleep, and the first system call entered the usual way
// (syscall.Syscall: entersyscall) after the network poller wakes the
// program wakes sysmon too, which then polls every 20 µs until the
// program is idle again. Against a server that answers every ≈ 300 µs
// (the go-sdk conformance server) that was two of the client's 3.2
// voluntary context switches per request (perf record -e
// context-switches: sysmon's futex sleep and nanosleep, 64% of them).
// A read or write of a non-blocking socket never blocks, so it needs
// no syscall entry: the runtime uses raw calls for such itself. When
// one would block (EAGAIN), RawConn.Read/Write park the goroutine on
// the poller as net.Conn does; deadlines and Close end the wait as
// they end a net.Conn's.
//
// A socket in blocking mode is read and written through nc: a raw call
// that blocks holds its thread's processor, unseen by the runtime, and
// the garbage collector's stop of the world waits for it — the whole
// program would stall until the peer writes. A dialer leaves one so
// when it set an option through the connection's File().Fd(), which
// clears O_NONBLOCK on the socket the two share.
//
// Under the race detector the calls are syscall.Read and Write, made
// in the same place (rawio_race_linux.go): they tell the detector what
// the socket carries, as net.Conn's do.
func rawIO(nc net.Conn) (io.Reader, io.Writer) {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return nc, nc
	}
	rc, err := tc.SyscallConn()
	if err != nil || !nonBlocking(rc) {
		return nc, nc
	}
	r := &rawConn{nc: nc, rc: rc}
	r.readFn, r.writeFn = r.read, r.write // made once: a method value per call would allocate
	r.writeNowFn = r.writeNow
	return rawReader{r}, rawWriter{r}
}

// nonBlocking reports whether rc's socket is in non-blocking mode.
func nonBlocking(rc syscall.RawConn) bool {
	var fl int
	var ferr error
	if err := rc.Control(func(fd uintptr) { fl, ferr = unix.FcntlInt(fd, unix.F_GETFL, 0) }); err != nil || ferr != nil {
		return false
	}
	return fl&unix.O_NONBLOCK != 0
}

// rawConn holds one call's buffer and result between Read or Write and
// the function the poller calls (readFn, writeFn). A lean connection
// reads on one goroutine at a time and writes on one at a time; a read
// and a write use their own fields.
type rawConn struct {
	nc net.Conn
	rc syscall.RawConn

	readFn, writeFn, writeNowFn func(fd uintptr) bool

	rp   []byte
	rn   int
	rerr error
	wp   []byte
	wn   int
	werr error
}

type rawReader struct{ c *rawConn }
type rawWriter struct{ c *rawConn }

// Read is nc.Read.
func (r rawReader) Read(p []byte) (int, error) {
	c := r.c
	if len(p) == 0 {
		// As net.Conn's: nil on an open connection, whatever its
		// deadline; net.ErrClosed once it is closed.
		if err := c.rc.Control(noControl); err != nil {
			return 0, c.opErr("read", err)
		}
		return 0, nil
	}
	c.rp, c.rn, c.rerr = p, 0, nil
	err := c.rc.Read(c.readFn)
	n, rerr := c.rn, c.rerr
	c.rp = nil
	switch {
	case err != nil:
		return 0, c.opErr("read", err)
	case rerr != nil:
		return 0, c.opErr("read", os.NewSyscallError("read", rerr))
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (c *rawConn) read(fd uintptr) bool {
	for {
		n, e := sysRead(fd, c.rp)
		switch e {
		case 0:
			c.rn = n
			return true
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false // RawConn.Read waits until fd is readable, and calls again
		}
		c.rerr = e
		return true
	}
}

// noControl is a function for RawConn.Control that does nothing: the
// call only finds out whether the connection is closed.
func noControl(uintptr) {}

// Write is nc.Write: all of p, or an error. An empty p is written as
// net.Conn writes it: net.ErrClosed once the connection is closed, the
// deadline's error once a deadline has passed (c.write returns at once).
func (w rawWriter) Write(p []byte) (int, error) {
	c := w.c
	c.wp, c.wn, c.werr = p, 0, nil
	err := c.rc.Write(c.writeFn)
	n, werr := c.wn, c.werr
	c.wp = nil
	switch {
	case err != nil:
		return n, c.opErr("write", err)
	case werr != nil:
		return n, c.opErr("write", os.NewSyscallError("write", werr))
	}
	return n, nil
}

func (c *rawConn) write(fd uintptr) bool {
	for c.wn < len(c.wp) {
		rest := c.wp[c.wn:]
		n, e := sysWrite(fd, rest)
		switch e {
		case 0:
			c.wn += n
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false // RawConn.Write waits until fd is writable, and calls again
		default:
			c.werr = e
			return true
		}
	}
	return true
}

// WriteNow writes what of p the socket takes without waiting for it to
// take more: fewer bytes than p with a nil error when the rest would
// wait. Errors are Write's (a passed deadline, a closed connection, a
// reset). It never parks its goroutine (see nowWriter).
func (w rawWriter) WriteNow(p []byte) (int, error) {
	c := w.c
	c.wp, c.wn, c.werr = p, 0, nil
	err := c.rc.Write(c.writeNowFn)
	n, werr := c.wn, c.werr
	c.wp = nil
	switch {
	case err != nil:
		return n, c.opErr("write", err)
	case werr != nil:
		return n, c.opErr("write", os.NewSyscallError("write", werr))
	}
	return n, nil
}

// writeNow is write, done after one try however much the socket took.
func (c *rawConn) writeNow(fd uintptr) bool {
	c.write(fd)
	return true
}

// opErr is err as net.Conn's Read and Write return it: a *net.OpError
// of op, whose cause is what errors.Is finds (io.EOF is returned bare,
// as net.Conn returns it).
func (c *rawConn) opErr(op string, err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) { // RawConn's: "raw-read"; its cause kept
		err = oe.Err
	}
	return &net.OpError{Op: op, Net: "tcp", Source: c.nc.LocalAddr(), Addr: c.nc.RemoteAddr(), Err: err}
}
