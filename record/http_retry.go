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
// byte of an answer came is sent once more, on a new connection. An HTTP
// server closes a connection idle for its keep-alive timeout (Node's and
// uvicorn's: 5 s) whether or not a request is on its way; one sent as it
// closes is never read. Go's http.Transport sends again only requests it
// deems idempotent, never a client's POST. A request whose body the
// proxy does not hold whole (over the message limit) is not sent again.
type retryReused struct{ rt http.RoundTripper }

func (t retryReused) RoundTrip(r *http.Request) (*http.Response, error) {
	var reused, answered atomic.Bool // set by the transport's goroutines
	trace := &httptrace.ClientTrace{
		GotConn:              func(i httptrace.GotConnInfo) { reused.Store(i.Reused) },
		GotFirstResponseByte: func() { answered.Store(true) },
	}
	resp, err := t.rt.RoundTrip(r.WithContext(httptrace.WithClientTrace(r.Context(), trace)))
	if err == nil || !reused.Load() || answered.Load() || r.Context().Err() != nil {
		return resp, err
	}
	again := r.Clone(r.Context())
	if r.Body != nil && r.Body != http.NoBody {
		if r.GetBody == nil {
			return resp, err
		}
		body, gerr := r.GetBody()
		if gerr != nil {
			return resp, err
		}
		again.Body = body
	}
	return t.rt.RoundTrip(again)
}

// bodyAgain is a GetBody for a request body the proxy holds whole.
func bodyAgain(b []byte) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
}
