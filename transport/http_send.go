// Sending an HTTPConn's messages: Send and SendBy POST one and return
// once its answer's head has come (post picks the lean client or
// net/http); answered then has its body read on a goroutine of its own.

package transport

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"time"

	"github.com/replayctl/replayctl/mcp"
)

// Send POSTs msg. It returns once the answer's status and headers have
// arrived (or ctx is done); the answer's messages, JSON or an SSE stream,
// are then read by a goroutine and delivered on Incoming in order. A 4xx
// or 5xx answer is returned as *HTTPError; an unreachable server as an
// error wrapping ErrTarget. Sending notifications/initialized first opens
// the server's standalone GET stream, if it has one, and waits for the
// server to answer that GET, so that what the server sends as it handles
// initialized reaches the stream: for 2s at most, or ten times the time
// the server took to answer initialize if longer, but never more than
// half the time the send has.
func (c *HTTPConn) Send(ctx context.Context, msg []byte) error {
	return c.send(ctx, msg, bytes.NewReader(msg), time.Time{})
}

var _ DeadlineSender = (*HTTPConn)(nil)

// SendBy is Send bounded by deadline too. The lean client gives the
// deadline to its connection; net/http gets a context with it (see post).
func (c *HTTPConn) SendBy(ctx context.Context, msg []byte, deadline time.Time) error {
	return c.send(ctx, msg, bytes.NewReader(msg), deadline)
}

var (
	_ SlowSender       = (*HTTPConn)(nil)
	_ ConcurrentSender = (*HTTPConn)(nil)
)

// SendsConcurrently is true: Send may be called from several goroutines
// at once (requests are independent POSTs).
func (c *HTTPConn) SendsConcurrently() bool { return true }

// send posts msg, its bytes read from body, under ctx and before
// deadline (the zero time: none but ctx's).
func (c *HTTPConn) send(ctx context.Context, msg []byte, body io.Reader, deadline time.Time) error {
	if c.isClosing() {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	mi := inspect(msg)
	st := &stream{kind: "POST", init: mi.method == mcp.MethodInitialize, method: mi.method}
	if mi.method != "" {
		st.reqID = mi.id // a request's; an answer to the server's request awaits none
	}
	var began time.Time
	if st.init {
		began = time.Now()
	}
	resp, reqCancel, err := c.post(ctx, msg, body, mi, st, deadline)
	if st.init && err == nil {
		c.initTook.Store(int64(time.Since(began))) // for awaitGET
	}
	if err != nil || resp == nil { // resp nil: its answer is read already
		return err
	}
	return c.answered(resp, reqCancel, mi, st)
}

// answered takes the answer to a POST of a message (mi) once its status
// and headers have come: a refusal is returned as Send returns it, else
// its body is read on a goroutine of its own and delivered. reqCancel
// ends its request after its body is read.
func (c *HTTPConn) answered(resp *http.Response, reqCancel context.CancelFunc, mi msgInfo, st *stream) error {
	if resp.StatusCode >= 400 {
		defer reqCancel()
		return c.failed(resp, mi.id, mi.method != "")
	}
	if mi.method == mcp.MethodInitialize {
		if sid := resp.Header.Get(HeaderSessionID); sid != "" {
			c.mu.Lock()
			c.sessionID = sid
			c.mu.Unlock()
		}
	}
	if err := c.spawn(func() { defer reqCancel(); c.readAnswer(resp, st) }); err != nil {
		_ = resp.Body.Close()
		reqCancel()
		return err
	}
	return nil
}

// post POSTs msg (its bytes read from body) and returns the answer once
// its status and headers have come, with the func that ends its request
// after its body is read, and errors as Send returns them. A nil answer
// and error: the lean client has read the answer whole, to st.
func (c *HTTPConn) post(ctx context.Context, msg []byte, body io.Reader, mi msgInfo, st *stream, deadline time.Time) (*http.Response, context.CancelFunc, error) {
	if _, plain := body.(*bytes.Reader); plain && c.lean != nil && !c.redirected.Load() {
		resp, handled, err := c.postLean(ctx, msg, mi, st, deadline)
		if handled {
			return nil, noCancel, nil
		}
		if err != nil || !isRedirect(resp.StatusCode) {
			return resp, noCancel, err
		}
		c.redirect(resp)
		body = bytes.NewReader(msg)
	}
	if !deadline.IsZero() { // bounds the wait for the headers only (see postStd)
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	return c.postStd(ctx, msg, body, mi)
}
