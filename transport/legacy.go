package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/replayctl/replayctl/tape"
	"github.com/rs/zerolog"
)

// LegacySSE connects to a server of the older HTTP+SSE transport (MCP
// 2024-11-05): a GET opens an event stream whose first event, "endpoint",
// names the URL to POST messages to; every answer comes on that stream.
type LegacySSE struct {
	URL    string      // the SSE endpoint, e.g. http://127.0.0.1:3001/sse
	Header http.Header // sent on every request; ${NAME} expanded at Dial
	Client *http.Client
	Logger zerolog.Logger
	// FollowRedirects lets a session POST to a message endpoint on another
	// origin than URL's, without the Header (only the protocol's own
	// headers go there, as after a redirect: see Redirects). Without it,
	// such an endpoint fails Dial with an error wrapping ErrRedirect.
	FollowRedirects bool
	// MaxMessage bounds each event of the stream, in bytes; 0 means
	// DefaultMaxMessage. A longer one ends the connection with a
	// *TooLargeError.
	MaxMessage int
}

var _ Dialer = LegacySSE{}

// Dial opens the event stream and returns once the server has named its
// message endpoint, or when ctx is done.
func (l LegacySSE) Dial(ctx context.Context, session string) (Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	raw, header, client, err := target(l.URL, l.Header, l.Client)
	if err != nil {
		return nil, err
	}
	c := &LegacyConn{
		header: header,
		client: client,
		limit:  limitOf(l.MaxMessage),
		log:    l.Logger.With().Str("transport", "sse").Str("session", session).Logger(),
		in:     make(chan Incoming),
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	stop := context.AfterFunc(ctx, c.cancel) // until the endpoint is known
	resp, sr, endpoint, err := c.open(raw)
	if !stop() || err != nil {
		c.cancel()
		if resp != nil {
			_ = resp.Body.Close()
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("GET %s: %w", raw, ctx.Err())
		}
		return nil, err
	}
	// The endpoint is like a redirect: to another origin, only with
	// FollowRedirects, and then without the user's headers.
	first, _ := url.Parse(raw)
	if eu, err := url.Parse(endpoint); err == nil && !SameOrigin(first, eu) {
		if !l.FollowRedirects {
			c.cancel()
			_ = resp.Body.Close()
			return nil, fmt.Errorf("GET %s: the server named its message endpoint on another origin, %s: %w not followed, so that your headers do not go there: point the target at that origin, or follow redirects (--follow-redirects), which sends none of your headers to another origin",
				raw, redacted(eu), ErrRedirect)
		}
		c.header = http.Header{} // the protocol's own headers only
	}
	c.endpoint = endpoint
	c.wg.Add(1)
	go func() { defer c.wg.Done(); c.read(resp, sr) }()
	return c, nil
}

// open GETs the stream and reads up to the endpoint event.
func (c *LegacyConn) open(raw string) (*http.Response, *SSEReader, string, error) {
	req, err := http.NewRequestWithContext(c.ctx, http.MethodGet, raw, nil)
	if err != nil {
		return nil, nil, "", err
	}
	c.setHeaders(req)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, nil, "", requestFailed(http.MethodGet, raw, err)
	}
	if resp.StatusCode >= 400 {
		return nil, nil, "", httpError(resp, raw)
	}
	if mediaType(resp) != "text/event-stream" {
		discard(resp)
		return nil, nil, "", fmt.Errorf("GET %s: answer is %q, not an event stream; is this a Streamable HTTP endpoint (use HTTP)?", raw, resp.Header.Get("Content-Type"))
	}
	sr := NewSSEReader(resp.Body, MaxEventSize(c.limit))
	for {
		ev, err := sr.Next()
		if _, ok := errors.AsType[*TooLargeError](err); ok {
			return resp, nil, "", fmt.Errorf("GET %s: waiting for the endpoint event: %w", raw, err)
		}
		if err != nil {
			return resp, nil, "", fmt.Errorf("%w: GET %s: stream ended before the endpoint event: %w", ErrTarget, raw, err)
		}
		if ev.Event != "endpoint" {
			c.log.Warn().Str("event", ev.Event).Msg("event before the endpoint event; dropped")
			continue
		}
		ref, err := url.Parse(strings.TrimSpace(string(ev.Data)))
		if err != nil {
			return resp, nil, "", fmt.Errorf("GET %s: bad endpoint %q: %w", raw, ev.Data, err)
		}
		return resp, sr, resp.Request.URL.ResolveReference(ref).String(), nil
	}
}

// LegacyConn is one session over the 2024-11-05 HTTP+SSE transport.
type LegacyConn struct {
	endpoint string
	header   http.Header
	client   *http.Client
	limit    int // the longest event the server may send
	log      zerolog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	in     chan Incoming

	mu      sync.Mutex // guards closing and err
	closing bool
	err     error

	wg        sync.WaitGroup
	closeOnce sync.Once
}

var _ Conn = (*LegacyConn)(nil)

// Endpoint is the message URL the server named.
func (c *LegacyConn) Endpoint() string { return c.endpoint }

// Incoming is closed when the event stream ends or after Close.
func (c *LegacyConn) Incoming() <-chan Incoming { return c.in }

// Err is nil after Close; when the server ended the stream, an error
// wrapping ErrTarget (this transport cannot resume a stream); when it sent
// an event longer than MaxMessage, one wrapping a *TooLargeError.
func (c *LegacyConn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Send POSTs msg to the endpoint and returns on the answer's status (the
// reply itself comes on the stream), or when ctx is done.
func (c *LegacyConn) Send(ctx context.Context, msg []byte) error {
	c.mu.Lock()
	closing := c.closing || c.err != nil
	c.mu.Unlock()
	if closing {
		return ErrClosed
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(msg))
	if err != nil {
		return err
	}
	c.setHeaders(req)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("POST %s: %w", c.endpoint, ctx.Err())
		}
		return requestFailed(http.MethodPost, c.endpoint, err)
	}
	if resp.StatusCode >= 400 {
		return httpError(resp, c.endpoint)
	}
	discard(resp)
	return nil
}

func (c *LegacyConn) setHeaders(req *http.Request) {
	for k, vs := range c.header {
		req.Header[k] = vs
	}
}

// read delivers the stream's messages, then closes Incoming.
func (c *LegacyConn) read(resp *http.Response, sr *SSEReader) {
	defer close(c.in)
	defer resp.Body.Close()
	meta := httpMeta(resp)
	for {
		ev, err := sr.Next()
		if err != nil {
			c.mu.Lock()
			_, tooLarge := errors.AsType[*TooLargeError](err)
			switch {
			case c.closing:
			case tooLarge:
				c.err = fmt.Errorf("the event stream of %s: %w", c.endpoint, err)
			default:
				if errors.Is(err, io.EOF) {
					err = errors.New("the server closed it")
				}
				c.err = fmt.Errorf("%w: event stream of %s ended: %w", ErrTarget, c.endpoint, err)
			}
			c.mu.Unlock()
			return
		}
		if (ev.Event != "" && ev.Event != "message") || !json.Valid(ev.Data) {
			c.log.Warn().Str("event", ev.Event).Str("data", clip(ev.Data, 200)).Msg("event is not a JSON-RPC message; dropped")
			continue
		}
		in := Incoming{Msg: ev.Data, At: time.Now(), HTTP: meta,
			SSE: &tape.SSEMeta{ID: ev.ID, Event: ev.Event, Retry: ev.Retry}}
		select {
		case c.in <- in:
		case <-c.ctx.Done():
			return
		}
	}
}

// Close ends the stream and waits for its reader. Idempotent.
func (c *LegacyConn) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closing = true
		c.mu.Unlock()
		c.cancel()
		c.wg.Wait()
	})
	return nil
}
