package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// Handler dials Streamable HTTP sessions to an http.Handler in this
// process: each request of the connection is served by the handler's
// ServeHTTP in memory, with no port and no socket. All else is HTTP's
// connection (session ids, the standalone GET stream, resumption, DELETE
// on Close); only its http.Client is in memory.
//
// With the official Go SDK:
//
//	transport.Handler{Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)}
//
// The handler runs as under net/http, on a goroutine per request, and
// sees a request as a server does: RequestURI and the URL's path and
// query, Host from URL, RemoteAddr "127.0.0.1:0", the client's body as it
// is sent. The request's context is cancelled when the client gives the
// request up, when it closes the answer, and when ServeHTTP returns.
//
// The answer streams: its status and headers reach the client at the
// handler's WriteHeader, first Write or Flush (Content-Type sniffed, as
// net/http does, when the first Write comes before them), and each Write
// is readable at once; past 256 KiB unread a Write waits for the client,
// as on a socket. http.Flusher is supported. A panic fails the request
// with ErrHandlerPanic instead of crashing; http.ErrAbortHandler cuts the
// answer short, as net/http does. Not supported: trailers, Hijack, 1xx
// answers (skipped, as the client does), ResponseController deadlines.
type Handler struct {
	Handler http.Handler
	// URL is what the requests are sent to; "" means
	// http://in-process/mcp. Set its path when Handler is a mux.
	URL string
	// Header is sent on every request, expanded as HTTP's is.
	Header http.Header
	Logger zerolog.Logger
	// StopTimeout is how long closing an answer, or giving a request up,
	// waits for the handler to return after cancelling its request's
	// context; a handler that takes longer is left running, with a logged
	// warning. 0 means 2s.
	StopTimeout time.Duration
	// MaxMessage is HTTP's: the longest message the handler may send.
	MaxMessage int
}

var _ Dialer = Handler{}

const (
	inProcessURL        = "http://in-process/mcp"
	inProcessRemoteAddr = "127.0.0.1:0"
)

// Dial returns an HTTP connection (an *HTTPConn) whose requests go to the
// handler. It does no I/O; its errors are about the arguments.
func (h Handler) Dial(ctx context.Context, session string) (Conn, error) {
	if h.Handler == nil {
		return nil, errors.New("in-process HTTP target: no handler given")
	}
	stop := h.StopTimeout
	if stop <= 0 {
		stop = defaultStopTimeout
	}
	u := h.URL
	if u == "" {
		u = inProcessURL
	}
	log := h.Logger.With().Str("target", "in-process").Logger()
	rt := &handlerTransport{
		handler:     h.Handler,
		log:         log.With().Str("session", session).Logger(),
		stopTimeout: stop,
	}
	return HTTP{URL: u, Header: h.Header, Client: &http.Client{Transport: rt}, Logger: log, MaxMessage: h.MaxMessage}.Dial(ctx, session)
}

// handlerTransport is an http.RoundTripper that serves each request with
// a handler in this process.
type handlerTransport struct {
	handler     http.Handler
	log         zerolog.Logger
	stopTimeout time.Duration
}

// RoundTrip starts the handler on a goroutine of its own and returns when
// the handler has begun to answer (status and headers) or has returned,
// or when req's context is done. Closing the answer's body cancels the
// handler's request and waits (StopTimeout at most) for it to return.
func (t *handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, err
	}
	ctx, cancel := context.WithCancel(req.Context())
	x := &exchange{
		t:      t,
		req:    req,
		cancel: cancel,
		header: make(http.Header),
		body:   newMemPipe(),
		ready:  make(chan struct{}),
		done:   make(chan struct{}),
	}
	go x.serve(serverRequest(ctx, req))
	select {
	case <-x.ready:
	case <-req.Context().Done():
		x.abandon(req.Context().Err())
		return nil, req.Context().Err()
	}
	if x.err != nil {
		<-x.done // it has returned: the error is its panic
		return nil, x.err
	}
	x.stopAbort = context.AfterFunc(req.Context(), func() { x.body.closeRead(req.Context().Err()) })
	return x.resp, nil
}

// serverRequest is req as a server sees it, with ctx as its context.
func serverRequest(ctx context.Context, req *http.Request) *http.Request {
	r := req.Clone(ctx)
	r.URL = &url.URL{Path: req.URL.Path, RawPath: req.URL.RawPath, RawQuery: req.URL.RawQuery}
	r.RequestURI = req.URL.RequestURI()
	if r.Host == "" {
		r.Host = req.URL.Host
	}
	r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/1.1", 1, 1
	r.RemoteAddr = inProcessRemoteAddr
	r.Close, r.GetBody = false, nil
	switch {
	case r.Body == nil || r.Body == http.NoBody:
		r.Body, r.ContentLength = http.NoBody, 0
	case r.ContentLength == 0:
		r.ContentLength = -1 // unknown, as a client says it
	}
	return r
}

// exchange is one request to the handler and its answer. It is the
// handler's http.ResponseWriter.
type exchange struct {
	t      *handlerTransport
	req    *http.Request      // as the client sent it
	cancel context.CancelFunc // the handler's request context
	header http.Header        // the handler's, until the answer begins
	body   *memPipe

	// Set by the handler's goroutine.
	wroteHeader bool
	status      int

	ready chan struct{}  // closed when resp or err is set
	resp  *http.Response // the answer, once it has begun
	err   error          // the handler panicked before answering

	done      chan struct{} // closed when the handler has returned
	stopAbort func() bool   // unregisters the body's abort on req's context
}

var _ http.Flusher = (*exchange)(nil)

// serve runs the handler, then ends the answer.
func (x *exchange) serve(r *http.Request) {
	defer close(x.done)
	err := x.run(r)
	x.cancel() // as under net/http: the context ends with ServeHTTP
	if x.req.Body != nil {
		_ = x.req.Body.Close()
	}
	x.finish(err)
}

// run calls the handler and turns its panic into an error.
func (x *exchange) run(r *http.Request) (err error) {
	defer func() {
		v := recover()
		switch {
		case v == nil:
		case v == http.ErrAbortHandler:
			err = fmt.Errorf("in-process handler aborted its answer to %s %s: %w", r.Method, r.URL.Path, http.ErrAbortHandler)
		default:
			x.t.log.Error().Str("stack", string(debug.Stack())).Str("method", r.Method).Str("path", r.URL.Path).
				Msgf("in-process handler panicked: %v", v)
			err = fmt.Errorf("%w: %s %s: %v", ErrHandlerPanic, r.Method, r.URL.Path, v)
		}
	}()
	x.t.handler.ServeHTTP(x, r)
	return nil
}

// finish ends the answer when the handler has returned: an empty 200 if
// it wrote nothing, the error for a panic before it began.
func (x *exchange) finish(err error) {
	if !x.wroteHeader {
		if err != nil {
			x.err = err
			x.body.closeWrite(err)
			close(x.ready)
			return
		}
		x.wroteHeader, x.status = true, http.StatusOK
		x.begin(true)
	}
	if err == nil {
		err = io.EOF
	}
	x.body.closeWrite(err)
}

// Header is the answer's header map, as http.ResponseWriter's.
func (x *exchange) Header() http.Header { return x.header }

// WriteHeader begins the answer: the client gets its status and headers.
func (x *exchange) WriteHeader(code int) {
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("invalid WriteHeader code %v", code)) // as net/http
	}
	if x.wroteHeader {
		x.t.log.Debug().Int("code", code).Msg("superfluous WriteHeader call from the in-process handler")
		return
	}
	if code < 200 && code != http.StatusSwitchingProtocols {
		return // informational: the client skips it
	}
	x.wroteHeader, x.status = true, code
	x.begin(false)
}

// Write adds p to the answer, readable by the client at once. It waits
// while 256 KiB are unread, and fails once the client has gone.
func (x *exchange) Write(p []byte) (int, error) {
	if !x.wroteHeader {
		if _, ok := x.header["Content-Type"]; !ok && len(p) > 0 {
			x.header.Set("Content-Type", http.DetectContentType(p))
		}
		x.WriteHeader(http.StatusOK)
	}
	if !bodyAllowed(x.status) {
		return 0, http.ErrBodyNotAllowed
	}
	if x.req.Method == http.MethodHead {
		return len(p), nil
	}
	return x.body.Write(p)
}

// Flush begins the answer if it has not begun; what was written is
// readable already.
func (x *exchange) Flush() {
	if !x.wroteHeader {
		x.WriteHeader(http.StatusOK)
	}
}

// begin hands the client the answer: status, a copy of the headers, and
// the body to come (empty when the handler has finished).
func (x *exchange) begin(finished bool) {
	n := int64(-1)
	if v := x.header.Get("Content-Length"); v != "" {
		if cl, err := strconv.ParseInt(v, 10, 64); err == nil && cl >= 0 {
			n = cl
		}
	}
	if finished || !bodyAllowed(x.status) || x.req.Method == http.MethodHead {
		n = 0
	}
	x.resp = &http.Response{
		Status:        strconv.Itoa(x.status) + " " + http.StatusText(x.status),
		StatusCode:    x.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        x.header.Clone(),
		Body:          &answerBody{x: x},
		ContentLength: n,
		Request:       x.req,
	}
	close(x.ready)
}

func bodyAllowed(status int) bool {
	return status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified
}

// errBodyClosed is a Read of an answer after its Close, in net/http's words.
var errBodyClosed = errors.New("http: read on closed response body")

// answerBody is the body of an answer as the client reads it.
type answerBody struct {
	x    *exchange
	once sync.Once
}

func (b *answerBody) Read(p []byte) (int, error) { return b.x.body.Read(p) }

// Close cancels the handler's request and waits for it to return.
func (b *answerBody) Close() error {
	b.once.Do(func() {
		b.x.stopAbort()
		b.x.abandon(errBodyClosed)
	})
	return nil
}

// abandon gives the answer up: reads fail with err, the handler's writes
// fail, its request context is cancelled; then it waits, StopTimeout at
// most, for the handler to return.
func (x *exchange) abandon(err error) {
	x.body.closeRead(err)
	x.cancel()
	t := time.NewTimer(x.t.stopTimeout)
	defer t.Stop()
	select {
	case <-x.done:
	case <-t.C:
		x.t.log.Warn().Str("method", x.req.Method).Str("path", x.req.URL.Path).Dur("after", x.t.stopTimeout).
			Msg("in-process handler has not returned since its request was cancelled; left running")
	}
}
