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

// ClientOption configures NewClient.
type ClientOption func(*clientConfig)

type clientConfig struct {
	followRedirects bool
}

// FollowRedirects lets the client follow a redirect to another origin
// (scheme, host and port) than the request's, which it refuses without
// it. Even then only the protocol's own headers go to the other origin
// (see Redirects).
func FollowRedirects() ClientOption { return func(c *clientConfig) { c.followRedirects = true } }

// NewClient returns an HTTP client for replays: keep-alive, dial and TLS
// timeouts of 10s, no overall or response-header timeout (SSE answers can
// last as long as the tool call; contexts bound them), an idle pool of
// maxIdlePerHost connections per host (sized to the number of concurrent
// sessions; <= 0 means DefaultMaxConnsPerHost), and the redirect policy
// of Redirects: a redirect to another origin fails the request (an error
// wrapping ErrRedirect) unless FollowRedirects is given.
func NewClient(maxIdlePerHost int, opts ...ClientOption) *http.Client {
	var cfg clientConfig
	for _, o := range opts {
		o(&cfg)
	}
	if maxIdlePerHost <= 0 {
		maxIdlePerHost = DefaultMaxConnsPerHost
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           dialer.DialContext,
			ForceAttemptHTTP2:     true,
			TLSHandshakeTimeout:   10 * time.Second,
			ExpectContinueTimeout: time.Second,
			IdleConnTimeout:       90 * time.Second,
			MaxIdleConns:          4 * maxIdlePerHost,
			MaxIdleConnsPerHost:   maxIdlePerHost,
		},
		CheckRedirect: Redirects(cfg.followRedirects),
	}
}

var defaultClient = sync.OnceValue(func() *http.Client { return NewClient(0) })

// DefaultClient is the client HTTP and LegacySSE use when theirs is nil,
// shared by all their connections. It follows no redirect to another
// origin.
func DefaultClient() *http.Client { return defaultClient() }
