package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// serveFlags are replayctl serve's flags.
type serveFlags struct {
	listen     string
	strategy   string
	timing     string
	chaos      string
	seed       int64
	strict     bool
	report     string
	origins    []string // --allow-origin
	hosts      []string // --allow-host
	volatile   []string
	repeat     bool
	maxMessage int
	maxLine    int
	idle       time.Duration

	path string // TAPE
	modeFlags
	stopTimeout time.Duration
	serveLimits
	// redaction builds the Redactor of --redact-* (record and new).
	redaction func() (*tape.Redactor, error)
}

// shutdownTimeout bounds how long serve waits, once told to stop, for
// the HTTP requests in progress to end.
const shutdownTimeout = 5 * time.Second

// serveTape serves sessions to clients: over stdio (stdin, stdout) without
// f.listen, else over HTTP on f.listen, the URL printed on stderr. It
// returns nil when the client ends the stdio session (or has it hung up
// on by chaos) or when ctx is done (SIGINT, SIGTERM), once the sessions
// are closed; an error when it cannot listen (a *listenError, exit 2) or
// a client sent a message over the limit.
func serveTape(ctx context.Context, sessions transport.Sessions, f serveFlags, stdin io.Reader, stdout, stderr io.Writer, log zerolog.Logger) error {
	opts := []transport.ServerOption{
		transport.ServerMaxMessage(f.maxMessage),
		transport.ServerLogger(log.With().Str("stage", "listen").Logger()),
		transport.AllowOrigins(f.origins...),
		transport.AllowHosts(f.hosts...),
		transport.IdleTimeout(f.idle),
		transport.BodyReadTimeout(f.bodyTimeout),
		transport.BodyBudget(int64(f.bodyBudget)),
		transport.MaxBatch(f.maxBatch),
	}
	if f.listen == "" {
		return serveStdio(ctx, sessions, stdin, stdout, opts)
	}
	ln, err := listenTCP("--listen", f.listen)
	if err != nil {
		return &listenError{err}
	}
	mux := transport.NewMux(sessions, opts...)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ln = f.limitConns(srv, ln, log)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(stderr, "serving on %s/mcp (Streamable HTTP; legacy HTTP+SSE: %s/sse); Ctrl-C stops\n", base, base)
	if w := beyondLoopbackWarning(ln.Addr()); w != "" {
		fmt.Fprintln(stderr, w)
	}

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-served:
	}
	// Sessions first: their GET streams end, so the shutdown does not
	// wait for clients that would hold them open.
	_ = mux.Close()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		_ = srv.Close()
	}
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("serve HTTP on %s: %w", ln.Addr(), serveErr)
	}
	return nil
}

// listenError is serve's failure to listen: nothing was served, so there
// is no summary and no report.
type listenError struct{ err error }

func (e *listenError) Error() string { return e.err.Error() }
func (e *listenError) Unwrap() error { return e.err }

// serveStdio serves one client on stdin and stdout. When they are pipes
// it serves copies the poller can interrupt (see pollable), so that a
// signal stops it at once.
func serveStdio(ctx context.Context, sessions transport.Sessions, stdin io.Reader, stdout io.Writer, opts []transport.ServerOption) error {
	if f, ok := stdin.(*os.File); ok {
		stdin = pollable(f)
	}
	if f, ok := stdout.(*os.File); ok {
		stdout = pollable(f)
	}
	defer ignoreSIGPIPE()()
	err := transport.ServeStdio(ctx, stdin, stdout, sessions, opts...)
	var tooLarge *transport.TooLargeError
	switch {
	case err == nil, errors.Is(err, transport.ErrHangUp), ctx.Err() != nil:
		return nil
	case errors.As(err, &tooLarge):
		return usageError("the client sent a message longer than --max-message (%d bytes); raise it if such messages are right", tooLarge.Limit)
	}
	return err
}

// beyondLoopbackWarning is the warning for a listener bound to addr that
// other machines can reach (every interface, or an address that is not
// loopback), or "" for a loopback one.
func beyondLoopbackWarning(addr net.Addr) string {
	if transport.IsLoopbackAddr(addr.String()) {
		return ""
	}
	return fmt.Sprintf("warning: listening on %s, beyond loopback: other machines can reach it. "+
		"Requests are answered only for the Host names localhost, 127.0.0.1, [::1], the address they reached and --allow-host NAME, "+
		"and browser pages only from that address or --allow-origin ORIGIN; listen on 127.0.0.1 to keep it to this machine", addr)
}
