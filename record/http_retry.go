package record

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
)

// retryReused is the proxy's upstream RoundTripper around the one it was
// given: a request that failed on a kept-alive connection before any
// byte of an answer came is sent again, once, on a new connection (the
// idle ones, which the upstream may be closing too, are closed first).
// An HTTP server closes a connection idle for its keep-alive timeout
// (Node 20's: about 6 s) whether or not a request is on its way; one
// sent as it closes is never read, and many idle connections may be
// closing at once. Go's http.Transport sends a client's POST again only
// when none of it was written (the proxy gives it GetBody), not when the
// connection failed after the request went out. A request that fails again,
// one that failed after the first byte of an answer (the upstream may
// have acted on it), and one whose body the proxy does not hold whole
// (over the message limit) are not sent again: the client gets 502.
type retryReused struct{ rt http.RoundTripper }

func (t retryReused) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, again, err := t.try(r)
	if !again {
		return resp, err
	}
	next := r.Clone(r.Context())
	if r.Body != nil && r.Body != http.NoBody {
		if r.GetBody == nil {
			return resp, err
		}
		body, gerr := r.GetBody()
		if gerr != nil {
			return resp, err
		}
		next.Body = body
	}
	// The idle connections are those the upstream may be closing: the
	// one resend goes on a new connection (or one a request has just
	// given back, alive).
	if c, ok := t.rt.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
	resp, _, err = t.try(next)
	return resp, err
}

// try sends r once; again says it failed on a kept-alive connection
// before any byte of an answer, while r's context is live.
func (t retryReused) try(r *http.Request) (resp *http.Response, again bool, err error) {
	var reused, answered atomic.Bool // set by the transport's goroutines
	trace := &httptrace.ClientTrace{
		GotConn:              func(i httptrace.GotConnInfo) { reused.Store(i.Reused) },
		GotFirstResponseByte: func() { answered.Store(true) },
	}
	resp, err = t.rt.RoundTrip(r.WithContext(httptrace.WithClientTrace(r.Context(), trace)))
	return resp, err != nil && reused.Load() && !answered.Load() && r.Context().Err() == nil, err
}

// bodyAgain is a GetBody for a request body the proxy holds whole.
func bodyAgain(b []byte) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
}
