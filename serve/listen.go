package serve

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/replayctl/replayctl/internal/stdpipe"
	"github.com/replayctl/replayctl/transport"
)

// listen serves sessions to clients: over stdio without a listener, else
// over HTTP on it. It returns nil when the client ends the stdio session
// (or has it hung up on by chaos) or when ctx is done, once the sessions
// are closed; a *listenError when it cannot listen; the error of a
// client that sent a message over the limit.
func (sv *Server) listen(ctx context.Context, sessions transport.Sessions) error {
	opts := append([]transport.ServerOption{
		transport.ServerLogger(sv.s.log.With().Str("stage", "listen").Logger()),
	}, sv.s.server...)
	if sv.s.listen == nil {
		return serveStdio(ctx, sessions, sv.s.stdin, sv.s.stdout, opts)
	}
	ln, err := sv.s.listen()
	if err != nil {
		return &listenError{err}
	}
	mux := transport.NewMux(sessions, opts...)
	serving := []transport.ListenOption{transport.LimitConns(sv.s.maxConns, sv.s.log),
		// Sessions first: their GET streams end, so the shutdown does
		// not wait for clients that would hold them open.
		transport.BeforeShutdown(func() { _ = mux.Close() })}
	for _, f := range sv.s.onListening {
		serving = append(serving, transport.OnServing(f))
	}
	if err := transport.ServeUntil(ctx, ln, mux, serving...); err != nil {
		return fmt.Errorf("serve HTTP on %s: %w", ln.Addr(), err)
	}
	return nil
}

// listenError is a failure to listen: nothing was served, so there is
// no Result.
type listenError struct{ err error }

func (e *listenError) Error() string { return e.err.Error() }
func (e *listenError) Unwrap() error { return e.err }

// serveStdio serves one client on stdin and stdout. When they are pipes,
// sockets or a terminal it serves copies whose Close interrupts a read or
// write in progress (see stdpipe.Ends), so that a cancelled ctx stops it
// at once.
func serveStdio(ctx context.Context, sessions transport.Sessions, stdin io.Reader, stdout io.Writer, opts []transport.ServerOption) error {
	stdin, stdout = stdpipe.Ends(stdin, stdout)
	defer stdpipe.IgnoreSIGPIPE()()
	err := transport.ServeStdio(ctx, stdin, stdout, sessions, opts...)
	switch {
	case err == nil, errors.Is(err, transport.ErrHangUp), ctx.Err() != nil:
		return nil
	}
	return err
}
