package replay

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/replayctl/replayctl/mock"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// Target is what a replay is sent to, as a value: Mock (the default),
// MockTape, Command, HTTP, Handler or Streams. The With… methods add to a
// target of the kind they name; given to another kind they make New fail.
type Target struct {
	kind      targetKind
	argv      []string
	env       []string
	dir       string
	url       string
	header    http.Header
	legacySSE bool
	follow    bool // follow redirects to another origin
	mockTape  string
	handler   http.Handler
	serve     func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error
	misuse    string // a With… method given to the wrong kind
}

type targetKind int

const (
	kindMock targetKind = iota
	kindMockTape
	kindCommand
	kindHTTP
	kindHandler
	kindStreams
)

// Mock is the built-in mock: the tape answers its own requests, as its
// server did. It is the default target.
func Mock() Target { return Target{kind: kindMock} }

// MockTape is the built-in mock answering from another tape, e.g. a newer
// recording of the same client.
func MockTape(path string) Target { return Target{kind: kindMockTape, mockTape: path} }

// Command starts a server process for each session and speaks MCP over
// its stdin and stdout (the stdio transport), e.g.
// Command("node", "server.js"). The process's stderr is kept for errors.
func Command(name string, args ...string) Target {
	return Target{kind: kindCommand, argv: append([]string{name}, args...)}
}

// HTTP replays against a Streamable HTTP endpoint, e.g.
// "http://127.0.0.1:3000/mcp"; an endpoint that speaks the 2024-11-05
// HTTP+SSE transport is detected (or see WithLegacySSE).
func HTTP(endpoint string) Target { return Target{kind: kindHTTP, url: endpoint} }

// Handler replays against a Streamable HTTP handler in this process, with
// no port: e.g. the go-sdk's mcp.NewStreamableHTTPHandler. Each session
// is a client of its own, as over the network.
func Handler(h http.Handler) Target { return Target{kind: kindHandler, handler: h} }

// Streams replays against a server run in this process over a pair of
// streams, as over stdio: serve is called once per session in a goroutine
// of its own, reads the client's JSON lines from in and writes its own to
// out, and should return when in ends or ctx is done. An error it returns
// early fails the session's target. With the go-sdk:
//
//	replay.Streams(func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
//		return server.Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
//	})
func Streams(serve func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error) Target {
	return Target{kind: kindStreams, serve: serve}
}

// WithEnv adds "K=V" values to a Command's environment.
func (t Target) WithEnv(kv ...string) Target {
	if t.kind != kindCommand {
		t.misuse = "WithEnv is for a Command target"
	}
	t.env = append(append([]string(nil), t.env...), kv...)
	return t
}

// WithDir sets a Command's working directory.
func (t Target) WithDir(dir string) Target {
	if t.kind != kindCommand {
		t.misuse = "WithDir is for a Command target"
	}
	t.dir = dir
	return t
}

// WithHeader adds a header sent on every request to an HTTP or Handler
// target; the value may use ${ENV} (expanded when sent).
func (t Target) WithHeader(key, value string) Target {
	if t.kind != kindHTTP && t.kind != kindHandler {
		t.misuse = "WithHeader is for an HTTP or Handler target"
	}
	h := t.header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Add(key, value)
	t.header = h
	return t
}

// WithLegacySSE says an HTTP target speaks the 2024-11-05 HTTP+SSE
// transport, without asking the endpoint.
func (t Target) WithLegacySSE() Target {
	if t.kind != kindHTTP {
		t.misuse = "WithLegacySSE is for an HTTP target"
	}
	t.legacySSE = true
	return t
}

// WithFollowRedirects lets an HTTP target's requests follow a redirect
// (and a legacy server's message endpoint) to another origin than the
// target's: without it such a redirect fails the request. To another
// origin go only the protocol's own headers, never those of WithHeader.
// A redirect within the target's origin is followed in any case.
func (t Target) WithFollowRedirects() Target {
	if t.kind != kindHTTP {
		t.misuse = "WithFollowRedirects is for an HTTP target"
	}
	t.follow = true
	return t
}

// String names the target as reports do: "mock", a command line, a URL,
// the credentials of any URL masked (tape.MaskURL).
func (t Target) String() string {
	switch t.kind {
	case kindMockTape:
		return "mock of " + t.mockTape
	case kindCommand:
		return tape.MaskURLs(strings.Join(t.argv, " "))
	case kindHTTP:
		return tape.MaskURL(t.url) // its credentials are no one's to see
	case kindHandler:
		return "in-process HTTP handler"
	case kindStreams:
		return "in-process streams"
	}
	return "mock"
}

// dialer checks the target and makes its transport.
func (t Target) dialer(s *settings, src tape.Source, tapeOpts []tape.Option) (transport.Dialer, error) {
	if t.misuse != "" {
		return nil, &OptionError{Option: "Against", Value: t.String(), Err: fmt.Errorf("%s", t.misuse)}
	}
	log := s.logger
	switch t.kind {
	case kindMock:
		return mock.FromSource(src, mock.WithTapeOptions(tapeOpts...)), nil
	case kindMockTape:
		msrc, err := tape.Load(t.mockTape) // a pipe is read once, into memory
		if err != nil {
			return nil, err
		}
		r, err := tape.OpenSource(msrc, tapeOpts...) // a tape that cannot be read is bad input, now
		if err != nil {
			return nil, err
		}
		r.Close()
		return mock.FromSource(msrc, mock.WithTapeOptions(tapeOpts...)), nil
	case kindCommand:
		if len(t.argv) == 0 || t.argv[0] == "" {
			return nil, &OptionError{Option: "Command", Value: "", Err: fmt.Errorf("no command to run")}
		}
		if t.dir != "" {
			if fi, err := os.Stat(t.dir); err != nil || !fi.IsDir() {
				return nil, &OptionError{Option: "WithDir", Value: t.dir, Err: fmt.Errorf("no such folder")}
			}
		}
		for _, kv := range t.env {
			if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
				return nil, &OptionError{Option: "WithEnv", Value: kv, Err: fmt.Errorf("want K=V")}
			}
		}
		return transport.Stdio{Command: t.argv, Env: t.env, Dir: t.dir, Logger: log.With().Str("server", t.argv[0]).Logger(), MaxMessage: s.maxMessage}, nil
	case kindHTTP:
		if err := checkURL(t.url); err != nil {
			return nil, &OptionError{Option: "HTTP", Value: t.url, Err: err}
		}
		if err := t.checkHeader(); err != nil {
			return nil, err
		}
		var copts []transport.ClientOption
		if t.follow {
			copts = append(copts, transport.FollowRedirects())
		}
		client := transport.NewClient(s.maxInflight, copts...)
		if t.legacySSE {
			return transport.LegacySSE{URL: t.url, Header: t.header, Client: client, Logger: log, FollowRedirects: t.follow, MaxMessage: s.maxMessage}, nil
		}
		return &transport.Auto{URL: t.url, Header: t.header, Client: client, Logger: log, FollowRedirects: t.follow, MaxMessage: s.maxMessage}, nil
	case kindHandler:
		if t.handler == nil {
			return nil, &OptionError{Option: "Handler", Value: "nil", Err: fmt.Errorf("no handler")}
		}
		if err := t.checkHeader(); err != nil {
			return nil, err
		}
		return transport.Handler{Handler: t.handler, Header: t.header, Logger: log, MaxMessage: s.maxMessage}, nil
	case kindStreams:
		if t.serve == nil {
			return nil, &OptionError{Option: "Streams", Value: "nil", Err: fmt.Errorf("no serve function")}
		}
		return transport.Pipe{Serve: t.serve, Logger: log, MaxMessage: s.maxMessage}, nil
	}
	return nil, fmt.Errorf("replay: unknown target kind %d", t.kind)
}

// suggestURL is what a URL without a scheme probably meant: raw with
// http:// in front when that makes a URL with a plausible host, else an
// example.
func suggestURL(raw string) string {
	u, err := url.Parse("http://" + raw)
	if err == nil && !strings.HasPrefix(raw, "http") && u.Hostname() != "" && !strings.ContainsAny(raw, " \t") && !strings.HasPrefix(raw, ":") {
		return u.String()
	}
	return "http://127.0.0.1:3000/mcp"
}

func (t Target) checkHeader() error {
	for k, vs := range t.header {
		if strings.TrimSpace(k) == "" {
			return &OptionError{Option: "WithHeader", Value: k, Err: fmt.Errorf("empty header name")}
		}
		for _, v := range vs {
			if _, err := transport.ExpandHeader(v); err != nil {
				return &OptionError{Option: "WithHeader", Value: k, Err: err}
			}
		}
	}
	return nil
}

// secrets are the values of the target that no output may show: those
// its headers take from the environment (${NAME}), the values of its
// credential headers (Authorization, X-Api-Key, …: tape.Sensitive) and
// their credentials after the scheme ("Bearer <token>"), and the password
// and credential query parameters of its URL.
func (t Target) secrets() []string {
	if t.kind != kindHTTP && t.kind != kindHandler {
		return nil
	}
	out, _ := transport.HeaderSecrets(t.header) // a bad header fails New before
	for k, vs := range t.header {
		if !tape.Sensitive(k) {
			continue
		}
		for _, v := range vs {
			x, err := transport.ExpandHeader(v)
			if err != nil {
				continue
			}
			x = strings.TrimSpace(x)
			out = appendCredential(out, x)
			if _, cred, ok := strings.Cut(x, " "); ok {
				out = appendCredential(out, strings.TrimSpace(cred))
			}
		}
	}
	if u, err := url.Parse(t.url); err == nil {
		if p, ok := u.User.Password(); ok {
			out = appendCredential(out, p)
		}
		for k, vs := range u.Query() {
			if tape.CredentialParam(k) {
				for _, v := range vs {
					out = appendCredential(out, v)
				}
			}
		}
	}
	return out
}

// minCredential is the shortest value a credential header or URL
// parameter must have to be taken as a secret without being marked one
// (${NAME}): hiding "1" or "true" everywhere would wreck every output.
const minCredential = 4

func appendCredential(secrets []string, v string) []string {
	if len(v) < minCredential {
		return secrets
	}
	return append(secrets, v)
}

// checkURL refuses an endpoint that cannot be an HTTP URL, before
// anything is replayed.
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case !strings.Contains(raw, "://"):
		return fmt.Errorf("want a URL like %s", suggestURL(raw))
	case err != nil:
		return err
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("want an http:// or https:// URL")
	case u.Hostname() == "":
		return fmt.Errorf("the URL has no host")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("port %s is not a port number", p)
		}
	}
	return nil
}
