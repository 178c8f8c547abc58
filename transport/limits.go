package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/replayctl/replayctl/mcp"
)

// The limits a listener keeps against clients that send too much or too
// slowly: see BodyGuard, ConnLimiter, MaxBatch and Clip.

// DefaultBodyTimeout is how long a client has to send a request's whole
// body (BodyReadTimeout): a body still arriving then is cut with 408.
const DefaultBodyTimeout = 10 * time.Second

// DefaultBodyBudget is how many bytes of request bodies a listener holds
// at once, over all its connections (BodyBudget): four messages of the
// default size. A body that would take more is refused with 503.
const DefaultBodyBudget = 64 << 20

// DefaultMaxBatch is the most messages one JSON-RPC batch may hold
// (MaxBatch): a longer batch is answered with one error.
const DefaultMaxBatch = 1000

// BodyReadTimeout sets how long a client of an HTTP listener (Mux) has
// to send a request's whole body, from the end of its headers; a body
// not whole by then is answered 408 and the connection closed. 0 or less
// means DefaultBodyTimeout.
func BodyReadTimeout(d time.Duration) ServerOption {
	return func(c *serverConfig) { c.bodyTimeout = d }
}

// BodyBudget sets how many bytes of request bodies an HTTP listener
// (Mux) holds at once, over all its connections; a body that would take
// it over is answered 503 with Retry-After. It is raised to one message
// (ServerMaxMessage) if below. 0 or less means DefaultBodyBudget.
func BodyBudget(n int64) ServerOption {
	return func(c *serverConfig) { c.bodyBudget = n }
}

// MaxBatch bounds the messages of one JSON-RPC batch a listener takes
// (a POST, a stdio line); a longer batch is answered with one error
// (-32600), none of it handled. 0 or less means DefaultMaxBatch.
func MaxBatch(n int) ServerOption {
	return func(c *serverConfig) { c.maxBatch = n }
}

// BodyGuard is an http.Handler that reads each request's body ahead of
// the handler it wraps, within three bounds: the body must arrive within
// the read timeout (else 408), one body is read at most to its limit
// plus one byte (the rest is left to the handler, which sees the first
// limit+1 bytes again), and all the bodies being held at once, over
// every connection, stay within the budget (else 503 with Retry-After).
// A body is held in memory as it arrives, never sized by what its
// Content-Length announces. What was read stays counted in the budget
// until the wrapped handler returns. The wrapped handler finds the body
// in r.Body (and, whole, in BufferedBody).
//
// A BodyGuard is safe for concurrent use.
type BodyGuard struct {
	next    http.Handler
	limit   int           // one body: read ahead at most limit+1 bytes
	timeout time.Duration // the whole body's; 0: none
	budget  int64

	mu   sync.Mutex // guards held and peak
	held int64      // bytes of bodies held now
	peak int64      // the most ever held
}

// NewBodyGuard returns a BodyGuard in front of next; limit is the
// longest message (0 or less: DefaultMaxMessage), timeout and budget as
// BodyReadTimeout and BodyBudget say (0 or less: their defaults).
func NewBodyGuard(next http.Handler, limit int, timeout time.Duration, budget int64) *BodyGuard {
	limit = limitOf(limit)
	if timeout <= 0 {
		timeout = DefaultBodyTimeout
	}
	if budget <= 0 {
		budget = DefaultBodyBudget
	}
	return &BodyGuard{next: next, limit: limit, timeout: timeout, budget: max(budget, int64(limit)+1)}
}

// Held is how many bytes of request bodies the guard holds now.
func (g *BodyGuard) Held() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.held
}

// Peak is the most bytes of request bodies the guard ever held at once.
func (g *BodyGuard) Peak() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.peak
}

// take reserves n bytes of the budget; false when they would take it
// over.
func (g *BodyGuard) take(n int64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held+n > g.budget {
		return false
	}
	g.held += n
	g.peak = max(g.peak, g.held)
	return true
}

func (g *BodyGuard) give(n int64) {
	g.mu.Lock()
	g.held -= n
	g.mu.Unlock()
}

// errOverBudget is a body refused because the budget is spent.
var errOverBudget = errors.New("over the budget")

type bufferedKey struct{}

// buffered is a body a BodyGuard read ahead.
type buffered struct {
	b    []byte // the body, or its first limit+1 bytes
	over bool   // longer than the limit
}

// BufferedBody returns the body of r a BodyGuard read (ok): whole, or
// only its first limit+1 bytes when over its limit (the rest is still
// to be read from r.Body, which gives those bytes first).
func BufferedBody(r *http.Request) (body []byte, over, ok bool) {
	b, ok := r.Context().Value(bufferedKey{}).(*buffered)
	if !ok {
		return nil, false, false
	}
	return b.b, b.over, true
}

// ServeHTTP reads r's body (see BodyGuard), then hands r to the wrapped
// handler.
func (g *BodyGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		g.next.ServeHTTP(w, r)
		return
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(g.timeout)) // ErrNotSupported (a test recorder): no timeout
	tc := trackedOf(r.Context())
	tc.setState(connBody)
	buf, counted, over, err := g.read(r.Body)
	defer g.give(counted)
	switch {
	case errors.Is(err, errOverBudget):
		w.Header().Set("Retry-After", "1")
		w.Header().Set("Connection", "close")
		writeError(w, http.StatusServiceUnavailable, nil, mcp.CodeInternal, fmt.Sprintf(
			"Service Unavailable: the server holds %s of request bodies at once, its limit (--body-budget); retry shortly", SizeString(int(g.budget))))
		return
	case errors.Is(err, os.ErrDeadlineExceeded):
		w.Header().Set("Connection", "close")
		writeError(w, http.StatusRequestTimeout, nil, mcp.CodeInvalidRequest,
			"Request Timeout: the body did not arrive within "+g.timeout.String()+" (--body-timeout)")
		return
	case err != nil:
		writeError(w, http.StatusBadRequest, nil, mcp.CodeParseError, "Bad Request: reading the body: "+err.Error())
		return
	}
	tc.setState(connServing)
	b := &buffered{b: buf, over: over}
	if over {
		// The rest is the handler's to read (a proxy relays it), still
		// within the deadline, cleared at its end.
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(buf), &clearAtEnd{r: r.Body, rc: rc}), r.Body}
	} else {
		_ = rc.SetReadDeadline(time.Time{})
		r.Body = io.NopCloser(bytes.NewReader(buf))
		r.ContentLength = int64(len(buf))
	}
	g.next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), bufferedKey{}, b)))
}

// bodyChunk is the size of the pieces a BodyGuard reads a body into.
const bodyChunk = 64 << 10

// chunks are the pieces bodies are read into, kept for the next body:
// a body refused half way, or copied whole once read, leaves no garbage
// behind it, so that many clients sending at once cost the budget and
// not the collector's lag on top (doubling a buffer as bytes arrive
// left as much garbage as it kept).
var chunks = sync.Pool{New: func() any { return new([bodyChunk]byte) }}

// read reads body to its end or to limit+1 bytes, into pooled chunks
// taken from the budget one at a time as bytes arrive (never sized by
// a Content-Length announces), then copies what it read into one slice
// of its length. counted is what it took from the budget, at least
// len(buf), on errors too: the caller gives it back when done with buf.
// It reads no byte past limit+1, which stay in body.
func (g *BodyGuard) read(body io.Reader) (buf []byte, counted int64, over bool, err error) {
	var parts []*[bodyChunk]byte
	defer func() {
		for _, c := range parts {
			chunks.Put(c)
		}
	}()
	n := 0 // bytes read
	for n <= g.limit && err == nil {
		if n == len(parts)*bodyChunk {
			if !g.take(bodyChunk) {
				return nil, counted, false, errOverBudget
			}
			counted += bodyChunk
			parts = append(parts, chunks.Get().(*[bodyChunk]byte))
		}
		at := n % bodyChunk
		end := min(bodyChunk, at+g.limit+1-n) // never past limit+1 in all: the rest is the handler's
		var m int
		m, err = body.Read(parts[len(parts)-1][at:end])
		n += m
	}
	if err != nil && err != io.EOF {
		return nil, counted, false, err
	}
	over = n > g.limit
	if over {
		n = g.limit + 1
	}
	buf = make([]byte, n)
	for i, c := range parts {
		copy(buf[i*bodyChunk:], c[:])
	}
	return buf, counted, over, nil
}

// clearAtEnd reads the rest of a body over the limit and clears the
// connection's read deadline at its end.
type clearAtEnd struct {
	r    io.Reader
	rc   *http.ResponseController
	once sync.Once
}

func (c *clearAtEnd) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err == io.EOF {
		c.once.Do(func() { _ = c.rc.SetReadDeadline(time.Time{}) })
	}
	return n, err
}

// readBody is a listener's read of a POST body: the one a BodyGuard read
// whole, else r.Body read to its end or to limit+1 bytes (over).
func readBody(r *http.Request, limit int) (b []byte, over bool, err error) {
	if b, ok := r.Context().Value(bufferedKey{}).(*buffered); ok {
		if b.over || len(b.b) > limit {
			return nil, true, nil
		}
		return b.b, false, nil
	}
	return readAtMost(r.Body, limit, r.ContentLength)
}

// batchTooLong answers a batch of n messages over the limit with one
// JSON-RPC error, and reports whether it did.
func batchTooLong(n, limit int) []byte {
	if n <= limit {
		return nil
	}
	return errorBody(nil, mcp.CodeInvalidRequest, fmt.Sprintf(
		"Invalid Request: a batch of %d messages; the limit is %d (--max-batch): send fewer at once", n, limit))
}

// ClipLimit is how much of a client's value (a method name, an id, a
// params member) an error message or a log line repeats: longer ones are
// cut (Clip).
const ClipLimit = 256

// Clip returns s whole when it is at most ClipLimit bytes, else its first
// ClipLimit bytes (cut at a UTF-8 character boundary) followed by
// "… (N bytes)", N its length: a client's value repeated in an error or a
// log line stays short whatever the client sent.
func Clip(s string) string {
	if len(s) <= ClipLimit {
		return s
	}
	cut := ClipLimit
	for cut > 0 && s[cut]&0xC0 == 0x80 { // not inside a character
		cut--
	}
	return s[:cut] + "… (" + strconv.Itoa(len(s)) + " bytes)"
}
