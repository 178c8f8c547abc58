package transport

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// DefaultMaxConns is how many connections an HTTP listener holds at once
// (ConnLimiter) unless told otherwise; replayctl lowers it to what the
// process's file descriptor limit leaves room for (ConnRoom).
const DefaultMaxConns = 256

// MaxConns is the connection cap of a listener asked for n: n
// (DefaultMaxConns when 0 or less), lowered to what the file descriptor
// limit leaves room for (ConnRoom).
func MaxConns(n int) int {
	if n <= 0 {
		n = DefaultMaxConns
	}
	if room := ConnRoom(); room > 0 {
		n = min(n, room)
	}
	return n
}

// ConnLimiter caps the connections an http.Server holds at once. At the
// cap, a new connection is not kept waiting and does not lock clients
// out: it takes the place of the connection that has been waiting on
// its client longest — one that has not finished sending a request's
// headers or body, or is idle between requests — which is closed. Only
// when every connection is being answered (the server's turn: a request
// being handled, a stream open) is the new one refused, closed at once.
// Slow or stuck clients (slowloris) thus lose their connections to new
// ones, and a server answering as many clients as it may still answers
// them.
//
// Use Listen to wrap the server's listener and set its hooks; a
// BodyGuard in front of its handler tells the limiter which connections
// are still sending a body. A ConnLimiter is safe for concurrent use.
type ConnLimiter struct {
	max int
	log zerolog.Logger

	evicted atomic.Int64
	refused atomic.Int64

	mu    sync.Mutex // guards conns
	conns map[*trackedConn]struct{}
}

// NewConnLimiter returns a limiter of max connections (0 or less:
// DefaultMaxConns) that logs what it closes to log.
func NewConnLimiter(max int, log zerolog.Logger) *ConnLimiter {
	if max <= 0 {
		max = DefaultMaxConns
	}
	return &ConnLimiter{max: max, log: log, conns: map[*trackedConn]struct{}{}}
}

// Max is the cap.
func (l *ConnLimiter) Max() int { return l.max }

// Evicted is how many waiting connections were closed to make room for
// new ones; Refused how many new ones were closed because none was.
func (l *ConnLimiter) Evicted() int64 { return l.evicted.Load() }

// Refused: see Evicted.
func (l *ConnLimiter) Refused() int64 { return l.refused.Load() }

// Open is how many connections are held now.
func (l *ConnLimiter) Open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}

// Listen returns ln limited, and sets srv's ConnState and ConnContext
// hooks (calling the ones it had) so that the limiter knows each
// connection's state; srv must then Serve the returned listener.
func (l *ConnLimiter) Listen(srv *http.Server, ln net.Listener) net.Listener {
	prevState, prevCtx := srv.ConnState, srv.ConnContext
	srv.ConnState = func(c net.Conn, s http.ConnState) {
		if tc, ok := c.(*trackedConn); ok {
			switch s {
			case http.StateActive:
				tc.setState(connServing)
			case http.StateIdle:
				tc.setState(connWaiting)
			case http.StateHijacked, http.StateClosed:
				l.drop(tc)
			}
		}
		if prevState != nil {
			prevState(c, s)
		}
	}
	srv.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		if prevCtx != nil {
			ctx = prevCtx(ctx, c)
		}
		if tc, ok := c.(*trackedConn); ok {
			ctx = context.WithValue(ctx, trackedKey{}, tc)
		}
		return ctx
	}
	return &limitedListener{Listener: ln, l: l}
}

type limitedListener struct {
	net.Listener
	l *ConnLimiter
}

// Accept returns the next connection the limiter keeps (see
// ConnLimiter); connections it refuses are closed, not returned.
func (ll *limitedListener) Accept() (net.Conn, error) {
	for {
		c, err := ll.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if tc := ll.l.admit(c); tc != nil {
			return tc, nil
		}
	}
}

// admit keeps c, closing the connection waiting longest if the limiter
// is full; nil when it is full of connections being answered (c is
// closed).
func (l *ConnLimiter) admit(c net.Conn) *trackedConn {
	tc := &trackedConn{Conn: c, l: l}
	tc.state.Store(int32(connWaiting))
	tc.since.Store(time.Now().UnixNano())
	l.mu.Lock()
	var victim *trackedConn
	if len(l.conns) >= l.max {
		victim = l.longestWaiting()
		if victim == nil {
			l.mu.Unlock()
			_ = c.Close()
			if l.refused.Add(1) == 1 {
				l.log.Warn().Int("max", l.max).Msg("a connection refused: every one of the --max-conns connections is being answered (further refusals are counted)")
			}
			return nil
		}
		delete(l.conns, victim)
	}
	l.conns[tc] = struct{}{}
	l.mu.Unlock()
	if victim != nil {
		_ = victim.Conn.Close()
		if l.evicted.Add(1) == 1 {
			l.log.Warn().Int("max", l.max).Msg("--max-conns reached: the connection waiting on its client longest was closed to make room (further ones are counted)")
		}
	}
	return tc
}

// longestWaiting is the connection waiting on its client (headers, a
// body, idle) for the longest, nil when none is. l.mu is held.
func (l *ConnLimiter) longestWaiting() *trackedConn {
	var oldest *trackedConn
	var at int64
	for tc := range l.conns {
		if connState(tc.state.Load()) == connServing {
			continue
		}
		if s := tc.since.Load(); oldest == nil || s < at {
			oldest, at = tc, s
		}
	}
	return oldest
}

func (l *ConnLimiter) drop(tc *trackedConn) {
	l.mu.Lock()
	delete(l.conns, tc)
	l.mu.Unlock()
}

// connState is what a connection is doing, for the limiter.
type connState int32

const (
	connWaiting connState = iota // for a request's headers, or idle
	connBody                     // reading a request's body
	connServing                  // the request is being answered
)

type trackedKey struct{}

// trackedConn is a connection a ConnLimiter holds.
type trackedConn struct {
	net.Conn
	l     *ConnLimiter
	state atomic.Int32 // a connState
	since atomic.Int64 // when it entered it, in Unix nanoseconds
}

// trackedOf is the connection of a request's context, nil when no
// ConnLimiter tracks it.
func trackedOf(ctx context.Context) *trackedConn {
	tc, _ := ctx.Value(trackedKey{}).(*trackedConn)
	return tc
}

// setState notes what the connection is doing; nil does nothing.
func (tc *trackedConn) setState(s connState) {
	if tc == nil {
		return
	}
	tc.since.Store(time.Now().UnixNano())
	tc.state.Store(int32(s))
}

// Close closes the connection and forgets it.
func (tc *trackedConn) Close() error {
	tc.l.drop(tc)
	return tc.Conn.Close()
}
