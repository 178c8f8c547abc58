package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
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
	u, err := checkURL(h.URL)
	if err != nil {
		return nil, err
	}
	pu, err := url.Parse(u)
	if err != nil {
		return nil, fmt.Errorf("target URL %q: %w", h.URL, err)
	}
	header, err := expandHeaders(h.Header)
	if err != nil {
		return nil, err
	}
	client := h.Client
	if client == nil {
		client = DefaultClient()
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

// Send POSTs msg. It returns once the answer's status and headers have
// arrived (or ctx is done); the answer's messages, JSON or an SSE stream,
// are then read by a goroutine and delivered on Incoming in order. A 4xx
// or 5xx answer is returned as *HTTPError; an unreachable server as an
// error wrapping ErrTarget. Sending notifications/initialized first opens
// the server's standalone GET stream, if it has one, and waits for the
// server to answer that GET (2s at most), so that what the server sends as
// it handles initialized reaches the stream.
func (c *HTTPConn) Send(ctx context.Context, msg []byte) error {
	return c.send(ctx, msg, bytes.NewReader(msg), time.Time{})
}

var _ DeadlineSender = (*HTTPConn)(nil)

// SendBy is Send bounded by deadline too. The lean client gives the
// deadline to its connection; net/http gets a context with it (see post).
func (c *HTTPConn) SendBy(ctx context.Context, msg []byte, deadline time.Time) error {
	return c.send(ctx, msg, bytes.NewReader(msg), deadline)
}

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
// read (an event stream: readAnswer's goroutine reads it, as after
// send); a refusal (its body to read), a redirect and a kept-alive
// connection to try again are taken on a goroutine of their own.
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
	if r.resp == nil || c.redirected.Load() {
		return c.send(k.ctx, k.msg, bytes.NewReader(k.msg), k.deadline)
	}
	r.resp.Request = c.leanRequest(k.sid)
	return c.answered(r.resp, noCancel, msgInfo{method: k.st.method, id: k.st.reqID}, k.st)
}

var (
	_ SlowSender       = (*HTTPConn)(nil)
	_ ConcurrentSender = (*HTTPConn)(nil)
)

// SendsConcurrently is true: Send may be called from several goroutines
// at once (requests are independent POSTs).
func (c *HTTPConn) SendsConcurrently() bool { return true }

// SendSlow posts msg with its body trickled in pieces of chunk bytes with
// pause between them, as a slow client would.
func (c *HTTPConn) SendSlow(ctx context.Context, msg []byte, chunk int, pause time.Duration) error {
	return c.send(ctx, msg, &trickle{ctx: ctx, rest: msg, chunk: max(chunk, 1), pause: pause}, time.Time{})
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
	resp, reqCancel, err := c.post(ctx, msg, body, mi, st, deadline)
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

// redirect takes a redirect the lean client was answered: every POST
// goes through net/http from now on, which follows it.
func (c *HTTPConn) redirect(resp *http.Response) {
	discard(resp)
	c.redirected.Store(true)
	c.log.Debug().Int("status", resp.StatusCode).Msg("the target redirects: its POSTs go through net/http from here on")
}

// postStd is post through c.client (net/http).
func (c *HTTPConn) postStd(ctx context.Context, msg []byte, body io.Reader, mi msgInfo) (*http.Response, context.CancelFunc, error) {
	reqCtx, reqCancel := context.WithCancel(c.ctx)
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
		c.awaitGET(ctx)
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

// postLean is post through c.lean. The answer to all but initialize
// (whose session id is to be kept first) may be read whole on the
// connection's goroutine: then it reports true.
func (c *HTTPConn) postLean(ctx context.Context, msg []byte, mi msgInfo, st *stream, deadline time.Time) (*http.Response, bool, error) {
	k := c.leanCall(msg, mi)
	if mi.method == mcp.NotificationInitialized {
		c.awaitGET(ctx)
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
