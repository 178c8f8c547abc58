package transport

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// DefaultMaxConnsPerHost is the idle pool per host of DefaultClient: as
// many sessions as a typical load replay runs at once.
const DefaultMaxConnsPerHost = 64

// NewClient returns an HTTP client for replays: keep-alive, dial and TLS
// timeouts of 10s, no overall or response-header timeout (SSE answers can
// last as long as the tool call; contexts bound them), and an idle pool
// of maxIdlePerHost connections per host (sized to the number of
// concurrent sessions; <= 0 means DefaultMaxConnsPerHost).
func NewClient(maxIdlePerHost int) *http.Client {
	if maxIdlePerHost <= 0 {
		maxIdlePerHost = DefaultMaxConnsPerHost
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConns:          4 * maxIdlePerHost,
		MaxIdleConnsPerHost:   maxIdlePerHost,
	}}
}

var defaultClient = sync.OnceValue(func() *http.Client { return NewClient(0) })

// DefaultClient is the client HTTP and LegacySSE use when theirs is nil,
// shared by all their connections.
func DefaultClient() *http.Client { return defaultClient() }
