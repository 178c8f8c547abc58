package slowmcp

import (
	"context"
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
	// HangEndless begins the tools/call answer and never ends it: a stdout
	// line without its newline, or (HTTP) a JSON body, of EndlessBytes of
	// text, written until the client stops reading.
	HangEndless Hang = "endless"
	// HangGzipBomb (HTTP) answers tools/call with a gzip body of about
	// 1 MiB that unpacks to a JSON answer of BombBytes.
	HangGzipBomb Hang = "gzip-bomb"
	// HangSSEEndless (HTTP) answers tools/call with an event stream whose
	// one data line never ends (EndlessBytes of text).
	HangSSEEndless Hang = "sse-endless"
	// HangSilent (stdio) reads every tools/call and never answers it,
	// as a server that lost a request, or waits on something that never
	// comes; every other request is answered, and the server exits when
	// its input ends, as usual.
	HangSilent Hang = "silent"
)

// EndlessBytes is how much text the endless modes write at most: far more
// than a client should read of one message.
const EndlessBytes = 4 << 30

// BombBytes is what HangGzipBomb's body unpacks to.
const BombBytes = 1 << 30

// FloodRequests is how many requests HangNoRead writes; their ids are
// "srv-1" to "srv-2000".
const FloodRequests = 2000

// RetryAfter is the Retry-After header Hang429 answers: far beyond any
// test, so a client that honours it blindly is seen to hang.
const RetryAfter = "100000"

// ParseHang reads a -hang flag value.
func ParseHang(s string) (Hang, error) {
	switch h := Hang(s); h {
	case HangNone, HangHeaders, HangNoRead, Hang429, HangEndless, HangGzipBomb, HangSSEEndless, HangSilent:
		return h, nil
	case "":
		return HangNone, nil
	}
	return "", fmt.Errorf("unknown hang mode %q: want none, headers (HTTP), noread (stdio), 429 (HTTP), endless, gzip-bomb (HTTP), sse-endless (HTTP) or silent (stdio)", s)
}

// Option configures a Handler or Serve.
type Option func(*config)

// WithDelay answers every tools/call after d; other requests are answered
// at once. Requests are delayed independently: concurrent requests are
// answered concurrently, not one after the other.
func WithDelay(d time.Duration) Option { return func(c *config) { c.delay = d } }

// WithInitDelay answers initialize after d (a server slow to get ready),
// in its own goroutine over stdio, so what comes after it is read (and
// logged) at once.
func WithInitDelay(d time.Duration) Option { return func(c *config) { c.initDelay = d } }

// WithAsk makes the stdio server send the client a request of method
// (roots/list, sampling/createMessage, …) d after each
// notifications/initialized, as server-everything asks roots/list 350 ms
// after it; the ids are "ask-1", "ask-2", …. The client's answer is logged
// as a "response" arrival. Over HTTP (no stream for it) it is ignored.
func WithAsk(method string, d time.Duration) Option {
	return func(c *config) { c.askMethod, c.askAfter = method, d }
}

// WithHang makes the server misbehave on tools/call (or, for HangNoRead,
// after initialize). A mode of the other transport is ignored.
func WithHang(h Hang) Option { return func(c *config) { c.hang = h } }

// WithArrivals writes one line to w per message received, as it is read
// and before any delay: "<unix nanoseconds> <method> <id>\n", where method
// is "response" for a response and "invalid" for what is not a message
// (spaces and control characters in a method become "_"), and id is the id's JSON text (strings quoted) or "-" when there is none.
// Over HTTP, served on a listener of rxstamp.Listen with rxstamp.WithConn
// as its ConnContext (the slow command's -rx), a fourth field
// "rx=<unix nanoseconds>" is the kernel's receive time of the request
// (rxstamp): when it reached the server, before the server's own
// wake-up and scheduling.
// Each line is one Write; writes are serialized, so an *os.File opened
// with O_APPEND can be shared with other writers.
func WithArrivals(w io.Writer) Option {
	return func(c *config) { c.arrivals = &arrivals{w: w} }
}

// WithGate holds every tools/call until the file at path holds n or more
// tools/call arrival lines (see WithArrivals; servers that append to the
// same file count together), then delays it as usual. No call is answered
// before the nth arrives, so a client that waits for one answer before it
// sends another call on any other session never gets one: a test of
// concurrent sessions asserts they were all in flight at once by giving
// each server the same file, n the number of sessions, and a generous
// timeout. The file is polled every GatePoll until the gate opens; it
// stays open. Over stdio a held call is dropped when the input ends. The
// gate holds what the delay holds (WithDelay).
func WithGate(path string, n int) Option {
	return func(c *config) { c.gate = &gate{path: path, n: n} }
}

// WithCancel has the stdio server honour the client's
// notifications/cancelled as MCP says a receiver SHOULD (and the
// TypeScript SDK's server does): a delayed answer (tools/call after
// WithDelay, initialize after WithInitDelay) whose request the client
// cancels before it is written is never written. initialize included,
// which a client MUST NOT cancel: the server a misbehaving client meets.
// Calls in flight with one id (a client reusing it) are each answered,
// and a cancel of that id cancels every one still due.
func WithCancel() Option { return func(c *config) { c.cancel = true } }

// WithAnswerSize makes every tools/call answer a text of n bytes ("x"
// repeated) instead of arguments.text: a valid answer, as large as asked.
// 0 leaves the answers as they are.
func WithAnswerSize(n int) Option { return func(c *config) { c.answerSize = n } }

type config struct {
	delay      time.Duration
	initDelay  time.Duration
	askMethod  string // "": never ask
	askAfter   time.Duration
	hang       Hang
	cancel     bool      // honour notifications/cancelled (stdio)
	answerSize int       // 0: answer arguments.text
	arrivals   *arrivals // nil: not recorded
	gate       *gate     // nil: calls are not held
}

// delayFor is how long the answer to m waits.
func (c config) delayFor(m Message) time.Duration {
	switch {
	case Delayed(m):
		return c.delay
	case m.Kind == Request && m.Method == "initialize":
		return c.initDelay
	}
	return 0
}

// held reports whether m waits for the gate (WithGate).
func (c *config) held(m Message) bool { return c.gate != nil && Delayed(m) }

// pass waits for the gate if m is held by it, and reports false if ctx
// ended first.
func (c *config) pass(ctx context.Context, m Message) bool {
	return !c.held(m) || c.gate.wait(ctx)
}

// sized reports whether the answer to m is the text of answerSize bytes
// (see writeSized), not Answer's.
func (c *config) sized(m Message) bool { return c.answerSize > 0 && Delayed(m) }

func newConfig(opts []Option) config {
	c := config{hang: HangNone}
	for _, o := range opts {
		o(&c)
	}
	return c
}
