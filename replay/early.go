package replay

import (
	"context"
	"sync"

	"github.com/replayctl/replayctl/transport"
)

// StartTargetFirst has New start the first server process of a stdio
// target (Command) before it reads the tape, so that the server starts
// up while the tape is decoded (an Agent VCR cassette, a HAR file): the
// replay's first message then waits for whichever of the two ends last,
// not for one after the other. The first session's connection is that
// process; the others start theirs as before. Any other target is
// dialled by the sessions, as without it.
//
// A New that fails stops the process it started, and returns its own
// error (a bad tape's names the file and the line). A Replay made with
// it holds the process until Run ends or Close is called: call Close
// when it is not run.
func StartTargetFirst() Option {
	return func(s *settings) { s.startFirst = true }
}

// earlyDialed, when not nil, is called with the connection New started
// early (tests).
var earlyDialed func(transport.Conn)

// earlyDialer is a dialer whose first connection was dialled before the
// replay's sessions asked for one: its first Dial takes it, the others
// dial as d does.
type earlyDialer struct {
	d transport.Dialer

	mu    sync.Mutex // guards conn, err and taken
	conn  transport.Conn
	err   error
	taken bool // the first Dial, or close, took conn
}

// dialEarly dials d's first connection now. It returns when the
// connection is started (a stdio server's process is running; it has not
// necessarily read anything yet).
func dialEarly(d transport.Dialer) *earlyDialer {
	conn, err := d.Dial(context.Background(), "")
	if conn != nil && earlyDialed != nil {
		earlyDialed(conn)
	}
	return &earlyDialer{d: d, conn: conn, err: err}
}

// Dial returns the connection dialled early to its first caller (or the
// early dial's error), unless ctx is done; every other call dials anew.
func (e *earlyDialer) Dial(ctx context.Context, session string) (transport.Conn, error) {
	e.mu.Lock()
	if e.taken {
		e.mu.Unlock()
		return e.d.Dial(ctx, session)
	}
	e.taken = true
	conn, err := e.conn, e.err
	e.conn = nil
	e.mu.Unlock()
	if cerr := ctx.Err(); cerr != nil {
		if conn != nil {
			conn.Close()
		}
		return nil, cerr
	}
	return conn, err
}

// close stops the connection dialled early if no session took it. It is
// idempotent; a Dial after it dials anew.
func (e *earlyDialer) close() error {
	conn := e.untaken()
	if conn == nil {
		return nil
	}
	return conn.Close()
}

// kill is close for a replay that failed before it began (New's error):
// the server was sent nothing, so it is killed at once rather than given
// the graceful stop (stdin closed, then a wait, then SIGTERM) meant for a
// server that served a session.
func (e *earlyDialer) kill() error {
	conn := e.untaken()
	if k, ok := conn.(interface{ Kill() error }); ok {
		return k.Kill()
	}
	if conn == nil {
		return nil
	}
	return conn.Close()
}

// untaken takes the connection dialled early, if no session took it.
func (e *earlyDialer) untaken() transport.Conn {
	e.mu.Lock()
	defer e.mu.Unlock()
	conn := e.conn
	e.conn, e.taken = nil, true
	return conn
}
