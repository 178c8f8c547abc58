// An HTTPConn's POSTs through net/http (its Client): those the lean
// client does not take (PosterStd, https, a proxy, after a redirect) and
// a slowed-down send, whose body trickles in pieces (SendSlow).

package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/replayctl/replayctl/mcp"
)

// SendSlow posts msg with its body trickled in pieces of chunk bytes with
// pause between them, as a slow client would. Sent on a kept-alive
// connection that the server closed unanswered (its keep-alive timeout
// ended it as the send began), it is sent once more on a new one, as
// the lean client sends its POSTs (leanClient.post): net/http does not
// send a POST again.
func (c *HTTPConn) SendSlow(ctx context.Context, msg []byte, chunk int, pause time.Duration) error {
	var reused, answered atomic.Bool
	trace := &httptrace.ClientTrace{
		GotConn:              func(i httptrace.GotConnInfo) { reused.Store(i.Reused) },
		GotFirstResponseByte: func() { answered.Store(true) }, // the server has it: never again
	}
	err := c.send(httptrace.WithClientTrace(ctx, trace), msg, &trickle{ctx: ctx, rest: msg, chunk: max(chunk, 1), pause: pause}, time.Time{})
	if err != nil && reused.Load() && !answered.Load() && ctx.Err() == nil && !c.isClosing() && keptClosed(err) {
		err = c.send(ctx, msg, &trickle{ctx: ctx, rest: msg, chunk: max(chunk, 1), pause: pause}, time.Time{})
	}
	return err
}

// keptClosed reports whether a POST through net/http failed as one on a
// kept-alive connection the server closed does, before any answer: the
// end of the connection read (EOF), a reset or broken pipe as the body
// was written, net/http's own close of it on seeing that, or its "server
// closed idle connection". Not io.ErrUnexpectedEOF: net/http gives it
// for an answer cut short, once the server had the whole request, and
// a POST it had must not be sent twice (SendSlow also checks that no
// byte of an answer came, as closedUnanswered does for the lean client).
func keptClosed(err error) bool {
	var re *requestError
	if !errors.As(err, &re) {
		return false // an answer came (an HTTP error), or no request went
	}
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed) || strings.Contains(err.Error(), "server closed idle connection")
}

// trickle reads its bytes out a chunk at a time, pausing before each
// chunk but the first.
type trickle struct {
	ctx     context.Context
	rest    []byte
	chunk   int
	pause   time.Duration
	started bool
}

func (t *trickle) Read(p []byte) (int, error) {
	if len(t.rest) == 0 {
		return 0, io.EOF
	}
	if t.started {
		select {
		case <-time.After(t.pause):
		case <-t.ctx.Done():
			return 0, t.ctx.Err()
		}
	}
	t.started = true
	n := copy(p, t.rest[:min(t.chunk, len(t.rest))])
	t.rest = t.rest[n:]
	return n, nil
}

// postStd is post through c.client (net/http).
func (c *HTTPConn) postStd(ctx context.Context, msg []byte, body io.Reader, mi msgInfo) (*http.Response, context.CancelFunc, error) {
	reqCtx, reqCancel := context.WithCancel(c.ctx)
	if tr := httptrace.ContextClientTrace(ctx); tr != nil { // SendSlow's: which connection it went on
		reqCtx = httptrace.WithClientTrace(reqCtx, tr)
	}
	req, err := c.newRequest(reqCtx, http.MethodPost, body, mi.method == mcp.MethodInitialize)
	if err != nil {
		reqCancel()
		return nil, nil, err
	}
	req.ContentLength = int64(len(msg))
	req.Header["Content-Type"] = postContentType
	req.Header["Accept"] = postAccept
	for k, vs := range c.standardHeaders(msg) {
		req.Header[k] = vs
	}
	if mi.method == mcp.NotificationInitialized {
		c.awaitGET(ctx, time.Time{}) // post bounded ctx by the send's deadline
	}
	stop := context.AfterFunc(ctx, reqCancel)
	resp, err := c.client.Do(req)
	if !stop() { // ctx ended before the headers came
		if err == nil {
			_ = resp.Body.Close()
		}
		reqCancel()
		return nil, nil, fmt.Errorf("POST %s: %w", c.url, ctx.Err())
	}
	if err != nil {
		reqCancel()
		if c.isClosing() {
			return nil, nil, ErrClosed
		}
		return nil, nil, requestFailed(http.MethodPost, c.url, err)
	}
	return resp, reqCancel, nil
}
