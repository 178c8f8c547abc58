package slowmcp

import (
	"fmt"
	"io"
	"time"
)

// Hang is a way for the server to misbehave on tools/call.
type Hang string

const (
	// HangNone answers every request.
	HangNone Hang = "none"
	// HangHeaders (HTTP) never writes response headers for tools/call: the
	// handler blocks until the client goes away.
	HangHeaders Hang = "headers"
	// HangNoRead (stdio) answers initialize, then writes FloodRequests
	// sampling/createMessage requests of about 1 KB each and never reads
	// its input again, so a client's writes block once the pipe is full.
	HangNoRead Hang = "noread"
	// Hang429 (HTTP) answers tools/call with status 429 and a Retry-After
	// of RetryAfter seconds.
	Hang429 Hang = "429"
)

// FloodRequests is how many requests HangNoRead writes; their ids are
// "srv-1" to "srv-2000".
const FloodRequests = 2000

// RetryAfter is the Retry-After header Hang429 answers: far beyond any
// test, so a client that honours it blindly is seen to hang.
const RetryAfter = "100000"

// ParseHang reads a -hang flag value.
func ParseHang(s string) (Hang, error) {
	switch h := Hang(s); h {
	case HangNone, HangHeaders, HangNoRead, Hang429:
		return h, nil
	case "":
		return HangNone, nil
	}
	return "", fmt.Errorf("unknown hang mode %q: want none, headers (HTTP), noread (stdio) or 429 (HTTP)", s)
}

// Option configures a Handler or Serve.
type Option func(*config)

// WithDelay answers every tools/call after d; other requests are answered
// at once. Requests are delayed independently: concurrent requests are
// answered concurrently, not one after the other.
func WithDelay(d time.Duration) Option { return func(c *config) { c.delay = d } }

// WithHang makes the server misbehave on tools/call (or, for HangNoRead,
// after initialize). A mode of the other transport is ignored.
func WithHang(h Hang) Option { return func(c *config) { c.hang = h } }

// WithArrivals writes one line to w per message received, as it is read
// and before any delay: "<unix nanoseconds> <method> <id>\n", where method
// is "response" for a response and "invalid" for what is not a message
// (spaces and control characters in a method become "_"), and id is the id's JSON text (strings quoted) or "-" when there is none.
// Each line is one Write; writes are serialized, so an *os.File opened
// with O_APPEND can be shared with other writers.
func WithArrivals(w io.Writer) Option {
	return func(c *config) { c.arrivals = &arrivals{w: w} }
}

type config struct {
	delay    time.Duration
	hang     Hang
	arrivals *arrivals // nil: not recorded
}

func newConfig(opts []Option) config {
	c := config{hang: HangNone}
	for _, o := range opts {
		o(&c)
	}
	return c
}
