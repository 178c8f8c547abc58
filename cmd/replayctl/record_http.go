package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/replayctl/replayctl/internal/english"
	"github.com/replayctl/replayctl/record"
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
	checked bool     // the upstream was reached already (serve --mode record)
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

// recordHTTP runs the HTTP recording proxy (record.Recorder) until ctx
// is done (SIGINT, SIGTERM), and prints the URL clients should use and,
// at the end, what was recorded on stderr.
func (a *app) recordHTTP(ctx context.Context, f *recordFlags, tags map[string]string, hf recordHTTPFlags) error {
	// An upstream not there yet may come up while the proxy listens: said
	// at once, under the URL line.
	var down error
	if !hf.checked {
		down = record.Reachable(ctx, hf.upstream)
		f.upstreamDown.Store(down != nil)
	}
	// Kept unless the upstream answered nothing to clients' messages, or
	// could not be reached at the start (as warned) and answered nothing;
	// with --force, one that failed is not kept either: the old tape is
	// then as it was.
	silent := false
	keep := func(res record.Result, err error) bool {
		switch {
		case err != nil:
			return !f.force
		case heardServer(res.Path):
			return true
		}
		silent = res.Messages > 0 || down != nil // else the tape is the header and the end line
		return !silent
	}
	r, err := newRecorder(f, append(a.recorderOptions(f, tags, keep),
		record.Upstream(hf.upstream),
		record.WithListener(func() (net.Listener, error) { return listenTCP("record: --listen", hf.listen) }),
		record.MaxConns(hf.maxConns),
		record.WithHTTP(record.WithMaxMessage(int(f.maxMessage)),
			record.WithBodyReadTimeout(hf.bodyTimeout), record.WithBodyBudget(int64(hf.bodyBudget)),
			record.WithAllowHosts(hf.hosts...), record.WithAllowOrigins(hf.origins...)),
		record.OnListening(func(addr net.Addr, url string) {
			fmt.Fprintf(a.errOut, "recording %s → %s (tape %s; Ctrl-C to stop)\n", url, hf.upstream, f.out)
			if w := beyondLoopbackWarning(addr); w != "" {
				fmt.Fprintln(a.errOut, w)
			}
			if down != nil {
				fmt.Fprintf(a.errOut, "warning: the upstream %s cannot be reached now (%v): clients get 502 until it is up, and if it answers nothing no tape is written\n", hf.upstream, down)
			}
		})))
	if err != nil {
		return err
	}
	res, err := r.Run(ctx)
	recordRan()
	f.awaitAbandoned()
	var ie *record.InputError
	switch {
	case errors.As(err, &ie):
		return usageError("%v", err)
	case err != nil && res.Discarded:
		return recordError(exitBadInput, err, "; "+f.noTape())
	case err != nil && !res.Created:
		return err // the listener's, with its exit status
	case err != nil:
		return recordError(exitBadInput, err, "")
	case silent && res.Messages > 0:
		return &exitError{code: exitTarget, err: fmt.Errorf("record: the upstream %s answered nothing (%s from clients), so %s", hf.upstream, english.Count(res.Messages, "message"), f.noTape())}
	case silent:
		// As warned at the start: an upstream that could not be reached
		// and never answered leaves no tape, used by a client or not.
		return &exitError{code: exitTarget, err: fmt.Errorf("record: the upstream %s could not be reached when the recording started and answered nothing (no client sent a message), so %s", hf.upstream, f.noTape())}
	}
	if !f.quiet {
		fmt.Fprintf(a.errOut, "recorded %s in %s to %s\n", english.Count(res.Messages, "message"), english.Count(int64(res.Sessions), "session"), f.out)
		a.redactionSummary(f)
		if res.Dropped > 0 {
			fmt.Fprintf(a.errOut, "relayed but not recorded: %s (over --max-message, not JSON-RPC, or in a Content-Encoding the proxy cannot read; see the warnings above)\n", english.Count(res.Dropped, "message"))
		}
	}
	return nil
}
