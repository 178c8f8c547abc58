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
// byte of an answer came is sent again, until it fails on a new
// connection or is answered (each failed connection is gone from the
// pool, so it ends). An HTTP server closes a connection idle for its
// keep-alive timeout (Node 20's: about 6 s) whether or not a
// request is on its way; one sent as it closes is never read, and many
// idle connections may be closing at once. Go's http.Transport sends
// again only requests it deems idempotent, never a client's POST. A
// request whose body the proxy does not hold whole (over the message
// limit) is not sent again.
type retryReused struct{ rt http.RoundTripper }

func (t retryReused) RoundTrip(r *http.Request) (*http.Response, error) {
	for {
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
		r = next
	}
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
