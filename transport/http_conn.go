// HTTPConn, one MCP session over Streamable HTTP: its state, what it
// reports (Incoming, Err, SessionID, ProtocolVersion), the goroutines it
// runs (spawn, deliver) and its end (fail, Close and the session's
// DELETE).

package transport

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/tape"
	"github.com/rs/zerolog"
)

// HTTPConn is one MCP session over Streamable HTTP.
type HTTPConn struct {
	url    string
	header http.Header
	client *http.Client
	// lean posts messages when not nil and not redirected (see
	// PosterLean); closed when the connection ends.
	lean *leanClient
	// redirected is set by the first redirect lean met: every POST goes
	// through client from then on, which follows redirects.
	redirected atomic.Bool
	// outq holds the answers read on the sender's goroutine (see
	// answerNow) for drainOut to deliver, in order; outWake tells it of
	// new ones; outBusy counts those queued and those drainOut is
	// delivering. enqueueF is enqueue, made once.
	outMu    sync.Mutex // guards outq and outBusy
	outq     []Incoming
	outBusy  int
	outWake  chan struct{}
	enqueueF func(Incoming) bool
	// leanReq is the Request of the answers lean gives (they are read
	// as net/http's, which carry theirs), for the last session id.
	leanReq atomic.Pointer[http.Request]
	// initTook is how long the server took to answer initialize (a
	// time.Duration), for how long initialized waits for the GET stream
	// (awaitGET).
	initTook atomic.Int64
	limit    int // the longest message the server may send
	log      zerolog.Logger
	// onFault is told of each request whose answer is lost; may be nil.
	onFault func(Fault)

	ctx    context.Context // the connection's life; cancelled by Close and fail
	cancel context.CancelFunc
	in     chan Incoming
	done   chan struct{} // closed after in

	mu              sync.Mutex // guards the fields below
	closing         bool       // Close (or fail) has begun: no new goroutines, no resumes
	err             error      // why the connection failed (see fail)
	sessionID       string
	protocolVersion string
	getOpened       bool
	// stateless is the version of a stateless session (MCP 2026-07-28 on),
	// from the _meta of its requests; "" for a session-based one.
	stateless string
	// sidValue and pvValue are sessionID and protocolVersion as header
	// values, made once for every request that carries them.
	sidValue, pvValue []string
	// meta is the HTTPMeta of the last answer, given again to answers
	// whose status and headers it shows alike (see metaOf).
	meta atomic.Pointer[tape.HTTPMeta]
	// tools are the x-mcp-header annotations of the tools the server
	// listed on this connection, for the Mcp-Param-* headers.
	tools mcp.ToolHeaders

	wg        sync.WaitGroup
	closeOnce sync.Once
}

var _ Conn = (*HTTPConn)(nil)

// Incoming is closed after Close.
func (c *HTTPConn) Incoming() <-chan Incoming { return c.in }

// Err is nil unless the server sent a message longer than MaxMessage:
// then the connection has ended (Incoming is closed, Send fails) and Err
// is a *TooLargeError. Other failures are of single requests, and Send
// returns them.
func (c *HTTPConn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// fail ends the connection because of err, a failure of the server: its
// streams stop, Incoming closes and Err returns err. It does nothing once
// Close has begun. Close still ends the session (DELETE).
func (c *HTTPConn) fail(err error) {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return
	}
	c.closing, c.err = true, err
	c.mu.Unlock()
	c.log.Error().Err(err).Msg("connection ended")
	c.cancel()
}

// SessionID is the Mcp-Session-Id the server gave, or "".
func (c *HTTPConn) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID
}

// ProtocolVersion is the version the server chose in its initialize
// answer, or "" before it.
func (c *HTTPConn) ProtocolVersion() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.protocolVersion
}

// spawn runs fn on a goroutine that Close waits for; it fails once Close
// has begun.
func (c *HTTPConn) spawn(fn func()) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return ErrClosed
	}
	c.wg.Add(1)
	go func() { defer c.wg.Done(); fn() }()
	return nil
}

func (c *HTTPConn) isClosing() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closing
}

// deliver hands one message to Incoming; false once Close has begun.
func (c *HTTPConn) deliver(in Incoming) bool {
	select {
	case c.in <- in:
		return true
	case <-c.ctx.Done():
		return false
	}
}

// Close ends the session with a DELETE (a 405 answer is fine), stops the
// streams and returns when their goroutines are gone. Idempotent.
func (c *HTTPConn) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closing = true
		sid := c.sessionID
		c.mu.Unlock()
		if sid != "" {
			c.deleteSession()
		}
		c.cancel()
		<-c.done
	})
	return nil
}

func (c *HTTPConn) deleteSession() {
	ctx, cancel := context.WithTimeout(context.Background(), deleteTimeout)
	defer cancel()
	req, err := c.newRequest(ctx, http.MethodDelete, nil, false)
	if err != nil {
		return
	}
	resp, err := c.client.Do(req)
	if err != nil {
		c.log.Debug().Err(err).Msg("DELETE session")
		return
	}
	discard(resp)
	if resp.StatusCode >= 400 && resp.StatusCode != http.StatusMethodNotAllowed {
		c.log.Debug().Int("status", resp.StatusCode).Msg("DELETE session refused")
	}
}
