// Package rxstamp reads TCP connections with the kernel's receive time of
// what is read: on Linux, SO_TIMESTAMPNS, the time the packet reached the
// socket's network stack (over loopback, the sender's write). A test
// server's arrival log stamped in its handler holds the server's own
// wake-up and scheduling as well as the client's schedule; the receive
// time holds only what was on the wire, so that a client's pacing is
// measured where its requests reached the server and not where the
// server got round to them (issue 24's tail, BENCHMARKS.md "Twelfth
// round: the tail at the server's socket"). Elsewhere than Linux there is no stamp (Supported is false
// and Take reports none).
package rxstamp

import (
	"context"
	"io"
	"net"
	"sync/atomic"
	"time"
)

// Listen wraps l so that each accepted TCP connection is a *Conn that
// stamps its reads. A connection whose stamps cannot be turned on is
// returned as it is (Take on it reports none). The listener asks for
// stamps too, so that what it accepts inherits the setting; that the
// kernel stamps at all, from a server's first request on, is On's job.
func Listen(l net.Listener) net.Listener {
	if tl, ok := l.(*net.TCPListener); ok {
		if raw, err := tl.SyscallConn(); err == nil {
			_ = raw.Control(func(fd uintptr) { _ = Enable(int(fd)) })
		}
	}
	return listener{l}
}

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c, nil
	}
	sc, err := newConn(tc)
	if err != nil {
		return c, nil
	}
	return sc, nil
}

// Conn is a TCP connection whose reads keep the kernel's receive time of
// the first read since the last Take. (A read that takes several
// segments at once gets the stamp of the last of them: for a request
// written in one piece, as replayctl, vegeta, GoReplay and tailbench
// write theirs, that is its only one.)
type Conn struct {
	*net.TCPConn
	first atomic.Int64 // unix ns of the first bytes since the last Take; 0: none yet
	rd    reader       // the platform's stamped read
}

// Read reads as net.TCPConn does (deadlines included), keeping the
// receive time of the first bytes read since the last Take.
func (c *Conn) Read(p []byte) (int, error) {
	n, rx, err := c.rd.read(p)
	if n > 0 && rx != 0 {
		c.first.CompareAndSwap(0, rx)
	}
	if err != nil && err != io.EOF {
		err = &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
	}
	return n, err
}

// Take returns the receive time of the first bytes read since the last
// Take, and starts over. Over HTTP/1.1, where a client sends its next
// request on a connection only after the answer to the one before,
// that is when the request being handled reached the server.
func (c *Conn) Take() (time.Time, bool) {
	ns := c.first.Swap(0)
	if ns == 0 {
		return time.Time{}, false
	}
	return time.Unix(0, ns), true
}

type connKey struct{}

// WithConn returns ctx holding c if it is a *Conn: an http.Server's
// ConnContext, so that a handler finds its connection with FromContext.
func WithConn(ctx context.Context, c net.Conn) context.Context {
	if sc, ok := c.(*Conn); ok {
		return context.WithValue(ctx, connKey{}, sc)
	}
	return ctx
}

// FromContext returns the *Conn WithConn put in ctx, or nil.
func FromContext(ctx context.Context) *Conn {
	c, _ := ctx.Value(connKey{}).(*Conn)
	return c
}

// Take returns the receive time of the request being handled on ctx's
// connection (see Conn.Take); false when there is none: not a stamped
// connection, or a platform without stamps.
func Take(ctx context.Context) (time.Time, bool) {
	if c := FromContext(ctx); c != nil {
		return c.Take()
	}
	return time.Time{}, false
}
