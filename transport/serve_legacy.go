package transport

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"

	"github.com/replayctl/replayctl/mcp"
)

// LegacyHandler is the server side of the HTTP+SSE transport of MCP
// 2024-11-05. A GET opens a session: one Session, and an event stream
// whose first event, "endpoint", names where the client POSTs its
// messages (the same path, with ?sessionId=<UUID>); everything the Session
// sends, answers included, goes on that stream as "message" events. A
// POST is answered 202 at once and its messages are handled on goroutines
// of their own (a client's answer to a server request must reach the
// Handle waiting for it). The Session ends when the GET's client goes
// away or the handler is closed; a POST to an unknown session is 404.
// Host, Origin, body size and errors are handled as by StreamableHandler.
//
// ServeHTTP of a GET returns when the client goes away, the Session
// hangs up (the connection is cut) or the handler is closed, after the
// handling of the session's messages has returned; a POST's returns at
// once.
type LegacyHandler struct {
	sessions Sessions
	cfg      serverConfig
	ctx      context.Context // done once Close is called
	cancel   context.CancelFunc

	mu   sync.Mutex // guards live
	live map[string]*legacySession
}

type legacySession struct {
	s      Session
	ctx    context.Context
	cancel context.CancelFunc
	stream *outStream
	hungUp atomic.Bool

	mu       sync.Mutex // guards closed; Add to inflight under it while !closed
	closed   bool
	inflight sync.WaitGroup
}

// NewLegacyHandler returns a handler serving HTTP+SSE clients through
// sessions. Close it to end the sessions it holds.
func NewLegacyHandler(sessions Sessions, opts ...ServerOption) *LegacyHandler {
	ctx, cancel := context.WithCancel(context.Background())
	return &LegacyHandler{sessions: sessions, cfg: newServerConfig(opts), ctx: ctx, cancel: cancel, live: map[string]*legacySession{}}
}

// Close ends every session: their GET streams end and the handling of
// their messages is cancelled. It returns at once; each GET's ServeHTTP
// closes its Session.
func (h *LegacyHandler) Close() error {
	h.cancel()
	return nil
}

// ServeHTTP implements http.Handler.
func (h *LegacyHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer cutOnDone(h.ctx, w)()
	if refused(h.ctx, w, r, h.cfg.guard) {
		return
	}
	switch r.Method {
	case http.MethodGet:
		h.open(w, r)
	case http.MethodPost:
		h.post(w, r)
	default:
		w.Header().Set("Allow", "GET, POST")
		writeError(w, http.StatusMethodNotAllowed, nil, mcp.CodeInvalidRequest, "Method Not Allowed: GET opens the stream, POST sends a message")
	}
}

func (h *LegacyHandler) open(w http.ResponseWriter, r *http.Request) {
	if _, okSSE := accepts(r.Header); !okSSE {
		writeError(w, http.StatusNotAcceptable, nil, mcp.CodeInvalidRequest, "Not Acceptable: the GET must accept text/event-stream")
		return
	}
	id := uuid.NewString()
	s, err := h.sessions.Open(r.Context(), SessionInfo{ID: id, Header: r.Header.Clone(), Paces: true})
	if err != nil {
		h.cfg.log.Warn().Err(err).Msg("open a session")
		writeError(w, http.StatusServiceUnavailable, nil, mcp.CodeInternal, "Service Unavailable: "+err.Error())
		return
	}
	ctx, cancel := context.WithCancel(h.ctx)
	sess := &legacySession{s: s, ctx: ctx, cancel: cancel, stream: newOutStream("")}
	s.SetUnsolicited(sess.send)
	h.mu.Lock()
	h.live[id] = sess
	h.mu.Unlock()

	sink := newSSESink(w)
	_ = sess.stream.attach(sink, 0, false, func() {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		_ = sink.ev.Write(SSEEvent{Event: "endpoint", Data: []byte(r.URL.Path + "?sessionId=" + id)})
	})
	select {
	case <-r.Context().Done():
	case <-ctx.Done():
	}
	h.mu.Lock()
	delete(h.live, id)
	h.mu.Unlock()
	sess.mu.Lock()
	sess.closed = true
	sess.mu.Unlock()
	cancel()
	sess.inflight.Wait()
	sess.stream.finish()
	sess.stream.detach(sink)
	if err := s.Close(); err != nil {
		h.cfg.log.Warn().Err(err).Str("session", id).Msg("close a session")
	}
	if sess.hungUp.Load() {
		panic(http.ErrAbortHandler)
	}
}

func (s *legacySession) send(ctx context.Context, msg []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.stream.add(ctx, msg)
}

func (h *LegacyHandler) post(w http.ResponseWriter, r *http.Request) {
	if !isJSONContent(r.Header) {
		writeError(w, http.StatusUnsupportedMediaType, nil, mcp.CodeInvalidRequest, "Unsupported Media Type: Content-Type must be application/json")
		return
	}
	id := r.URL.Query().Get("sessionId")
	if id == "" {
		writeError(w, http.StatusBadRequest, nil, mcp.CodeInvalidRequest, "Bad Request: the sessionId query parameter is required (open the stream with GET first)")
		return
	}
	h.mu.Lock()
	sess := h.live[id]
	h.mu.Unlock()
	if sess == nil {
		writeError(w, http.StatusNotFound, nil, mcp.CodeInvalidRequest, "Not Found: no session "+Clip(id))
		return
	}
	body, over, err := readBody(r, h.cfg.maxMessage)
	switch {
	case over:
		writeError(w, http.StatusRequestEntityTooLarge, nil, mcp.CodeInvalidRequest, "Content Too Large: a message may be "+SizeString(h.cfg.maxMessage)+" long")
		return
	case err != nil:
		writeError(w, http.StatusBadRequest, nil, mcp.CodeParseError, "Bad Request: reading the body: "+err.Error())
		return
	}
	msgs, ok := parseBody(w, body, h.cfg.maxBatch)
	if !ok {
		return
	}
	sess.mu.Lock()
	if sess.closed {
		sess.mu.Unlock()
		writeError(w, http.StatusNotFound, nil, mcp.CodeInvalidRequest, "Not Found: the session has ended")
		return
	}
	for _, m := range msgs {
		sess.inflight.Go(func() {
			if handleAnswering(sess.ctx, h.cfg, sess.s, m, sess.send) {
				sess.hungUp.Store(true)
				sess.cancel()
			}
		})
	}
	sess.mu.Unlock()
	w.WriteHeader(http.StatusAccepted)
}
