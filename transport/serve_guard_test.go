package transport

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestListenerBeyondLoopbackChecksOrigin: a listener reached on an
// address beyond loopback (bound to 0.0.0.0, reached at 192.0.2.10)
// still refuses a browser Origin nobody allowed, and a Host that is not
// the address itself. The address is only named in the request's
// context: nothing listens on it.
func TestListenerBeyondLoopbackChecksOrigin(t *testing.T) {
	mux := NewMux(&fakeServer{})
	t.Cleanup(func() { _ = mux.Close() })
	local := &net.TCPAddr{IP: net.ParseIP("192.0.2.10"), Port: 8080}
	for _, c := range []struct {
		path, host, origin string
		want               int
	}{
		{"/mcp", "192.0.2.10:8080", "http://evil.example", http.StatusForbidden},
		{"/mcp", "evil.example:8080", "", http.StatusForbidden},
		{"/sse", "192.0.2.10:8080", "http://evil.example", http.StatusForbidden},
		{"/mcp", "192.0.2.10:8080", "", http.StatusOK},
		{"/mcp", "192.0.2.10:8080", "http://192.0.2.10:8080", http.StatusOK},
	} {
		ctx, cancel := context.WithCancel(context.WithValue(t.Context(), http.LocalAddrContextKey, local))
		method, body := http.MethodPost, initBody
		if c.path == "/sse" {
			method, body = http.MethodGet, ""
		}
		req := httptest.NewRequestWithContext(ctx, method, "http://"+c.host+c.path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, req)
		cancel()
		if w.Code != c.want {
			t.Errorf("%s %s on %s with Host %q, Origin %q: %d %s, want %d", method, c.path, local, c.host, c.origin, w.Code, w.Body, c.want)
		}
	}
}
