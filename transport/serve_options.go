package transport

import (
	"time"

	"github.com/rs/zerolog"
)

// The options of the listeners (StreamableHandler, LegacyHandler,
// ServeStdio, Mux).

// DefaultResumeWindow is how long a StreamableHandler keeps a POST's
// event stream for a client to resume (Last-Event-ID) after its
// connection dropped or after the stream ended, and how long the handling
// of a request goes on without a client attached to its stream.
const DefaultResumeWindow = 30 * time.Second

// ServerOption configures a listener (StreamableHandler, LegacyHandler,
// ServeStdio).
type ServerOption func(*serverConfig)

type serverConfig struct {
	maxMessage int
	guard      Guard // DNS rebinding protection
	log        zerolog.Logger
	window     time.Duration
	idle       time.Duration
	drain      time.Duration // stdio: how long the answers in hand may take once the input ends

	bodyTimeout time.Duration // see limits.go
	bodyBudget  int64
	maxBatch    int
}

func newServerConfig(opts []ServerOption) serverConfig {
	c := serverConfig{maxMessage: DefaultMaxMessage, log: zerolog.Nop(), window: DefaultResumeWindow, drain: DefaultDrain}
	for _, opt := range opts {
		opt(&c)
	}
	if c.maxBatch <= 0 {
		c.maxBatch = DefaultMaxBatch
	}
	return c
}

// DefaultDrain is how long ServeStdio lets the answers in hand take once the
// client has closed its input (StdioDrain).
const DefaultDrain = 10 * time.Second

// StdioDrain sets how long ServeStdio waits, once the client has closed its
// input, for the answers still being made (a recorded latency, a delay)
// before it cancels them and returns: a request that is never answered (a
// server that hangs, serve's missing fault) does not keep it from exiting.
// d <= 0 means DefaultDrain.
func StdioDrain(d time.Duration) ServerOption {
	return func(c *serverConfig) {
		if d > 0 {
			c.drain = d
		}
	}
}

// ServerMaxMessage bounds each message a client sends, in bytes (a POST
// body, a stdio line); 0 or less means DefaultMaxMessage. Over HTTP a
// longer body is answered 413, over stdio a longer line ends the session.
func ServerMaxMessage(n int) ServerOption {
	return func(c *serverConfig) { c.maxMessage = limitOf(n) }
}

// AllowOrigins lets browser pages from these origins ("http://app.test:8080";
// "*" any) reach a listener, besides those its Guard allows itself (loopback
// origins on a loopback listener, the address reached). A request with
// another Origin is answered 403 (DNS rebinding protection); a request
// without Origin (every client that is not a browser) is judged by its
// Host alone.
func AllowOrigins(origins ...string) ServerOption {
	return func(c *serverConfig) { c.guard.Origins = append(c.guard.Origins, origins...) }
}

// AllowHosts lets requests naming these hosts in their Host header
// ("mcp.lan" with any port, "mcp.lan:8080" that port only; "*" any) reach
// a listener, besides localhost, the loopback addresses and the address
// the request reached. A request with another Host is answered 403 (DNS
// rebinding protection): name here what clients call a server bound
// beyond loopback.
func AllowHosts(hosts ...string) ServerOption {
	return func(c *serverConfig) { c.guard.Hosts = append(c.guard.Hosts, hosts...) }
}

// ServerLogger is where a listener logs (errors a Session returned,
// clients that went away); the default logs nothing.
func ServerLogger(l zerolog.Logger) ServerOption {
	return func(c *serverConfig) { c.log = l }
}

// ResumeWindow sets how long a POST's stream stays resumable; 0 or less
// means DefaultResumeWindow.
func ResumeWindow(d time.Duration) ServerOption {
	return func(c *serverConfig) {
		if d <= 0 {
			d = DefaultResumeWindow
		}
		c.window = d
	}
}

// IdleTimeout closes a session of a StreamableHandler that has had no
// request in progress and no GET stream open for d, as if its client had
// sent DELETE (a client that went away without a word). 0, the default,
// keeps sessions until DELETE or Close.
func IdleTimeout(d time.Duration) ServerOption {
	return func(c *serverConfig) { c.idle = max(d, 0) }
}
