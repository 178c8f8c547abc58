package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/replayctl/replayctl/record"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// recordHTTPFlags are the flags of `replayctl record`'s HTTP mode:
// --listen ADDR --upstream URL. The record command adds them with add and
// runs the mode when given() is true.
type recordHTTPFlags struct {
	listen     string
	upstream   string
	maxMessage byteSize
}

// add declares the HTTP mode's flags on cmd.
func (f *recordHTTPFlags) add(cmd *cobra.Command) {
	f.maxMessage = byteSize(transport.DefaultMaxMessage)
	fl := cmd.Flags()
	fl.StringVar(&f.listen, "listen", "", "HTTP mode: the address the recording proxy listens on, e.g. 127.0.0.1:8080 (port 0: any free port); needs --upstream")
	fl.StringVar(&f.upstream, "upstream", "", "HTTP mode: the MCP server's URL (Streamable HTTP endpoint, or a legacy HTTP+SSE /sse endpoint); needs --listen")
	fl.Var(&f.maxMessage, "max-message", "HTTP mode: longest message recorded, e.g. 64MiB; a longer one still reaches its peer whole, and is noted instead of recorded")
}

// given says whether the HTTP mode was asked for (either flag).
func (f *recordHTTPFlags) given() bool { return f.listen != "" || f.upstream != "" }

// check refuses an HTTP mode that is half asked for, or mixed with a
// server command (the stdio mode's).
func (f *recordHTTPFlags) check(out string, serverArgs []string) error {
	switch {
	case f.listen == "" && f.upstream != "":
		return usageError("record: --upstream %s needs --listen ADDR: the address clients connect to, e.g. --listen 127.0.0.1:8080", f.upstream)
	case f.listen != "" && f.upstream == "":
		return usageError("record: --listen %s needs --upstream URL: the MCP server to record, e.g. --upstream http://127.0.0.1:3000/mcp", f.listen)
	case len(serverArgs) > 0:
		return usageError("record: --listen/--upstream record an HTTP server; a server command (%s) records a stdio one: give one or the other", serverArgs[0])
	case out == "":
		return usageError("record: -o TAPE is required: where to write the tape")
	}
	u, err := url.Parse(f.upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageError("record: --upstream %q is not an http:// or https:// URL", f.upstream)
	}
	return nil
}

// recordHTTP runs the HTTP recording proxy until ctx is done (SIGINT,
// SIGTERM): then it ends every stream in flight, writes the tape's end
// line and returns nil. It prints the URL clients should use on stderr.
func (a *app) recordHTTP(ctx context.Context, out string, f recordHTTPFlags, stderr io.Writer) error {
	if err := f.check(out, nil); err != nil {
		return err
	}
	file, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return usageError("record: cannot write the tape: %v", err)
	}
	p, err := record.NewHTTP(f.upstream, func(h tape.Header) (*tape.Writer, error) { return tape.NewWriter(file, h) },
		record.WithLogger(a.log), record.WithMaxMessage(int(f.maxMessage)))
	if err != nil {
		file.Close()
		return usageError("%v", err)
	}
	l, err := net.Listen("tcp", f.listen)
	if err != nil {
		file.Close()
		return usageError("record: --listen %s: %v", f.listen, err)
	}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second, ErrorLog: nil}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	fmt.Fprintf(stderr, "recording %s → %s (tape %s; Ctrl-C to stop)\n", listenURL(l.Addr(), p.Upstream()), f.upstream, out)

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-served:
	}
	p.Stop() // open streams end, so that Shutdown need not wait for them
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		_ = srv.Close()
	}
	closeErr := p.Close()
	if err := file.Sync(); err != nil && closeErr == nil {
		closeErr = err
	}
	if err := file.Close(); err != nil && closeErr == nil {
		closeErr = err
	}
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("record: serve on %s: %w", l.Addr(), serveErr)
	}
	if closeErr != nil {
		return fmt.Errorf("record: close the tape %s: %w", out, closeErr)
	}
	fmt.Fprintf(stderr, "recorded %d messages in %d sessions to %s\n", p.Messages(), p.Sessions(), out)
	if n := p.Dropped(); n > 0 {
		fmt.Fprintf(stderr, "%d messages were relayed but not recorded (over --max-message, not JSON-RPC, or an unknown Content-Encoding): see the warnings above\n", n)
	}
	return nil
}

// listenURL is the URL clients use: the proxy's address with the
// upstream's path.
func listenURL(addr net.Addr, upstream *url.URL) string {
	u := url.URL{Scheme: "http", Host: addr.String(), Path: upstream.Path, RawQuery: upstream.RawQuery}
	return u.String()
}
