package transport

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// Auto connects to an HTTP MCP endpoint of either transport: Streamable
// HTTP (2025-03-26 and later) or the older HTTP+SSE (2024-11-05). It asks
// the endpoint once, on the first Dial, and then dials every session with
// the transport the server speaks.
//
// The probe is a GET asking for an event stream without a session: a
// legacy server answers it with its "endpoint" event; a Streamable HTTP
// server refuses it (400, 404 or 405) or opens a stream without that event.
type Auto struct {
	URL    string
	Header http.Header
	Client *http.Client
	Logger zerolog.Logger
	// ProbeTimeout bounds the probe; 0 means 5s.
	ProbeTimeout time.Duration
	// FollowRedirects is given to a LegacySSE session: see there. (The
	// Client's CheckRedirect decides for HTTP redirects.)
	FollowRedirects bool
	// MaxMessage is the dialed transport's (see HTTP and LegacySSE); it
	// bounds the probe's first event too.
	MaxMessage int
	// Poster is the Streamable HTTP sessions' (see HTTP).
	Poster Poster
	// Spare is the Streamable HTTP sessions' (see HTTP).
	Spare int

	once   sync.Once
	legacy bool
	err    error
}

var _ Dialer = (*Auto)(nil)

// Dial connects a session; the first call probes the endpoint.
func (a *Auto) Dial(ctx context.Context, session string) (Conn, error) {
	a.once.Do(func() { a.legacy, a.err = a.probe(ctx) })
	if a.err != nil {
		return nil, a.err
	}
	if a.legacy {
		return LegacySSE{URL: a.URL, Header: a.Header, Client: a.Client, Logger: a.Logger, FollowRedirects: a.FollowRedirects, MaxMessage: a.MaxMessage}.Dial(ctx, session)
	}
	return HTTP{URL: a.URL, Header: a.Header, Client: a.Client, Logger: a.Logger, MaxMessage: a.MaxMessage, Poster: a.Poster, Spare: a.Spare}.Dial(ctx, session)
}

// Legacy reports what the probe found (valid after the first Dial).
func (a *Auto) Legacy() bool { return a.legacy }

func (a *Auto) probe(ctx context.Context) (bool, error) {
	raw, header, client, err := target(a.URL, a.Header, a.Client)
	if err != nil {
		return false, err
	}
	timeout := a.ProbeTimeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return false, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		return false, requestFailed(http.MethodGet, raw, err)
	}
	if resp.StatusCode != http.StatusOK || mediaType(resp) != "text/event-stream" {
		discard(resp)
		return false, nil // not a legacy stream: Streamable HTTP
	}
	// An event stream never ends by itself: close it, do not drain it.
	defer resp.Body.Close()
	defer cancel()
	ev, err := NewSSEReader(resp.Body, MaxEventSize(a.MaxMessage)).Next()
	if _, ok := errors.AsType[*TooLargeError](err); ok {
		return false, fmt.Errorf("GET %s (asking which transport it speaks): %w", raw, err)
	}
	legacy := err == nil && ev.Event == "endpoint"
	a.Logger.Debug().Bool("legacy", legacy).Str("url", raw).Msg("probed the HTTP transport")
	return legacy, nil
}
