// An HTTPConn's POSTs through its lean client (see PosterLean): posting
// and waiting for the head (postLean), handing a request over without
// waiting (SendAsync, started), a redirect that sends every later POST
// through net/http (redirect), and the Request and the errors of a lean
// answer, as net/http's would carry them (leanRequest, leanErr).

package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/replayctl/replayctl/mcp"
)

var _ AsyncSender = (*HTTPConn)(nil)

// SendAsync is SendBy without holding its caller, for a request (not
// initialize) that the lean client can post at once on a connection it
// keeps idle: the connection's own goroutine writes it, reads the
// answer's head (and a JSON answer whole) and calls done with what
// SendBy would have returned. false, and done is never called, when it
// cannot: use SendBy.
func (c *HTTPConn) SendAsync(ctx context.Context, msg []byte, deadline time.Time, done func(error)) bool {
	if c.lean == nil || c.redirected.Load() || ctx.Err() != nil || c.isClosing() {
		return false
	}
	mi := inspect(msg)
	if mi.method == "" || mi.id == nil || mi.method == mcp.MethodInitialize {
		return false
	}
	k := c.leanCall(msg, mi)
	k.st = &stream{kind: "POST", method: mi.method, reqID: mi.id}
	k.done = done
	return c.lean.start(ctx, k, deadline)
}

// started takes the result of a call SendAsync handed to the lean
// client, on its connection's goroutine: done is called here when the
// answer was read whole, the POST failed, or a 2xx answer is left to
// read; an event stream is then read here too (readEventsHere), other
// bodies by readAnswer's goroutine, as after send. A refusal (its body
// to read), a redirect and a kept-alive connection to try again are
// taken on a goroutine of their own.
func (c *HTTPConn) started(k leanCall, r leanResult) {
	switch {
	case r.handled:
		k.done(nil)
		return
	case r.err != nil && !r.again:
		k.done(c.leanErr(k.ctx, r.err))
		return
	case r.resp != nil && r.resp.StatusCode < 300:
		r.resp.Request = c.leanRequest(k.sid)
		if hasEvents(r.resp) && !c.isClosing() {
			k.done(nil)
			c.readEventsHere(r.resp, k.st)
			return
		}
		k.done(c.answered(r.resp, noCancel, msgInfo{method: k.st.method, id: k.st.reqID}, k.st))
		return
	}
	c.startedLater(k, r)
}

// startedLater calls k.done with startedAnswer's error, on a goroutine
// of its own.
func (c *HTTPConn) startedLater(k leanCall, r leanResult) {
	if err := c.spawn(func() { k.done(c.startedAnswer(k, r)) }); err != nil {
		if r.resp != nil {
			_ = r.resp.Body.Close()
		}
		k.done(err)
	}
}

// startedAnswer is what send makes of a started call's answer (or, for
// again, of posting it once more).
func (c *HTTPConn) startedAnswer(k leanCall, r leanResult) error {
	if r.resp != nil && isRedirect(r.resp.StatusCode) {
		c.redirect(r.resp)
	}
	if r.resp == nil { // again: once more, and the last if the server saw it
		ctx := k.ctx
		if !errors.Is(r.err, errIdleEnded) {
			ctx = context.WithValue(ctx, sentOnceMore{}, true)
		}
		return c.send(ctx, k.msg, bytes.NewReader(k.msg), k.deadline)
	}
	if c.redirected.Load() {
		return c.send(k.ctx, k.msg, bytes.NewReader(k.msg), k.deadline)
	}
	r.resp.Request = c.leanRequest(k.sid)
	return c.answered(r.resp, noCancel, msgInfo{method: k.st.method, id: k.st.reqID}, k.st)
}

// redirect takes a redirect the lean client was answered: every POST
// goes through net/http from now on, which follows it.
func (c *HTTPConn) redirect(resp *http.Response) {
	discard(resp)
	c.redirected.Store(true)
	c.log.Debug().Int("status", resp.StatusCode).Msg("the target redirects: its POSTs go through net/http from here on")
}

// postLean is post through c.lean. The answer to all but initialize
// (whose session id is to be kept first) may be read whole on the
// connection's goroutine: then it reports true.
func (c *HTTPConn) postLean(ctx context.Context, msg []byte, mi msgInfo, st *stream, deadline time.Time) (*http.Response, bool, error) {
	k := c.leanCall(msg, mi)
	if mi.method == mcp.NotificationInitialized {
		c.awaitGET(ctx, deadline)
	}
	if !st.init {
		k.st = st
	}
	resp, handled, err := c.lean.post(ctx, k, deadline)
	switch {
	case handled:
		return nil, true, nil
	case err == nil:
		resp.Request = c.leanRequest(k.sid)
		return resp, false, nil
	}
	return nil, false, c.leanErr(ctx, err)
}

// leanCall is the lean client's call that posts msg (mi): its headers.
func (c *HTTPConn) leanCall(msg []byte, mi msgInfo) leanCall {
	c.mu.Lock()
	sid, pv := c.sessionID, c.protocolVersion
	sessionBased := pv != "" && c.stateless == ""
	c.mu.Unlock()
	if mi.method == mcp.MethodInitialize {
		sid, pv = "", ""
	}
	var std http.Header
	if !sessionBased { // else nothing to derive (see standardHeaders)
		std = c.derivedHeaders(msg)
	}
	return leanCall{msg: msg, sid: sid, pv: pv, std: std}
}

// leanErr is a failure of the lean client to post, as Send returns it.
func (c *HTTPConn) leanErr(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded):
		// ctx ended, or the request's own deadline passed (the
		// connection's, see socketDeadline), before the headers came.
		cause := ctx.Err()
		if cause == nil {
			cause = context.DeadlineExceeded
		}
		return fmt.Errorf("POST %s: %w", c.url, cause)
	case c.isClosing():
		return ErrClosed
	}
	return requestFailed(http.MethodPost, c.url, err)
}

// leanRequest is the Request of an answer lean gave to a POST that
// carried the session id sid ("" for none): what an error about the
// answer reads (its method, URL and session id).
func (c *HTTPConn) leanRequest(sid string) *http.Request {
	if r := c.leanReq.Load(); r != nil && headerFirst(r.Header, HeaderSessionID) == sid {
		return r
	}
	r := &http.Request{Method: http.MethodPost, Header: http.Header{}, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}
	r.URL, _ = url.Parse(c.url)
	if r.URL != nil {
		r.Host = r.URL.Host
	}
	if sid != "" {
		r.Header[HeaderSessionID] = []string{sid}
	}
	c.leanReq.Store(r)
	return r
}

// noCancel ends nothing: lean answers' requests have no context.
func noCancel() {}

func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}
