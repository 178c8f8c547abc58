package slowmcp

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/replayctl/replayctl/internal/testserver/rxstamp"
)

// MaxBody is the largest request body the HTTP handler reads.
const MaxBody = 16 << 20

// Handler is a stateless Streamable HTTP endpoint at every path it is
// mounted on. POST a JSON-RPC message: a request is answered 200 with
// Content-Type application/json and the single answer; a notification or
// a response is answered 202 with no body; input that is not a message is
// answered 400 with a JSON-RPC error of id null. No Mcp-Session-Id is
// required or given, so a tools/call needs no handshake. GET and DELETE
// are answered 405: there is no SSE stream and no session.
//
// A tools/call is answered after the delay (the handler sleeps; it returns
// early when the client goes away). HangHeaders blocks the handler until
// the client goes away; Hang429 answers 429 with Retry-After;
// HangEndless, HangGzipBomb and HangSSEEndless send more than any client
// should read.
func Handler(opts ...Option) http.Handler {
	return &handler{c: newConfig(opts)}
}

type handler struct{ c config }

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		rxstamp.Take(r.Context()) // every request takes its stamp, logged or not

		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "slow: POST a JSON-RPC message; this stateless server has no SSE stream and no session", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	// Taken once the body is read, so that no read of this request is
	// left to stamp the next one: the first bytes' stamp is kept.
	rx, _ := rxstamp.Take(r.Context())
	if err != nil {
		status := http.StatusBadRequest
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			status = http.StatusRequestEntityTooLarge
		}
		http.Error(w, "slow: read body: "+err.Error(), status)
		return
	}
	m := Parse(body)
	h.c.arrivals.record(time.Now(), rx, m)
	switch m.Kind {
	case Notification, Response:
		w.WriteHeader(http.StatusAccepted)
		return
	case Invalid:
		writeJSON(w, http.StatusBadRequest, Answer(m))
		return
	}
	if m.Method == "initialize" && !sleep(r.Context(), h.c.initDelay) {
		return
	}
	if Delayed(m) {
		switch h.c.hang {
		case HangHeaders:
			<-r.Context().Done()
			return
		case Hang429:
			w.Header().Set("Retry-After", RetryAfter)
			http.Error(w, "slow: too many requests (-hang 429)", http.StatusTooManyRequests)
			return
		case HangEndless, HangGzipBomb, HangSSEEndless:
			serveHuge(w, m, h.c.hang)
			return
		}
		if !h.c.pass(r.Context(), m) || !sleep(r.Context(), h.c.delay) {
			return
		}
	}
	if h.c.sized(m) {
		w.Header().Set("Content-Type", "application/json")
		_ = writeSized(w, m.ID, h.c.answerSize, "")
		return
	}
	writeJSON(w, http.StatusOK, Answer(m))
}

// Mux is the slow server's HTTP routes: h at /mcp, nothing elsewhere
// (net/http's 404).
func Mux(h http.Handler) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	return mux
}

func writeJSON(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// sleep waits d and reports true, or reports false as soon as ctx is done.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
