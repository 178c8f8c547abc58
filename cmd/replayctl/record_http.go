package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/replayctl/replayctl/record"
	"github.com/replayctl/replayctl/tape"
)

// recordHTTPHelp is the HTTP mode's part of `replayctl record --help`.
const recordHTTPHelp = `
HTTP (--listen ADDR --upstream URL): a recording reverse proxy listens on ADDR
and relays every request to the MCP server at URL byte for byte: Streamable
HTTP in every revision (session-based up to 2025-11-25, stateless 2026-07-28)
and the legacy 2024-11-05 HTTP+SSE transport. Point clients at the URL it
prints on stderr (ADDR with the upstream's path; port 0 picks a free port).
Any number of clients at once, each client session a session of its own on
the tape (s1, s2, …). Every message is appended as it passes, with its HTTP
status, the headers that matter and its SSE id, event and retry; credential
headers (Authorization, Cookie, Set-Cookie, X-Api-Key, …) never are. A message
over --max-message is relayed whole but not recorded (counted in the summary).
A request body must arrive within --body-timeout (10s; else 408), the bodies
held at once stay within --body-budget (64MiB; else 503 with Retry-After),
and at --max-conns connections the one waiting longest on its client is
closed for a new one.
Only the MCP endpoint is relayed (the upstream URL's path, and the message
endpoint a legacy SSE stream announces): any other path is 404. A request
whose Host is not one of the proxy's names (localhost, 127.0.0.1, [::1], the
address it reached, --allow-host) or whose browser Origin is not allowed
(loopback origins, --allow-origin) is refused with 403 and never reaches the
upstream (DNS rebinding protection); the upstream is sent its own Host.
The proxy runs until Ctrl-C or SIGTERM, its normal end: the streams in flight
are closed, the tape gets its end line, and it exits 0. --session and
--stop-timeout are for the stdio mode.`

// recordHTTPFlags are the flags of `replayctl record`'s HTTP mode:
// --listen ADDR --upstream URL. -o, --force, --tag, --quiet and
// --max-message are the shared recordFlags.
type recordHTTPFlags struct {
	listen   string
	upstream string
	listenLimits
	hosts   []string // --allow-host
	origins []string // --allow-origin
}

// add declares the HTTP mode's flags.
func (f *recordHTTPFlags) add(fl *pflag.FlagSet) {
	fl.StringVar(&f.listen, "listen", "", "HTTP mode: the address the recording proxy listens on, e.g. 127.0.0.1:8080 (port 0: any free port); with --upstream")
	fl.StringVar(&f.upstream, "upstream", "", "HTTP mode: the MCP server's URL (a Streamable HTTP endpoint, or a legacy HTTP+SSE /sse endpoint); with --listen")
	f.listenLimits.add(fl)
	addAllowFlags(fl, &f.hosts, &f.origins)
}

// addAllowFlags declares --allow-host and --allow-origin, the names and
// browser origins an HTTP listener answers besides its own (record's
// proxy, serve).
func addAllowFlags(fl *pflag.FlagSet, hosts, origins *[]string) {
	fl.StringSliceVar(hosts, "allow-host", nil, "over HTTP, a Host name clients may use besides localhost, 127.0.0.1, [::1] and the address reached, e.g. mcp.lan or mcp.lan:8080 (repeatable; * for any)")
	fl.StringSliceVar(origins, "allow-origin", nil, "over HTTP, a browser Origin allowed besides loopback ones (and the address reached), e.g. http://app.test:3000 (repeatable; * for any)")
}

// given says whether the HTTP mode was asked for (either flag).
func (f *recordHTTPFlags) given() bool { return f.listen != "" || f.upstream != "" }

// checkStdio refuses, in the stdio mode, the flags of the HTTP mode's
// listener.
func (f *recordHTTPFlags) checkStdio(cmd *cobra.Command) error {
	for _, name := range []string{"allow-host", "allow-origin"} {
		if cmd.Flags().Changed(name) {
			return usageError("record: --%s is for the HTTP mode's listener (--listen ADDR --upstream URL); a stdio recording has none", name)
		}
	}
	return nil
}

// check refuses an HTTP mode that is half asked for, mixed with a server
// command (the stdio mode's) or with a stdio-only flag.
func (f *recordHTTPFlags) check(cmd *cobra.Command, serverArgs []string) error {
	switch {
	case f.listen == "":
		return usageError("record: --upstream %s needs --listen ADDR: the address clients connect to, e.g. --listen 127.0.0.1:8080", f.upstream)
	case f.upstream == "":
		return usageError("record: --listen %s needs --upstream URL: the MCP server to record, e.g. --upstream http://127.0.0.1:3000/mcp", f.listen)
	case len(serverArgs) > 0:
		return usageError("record: --listen/--upstream record an HTTP server; a server command (%s) records a stdio one: give one or the other", serverArgs[0])
	case cmd.Flags().Changed("session"):
		return usageError("record: --session names the one session of a stdio recording; over HTTP each client session is named s1, s2, … in order")
	}
	u, err := url.Parse(f.upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageError("record: --upstream %q is not an http:// or https:// URL", f.upstream)
	}
	return f.listenLimits.check()
}

// recordHTTP runs the HTTP recording proxy until ctx is done (SIGINT,
// SIGTERM): then it ends every stream in flight, writes the tape's end
// line and returns nil. It prints the URL clients should use on stderr.
// The tape file is created at once, so that a path that cannot be written
// fails now rather than at the first message; its header line is written
// with the first message (it says the protocol version learned by then).
func (a *app) recordHTTP(ctx context.Context, f *recordFlags, tags map[string]string, hf recordHTTPFlags) error {
	// With --force an existing tape is emptied only when the new one is
	// written: a recording refused before it starts leaves it as it was.
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	_, statErr := os.Stat(f.out)
	existed := statErr == nil
	if f.force {
		flags = os.O_WRONLY | os.O_CREATE
	}
	file, err := os.OpenFile(f.out, flags, 0o644)
	if err != nil {
		return usageError("record: cannot write the tape: %v", err)
	}
	abandon := func() {
		file.Close()
		if !existed {
			_ = os.Remove(f.out)
		}
	}
	p, err := record.NewHTTP(hf.upstream, func(h tape.Header) (*tape.Writer, error) {
		h.Tags = tags
		if f.redactor != nil {
			f.redactor.Header(&h)
		}
		if f.force {
			if err := file.Truncate(0); err != nil {
				return nil, err
			}
		}
		return tape.NewWriter(file, h)
	}, record.WithLogger(a.log), record.WithMaxMessage(int(f.maxMessage)), record.WithTapOptions(f.tapOptions()...),
		record.WithBodyReadTimeout(hf.bodyTimeout), record.WithBodyBudget(int64(hf.bodyBudget)),
		record.WithAllowHosts(hf.hosts...), record.WithAllowOrigins(hf.origins...))
	if err != nil {
		abandon()
		return usageError("%v", err)
	}
	l, err := listenTCP("record: --listen", hf.listen)
	if err != nil {
		abandon()
		return err
	}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	l = hf.limitConns(srv, l, a.log)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	fmt.Fprintf(a.errOut, "recording %s → %s (tape %s; Ctrl-C to stop)\n", listenURL(l.Addr(), p.Upstream()), hf.upstream, f.out)
	if w := beyondLoopbackWarning(l.Addr()); w != "" {
		fmt.Fprintln(a.errOut, w)
	}

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
	closeErr := errors.Join(p.Close(), file.Sync(), file.Close())
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return &exitError{code: exitBadInput, err: fmt.Errorf("record: serve on %s: %w", l.Addr(), serveErr)}
	}
	if closeErr != nil {
		return &exitError{code: exitBadInput, err: fmt.Errorf("record: write %s: %w", f.out, closeErr)}
	}
	if !f.quiet {
		fmt.Fprintf(a.errOut, "recorded %d messages in %d sessions to %s\n", p.Messages(), p.Sessions(), f.out)
		a.redactionSummary(f)
		if n := p.Dropped(); n > 0 {
			fmt.Fprintf(a.errOut, "relayed but not recorded: %d messages (over --max-message, not JSON-RPC, or in a Content-Encoding the proxy cannot read; see the warnings above)\n", n)
		}
	}
	return nil
}

// listenURL is the URL clients use: the proxy's address with the
// upstream's path.
func listenURL(addr net.Addr, upstream *url.URL) string {
	u := url.URL{Scheme: "http", Host: addr.String(), Path: upstream.Path, RawQuery: upstream.RawQuery}
	return u.String()
}
