// The Streamable HTTP dialer: HTTP and its options (Poster, Spare),
// the MCP headers' names, and Dial, which checks the URL, expands the
// headers and makes the HTTPConn (see http_conn.go) with its lean client.

package transport

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/replayctl/replayctl/mcp"
	"github.com/rs/zerolog"
)

// HTTP connects to an MCP server's Streamable HTTP endpoint (MCP
// 2025-06-18): each client message is a POST; answers come as JSON or as
// an SSE stream; server-initiated messages come on a standalone GET stream.
type HTTP struct {
	URL string
	// Header is sent on every request. Values may reference environment
	// variables as ${NAME}, expanded at Dial (see ExpandHeader).
	Header http.Header
	Client *http.Client // nil: DefaultClient()
	Logger zerolog.Logger
	// MaxMessage is the longest message the server may send, in bytes: a
	// JSON body, counted after decompression (the client unpacks gzip),
	// or an SSE event's data. 0 means DefaultMaxMessage. A longer one
	// ends the connection with a *TooLargeError.
	MaxMessage int
	// OnFault, when set, is told of each request whose answer is lost
	// (see Fault), from the connection's reading goroutine.
	OnFault func(Fault)
	// Poster is the client that POSTs the messages of an http:// URL:
	// PosterLean (what "" means) or PosterStd. See Poster.
	Poster Poster
	// Spare is how many idle connections the lean client keeps dialed
	// ahead while every other one carries a request, so that a request
	// sent while the earlier ones still wait for their answers (the
	// open model, --order none) does not wait for a new connection's
	// dial: 0 (the default) none, at most MaxSpare.
	Spare int
}

// MaxSpare bounds HTTP.Spare.
const MaxSpare = 16

// Poster names the HTTP client that posts a Streamable HTTP session's
// messages.
type Poster string

const (
	// PosterLean posts through a lean HTTP/1.1 client of the
	// connection's own: keep-alive connections, the request written and
	// the answer's head read with nothing but what MCP needs. It costs
	// about half the client CPU per request of PosterStd. It applies to
	// an http:// URL when the Client's transport is a plain
	// *http.Transport that uses no proxy for it; https, a proxy, the
	// standalone GET stream, the session's DELETE, a slowed-down send
	// (SendSlow) and every POST after the target's first redirect go
	// through the Client, as with PosterStd.
	PosterLean Poster = "lean"
	// PosterStd posts through the Client (net/http).
	PosterStd Poster = "std"
)

// defaultPoster is what an HTTP with no Poster uses (a variable for the
// package's tests, which run with either: -http-client).
var defaultPoster = PosterLean

// ParsePoster reads a poster's name ("std" or "lean"; "" for the
// default, lean).
func ParsePoster(s string) (Poster, error) {
	switch p := Poster(s); p {
	case "":
		return defaultPoster, nil
	case PosterLean, PosterStd:
		return p, nil
	}
	return "", fmt.Errorf("HTTP client %q: want std (net/http) or lean", s)
}

var _ Dialer = HTTP{}

// The MCP Streamable HTTP headers (package mcp has them all).
const (
	HeaderSessionID       = mcp.HeaderSessionID
	HeaderProtocolVersion = mcp.HeaderProtocolVersion
	HeaderLastEventID     = mcp.HeaderLastEventID
)

const (
	errorBodyBytes = 4 << 10
	// rpcErrorBytes bounds the body of a failed answer read to see if it
	// is a JSON-RPC error.
	rpcErrorBytes = 64 << 10
	deleteTimeout = 5 * time.Second
)

// Dial checks the URL and expands the headers; it does no network I/O
// (the initialize request is the first). Errors are about the arguments.
func (h HTTP) Dial(ctx context.Context, session string) (Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	u, header, client, err := target(h.URL, h.Header, h.Client)
	if err != nil {
		return nil, err
	}
	pu, err := url.Parse(u)
	if err != nil {
		return nil, fmt.Errorf("target URL %q: %w", h.URL, err)
	}
	c := &HTTPConn{
		url:     u,
		header:  header,
		client:  client,
		limit:   limitOf(h.MaxMessage),
		onFault: h.OnFault,
		log:     h.Logger.With().Str("transport", "http").Str("session", session).Logger(),
		in:      make(chan Incoming),
		done:    make(chan struct{}),
	}
	poster, err := ParsePoster(string(h.Poster))
	if err != nil {
		return nil, err
	}
	if poster == PosterLean {
		c.lean = newLeanClient(pu, client, header)
		if c.lean != nil {
			c.lean.spare = min(max(h.Spare, 0), MaxSpare)
		}
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	go func() {
		<-c.ctx.Done()
		if c.lean != nil {
			c.lean.close() // the answers it is reading end
		}
		c.wg.Wait() // no Add after ctx is cancelled: see spawn
		close(c.in)
		close(c.done)
	}()
	if c.lean != nil {
		c.lean.onHead = c.answerNow
		c.lean.onStarted = c.started
		c.outWake = make(chan struct{}, 1)
		c.enqueueF = c.enqueue
		c.wg.Add(1) // before ctx can end: see spawn
		go func() { defer c.wg.Done(); c.drainOut() }()
	}
	return c, nil
}

// target is what each HTTP dialer checks and makes first: the URL (see
// checkURL), the headers with their ${NAME}s expanded (see ExpandHeader),
// and client, or DefaultClient() for nil. Errors are about the arguments.
func target(raw string, header http.Header, client *http.Client) (string, http.Header, *http.Client, error) {
	u, err := checkURL(raw)
	if err != nil {
		return "", nil, nil, err
	}
	h, err := expandHeaders(header)
	if err != nil {
		return "", nil, nil, err
	}
	if client == nil {
		client = DefaultClient()
	}
	return u, h, client, nil
}

func checkURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("target URL %q: %w", raw, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("target URL %q: want an http:// or https:// URL with a host, e.g. http://127.0.0.1:3000/mcp", raw)
	}
	return u.String(), nil
}

func expandHeaders(h http.Header) (http.Header, error) {
	out := make(http.Header, len(h))
	for k, vs := range h {
		for _, v := range vs {
			x, err := ExpandHeader(v)
			if err != nil {
				return nil, fmt.Errorf("header %s: %w", k, err)
			}
			out.Add(k, x)
		}
	}
	return out, nil
}
