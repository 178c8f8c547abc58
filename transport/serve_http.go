package transport

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
)

// StreamableHandler is the server side of the Streamable HTTP transport,
// for both eras, answering each client through a Session of its Sessions.
//
// Session-based revisions (≤ 2025-11-25): a POST carrying initialize
// opens a Session and gets a fresh Mcp-Session-Id (a UUID v4), which
// every later request must carry (400 without it, 404 once unknown or
// closed). A POST of notifications or responses only is answered 202. A
// POST with requests is answered as application/json when the Session's
// first message for it is the answer and the client accepts JSON, else
// as an event stream carrying what the Session sends, the answer last;
// its events have ids, and a client whose connection dropped resumes it
// with a GET carrying Last-Event-ID for DefaultResumeWindow (ResumeWindow),
// meanwhile the request is still handled. A batch (JSON array) is
// handled concurrently on one stream, or answered as a JSON array to a
// client that accepts only JSON. GET opens the session's stream of
// unsolicited messages (SetUnsolicited; those sent while no GET is open
// are kept for the next), one at a time (409). DELETE closes the
// Session; so does IdleTimeout, for a client that left without a word.
//
// Stateless (2026-07-28): a POST without Mcp-Session-Id whose
// Mcp-Protocol-Version header, or whose request's _meta version, is
// stateless opens a Session of its own (SessionInfo.Stateless), has it
// handle the POST's messages, and closes it: one Session per POST. The
// standard headers are checked against the body (mcp.CheckStandardHeaders,
// with the x-mcp-header annotations of the tools/list answers this handler
// gave): a mismatch is answered 400 with error -32020. GET and DELETE
// without a session are 405.
//
// Every request: a Host or an Origin its Guard refuses (AllowHosts,
// AllowOrigins) is answered 403; a
// body longer than the maximum message (ServerMaxMessage) 413; other
// faults with a JSON-RPC error body and a 4xx status. A Session that
// returns ErrHangUp has the connection cut; one that fails before
// anything of the response is written has its failure answered as a
// JSON-RPC error (-32603); after that, its failure ends the stream. A
// Send whose ctx carries WithPace writes in pieces (SessionInfo.Paces).
//
// ServeHTTP returns when the POST's messages are handled (or its client
// is gone and the resume window has passed), when a GET's client goes
// away, or when the handler or the session is closed.
type StreamableHandler struct {
	sessions Sessions
	cfg      serverConfig
	ctx      context.Context // done once Close is called
	cancel   context.CancelFunc

	mu     sync.Mutex // guards live and closed
	live   map[string]*httpSession
	closed bool

	toolsMu sync.RWMutex // guards tools
	tools   mcp.ToolHeaders
}

// NewStreamableHandler returns a handler serving clients through sessions.
// Close it to end the sessions it holds.
func NewStreamableHandler(sessions Sessions, opts ...ServerOption) *StreamableHandler {
	ctx, cancel := context.WithCancel(context.Background())
	return &StreamableHandler{
		sessions: sessions,
		cfg:      newServerConfig(opts),
		ctx:      ctx,
		cancel:   cancel,
		live:     map[string]*httpSession{},
	}
}

// Close closes every session the handler holds (cancelling what they are
// handling, and waiting for it), and makes the handler answer 503 from
// then on. It returns the first Close error of a Session.
func (h *StreamableHandler) Close() error {
	h.mu.Lock()
	h.closed = true
	live := h.live
	h.live = map[string]*httpSession{}
	h.mu.Unlock()
	h.cancel()
	var errs []error
	for _, s := range live {
		errs = append(errs, s.close())
	}
	return errors.Join(errs...)
}

// refused answers a request that no listener serves — one its guard
// refuses (a Host that is not the server's, a browser Origin not allowed
// in: DNS rebinding protection), or once the listener is shutting down
// (ctx done) — and reports whether it did.
func refused(ctx context.Context, w http.ResponseWriter, r *http.Request, guard Guard) bool {
	if guard.Refuse(w, r) {
		return true
	}
	if ctx.Err() != nil {
		writeError(w, http.StatusServiceUnavailable, nil, mcp.CodeInternal, "Service Unavailable: the server is shutting down")
		return true
	}
	return false
}

// ServeHTTP implements http.Handler.
func (h *StreamableHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer cutOnDone(h.ctx, w)()
	if refused(h.ctx, w, r, h.cfg.guard) {
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet:
		h.get(w, r)
	case http.MethodDelete:
		h.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		writeError(w, http.StatusMethodNotAllowed, nil, mcp.CodeInvalidRequest, "Method Not Allowed: use POST, GET or DELETE")
	}
}

func (h *StreamableHandler) lookup(id string) *httpSession {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.live[id]
}

func (h *StreamableHandler) post(w http.ResponseWriter, r *http.Request) {
	if !isJSONContent(r.Header) {
		writeError(w, http.StatusUnsupportedMediaType, nil, mcp.CodeInvalidRequest, "Unsupported Media Type: Content-Type must be application/json")
		return
	}
	okJSON, okSSE := accepts(r.Header)
	if !okJSON && !okSSE {
		writeError(w, http.StatusNotAcceptable, nil, mcp.CodeInvalidRequest, "Not Acceptable: Accept must include application/json or text/event-stream")
		return
	}
	version := r.Header.Get(mcp.HeaderProtocolVersion)
	if version != "" && !knownRevision(version) {
		writeError(w, http.StatusBadRequest, nil, mcp.CodeInvalidRequest,
			"Bad Request: unsupported Mcp-Protocol-Version "+Clip(version)+" (supported: "+strings.Join(mcp.Revisions(), ", ")+")")
		return
	}
	msgs, ok := h.readMessages(w, r)
	if !ok {
		return
	}
	in := postIn{w: w, r: r, msgs: msgs, okJSON: okJSON, okSSE: okSSE}
	if id := r.Header.Get(mcp.HeaderSessionID); id != "" {
		sess := h.lookup(id)
		if sess == nil {
			writeError(w, http.StatusNotFound, nil, mcp.CodeInvalidRequest, "Not Found: no session "+Clip(id)+" (it ended, or never was); initialize a new one")
			return
		}
		h.serveSession(in, sess)
		return
	}
	switch {
	case hasMethod(msgs, mcp.MethodInitialize):
		h.openSession(in)
	case stateless(version, msgs):
		h.serveStateless(in, version)
	default:
		writeError(w, http.StatusBadRequest, nil, mcp.CodeInvalidRequest,
			"Bad Request: Mcp-Session-Id header is required (send initialize first, or a 2026-07-28 request)")
	}
}

// readMessages reads a POST's body, bounded by the maximum message, and
// splits it into messages; it answers the request itself and returns
// false when the body is too long or not JSON-RPC.
func (h *StreamableHandler) readMessages(w http.ResponseWriter, r *http.Request) ([]jsonrpc.Message, bool) {
	body, over, err := readBody(r, h.cfg.maxMessage)
	switch {
	case over:
		writeError(w, http.StatusRequestEntityTooLarge, nil, mcp.CodeInvalidRequest,
			"Content Too Large: a message may be "+SizeString(h.cfg.maxMessage)+" long")
		return nil, false
	case err != nil:
		writeError(w, http.StatusBadRequest, nil, mcp.CodeParseError, "Bad Request: reading the body: "+err.Error())
		return nil, false
	}
	return parseBody(w, body, h.cfg.maxBatch)
}

// parseBody splits a body into its messages, or answers 400.
func parseBody(w http.ResponseWriter, body []byte, maxBatch int) ([]jsonrpc.Message, bool) {
	m, err := jsonrpc.ParseStrict(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, nil, mcp.CodeParseError, "Parse error: "+err.Error())
		return nil, false
	}
	if m.Kind != jsonrpc.KindBatch {
		return []jsonrpc.Message{m}, true
	}
	msgs, err := m.Batch()
	if err != nil || len(msgs) == 0 {
		reason := "an empty batch"
		if err != nil {
			reason = err.Error()
		}
		writeError(w, http.StatusBadRequest, nil, mcp.CodeInvalidRequest, "Invalid Request: "+reason)
		return nil, false
	}
	if answer := batchTooLong(len(msgs), maxBatch); answer != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(answer)
		return nil, false
	}
	return msgs, true
}

func hasMethod(msgs []jsonrpc.Message, method string) bool {
	for _, m := range msgs {
		if m.Kind == jsonrpc.KindRequest && m.Method == method {
			return true
		}
	}
	return false
}

// stateless says whether a POST without a session speaks a stateless
// revision: by its Mcp-Protocol-Version header or by a request's _meta.
func stateless(version string, msgs []jsonrpc.Message) bool {
	if version != "" {
		return mcp.EraOf(version) == mcp.EraStateless
	}
	for _, m := range msgs {
		if mcp.MessageEra(m) == mcp.EraStateless {
			return true
		}
	}
	return false
}

// openSession answers a POST carrying initialize: a new Session, its id
// in the answer's Mcp-Session-Id.
func (h *StreamableHandler) openSession(in postIn) {
	version := ""
	for _, m := range in.msgs {
		if m.Kind == jsonrpc.KindRequest && m.Method == mcp.MethodInitialize {
			version = mcp.InitializeVersion(m.Params())
		}
	}
	id := uuid.NewString()
	s, err := h.sessions.Open(in.r.Context(), SessionInfo{ID: id, ProtocolVersion: version, Header: in.r.Header.Clone(), Paces: true})
	if err != nil {
		h.cfg.log.Warn().Err(err).Msg("open a session")
		writeError(in.w, http.StatusServiceUnavailable, nil, mcp.CodeInternal, "Service Unavailable: "+err.Error())
		return
	}
	sess := newHTTPSession(h.ctx, id, s, h.cfg.window)
	sess.idleAfter = h.cfg.idle
	sess.onIdle = func() { h.forget(sess) }
	s.SetUnsolicited(sess.sendUnsolicited)
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		_ = sess.close()
		writeError(in.w, http.StatusServiceUnavailable, nil, mcp.CodeInternal, "Service Unavailable: the server is shutting down")
		return
	}
	h.live[id] = sess
	h.mu.Unlock()
	in.w.Header().Set(mcp.HeaderSessionID, id)
	h.serveSession(in, sess)
}

func (h *StreamableHandler) serveSession(in postIn, sess *httpSession) {
	if !sess.begin() {
		writeError(in.w, http.StatusNotFound, nil, mcp.CodeInvalidRequest, "Not Found: the session has ended")
		return
	}
	defer sess.end()
	in.w.Header().Set(mcp.HeaderSessionID, sess.id)
	x := newPostExchange(h, in, sess.s, sess, sess.ctx)
	x.run()
}

// serveStateless answers a stateless POST: one Session for it alone.
func (h *StreamableHandler) serveStateless(in postIn, version string) {
	for _, m := range in.msgs {
		h.toolsMu.RLock()
		err := mcp.CheckStandardHeaders(in.r.Header, m, &h.tools)
		h.toolsMu.RUnlock()
		if err != nil {
			writeError(in.w, http.StatusBadRequest, m.ID, mcp.CodeHeaderMismatch, err.Error())
			return
		}
		if version == "" && m.Kind == jsonrpc.KindRequest {
			version = mcp.MetaVersion(m.Params())
		}
	}
	s, err := h.sessions.Open(in.r.Context(), SessionInfo{
		ID: uuid.NewString(), ProtocolVersion: version, Stateless: true, Header: in.r.Header.Clone(), Paces: true,
	})
	if err != nil {
		h.cfg.log.Warn().Err(err).Msg("open a stateless session")
		writeError(in.w, http.StatusServiceUnavailable, nil, mcp.CodeInternal, "Service Unavailable: "+err.Error())
		return
	}
	s.SetUnsolicited(nil)
	defer func() {
		if err := s.Close(); err != nil {
			h.cfg.log.Warn().Err(err).Msg("close a stateless session")
		}
	}()
	x := newPostExchange(h, in, s, nil, h.ctx)
	x.run()
}

// learnTools takes in the x-mcp-header annotations of a tools/list answer
// the handler gave a stateless client, for checking later tools/calls.
func (h *StreamableHandler) learnTools(result []byte) {
	h.toolsMu.Lock()
	defer h.toolsMu.Unlock()
	if err := h.tools.Learn(result); err != nil {
		h.cfg.log.Debug().Err(err).Msg("tools/list answer: x-mcp-header annotations not learned")
	}
}

func (h *StreamableHandler) get(w http.ResponseWriter, r *http.Request) {
	if _, okSSE := accepts(r.Header); !okSSE {
		writeError(w, http.StatusNotAcceptable, nil, mcp.CodeInvalidRequest, "Not Acceptable: a GET must accept text/event-stream")
		return
	}
	sess, ok := h.requireSession(w, r)
	if !ok {
		return
	}
	if !sess.begin() {
		writeError(w, http.StatusNotFound, nil, mcp.CodeInvalidRequest, "Not Found: the session has ended")
		return
	}
	defer sess.end()
	st, from := sess.unsolicited, -1
	last := r.Header.Get("Last-Event-Id")
	if last != "" {
		prefix, n, ok := parseEventID(last)
		if ok {
			st = sess.stream(prefix)
		}
		if !ok || st == nil {
			writeError(w, http.StatusBadRequest, nil, mcp.CodeInvalidRequest, "Bad Request: Last-Event-ID "+Clip(last)+" names no stream of this session that can be resumed")
			return
		}
		from = n + 1
	}
	sink := newSSESink(w)
	err := st.attach(sink, from, last != "", func() {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set(mcp.HeaderSessionID, sess.id)
		w.WriteHeader(http.StatusOK)
		_ = http.NewResponseController(w).Flush()
	})
	if err != nil {
		writeError(w, http.StatusConflict, nil, mcp.CodeInvalidRequest, "Conflict: this stream is already open on another connection")
		return
	}
	select {
	case <-r.Context().Done():
	case <-st.doneCh:
	case <-sess.ctx.Done():
	}
	st.detach(sink)
}

// requireSession finds the session a GET or DELETE names, or answers
// 400, 404 or (stateless) 405.
func (h *StreamableHandler) requireSession(w http.ResponseWriter, r *http.Request) (*httpSession, bool) {
	id := r.Header.Get(mcp.HeaderSessionID)
	if id == "" {
		if mcp.EraOf(r.Header.Get(mcp.HeaderProtocolVersion)) == mcp.EraStateless {
			w.Header().Set("Allow", "POST")
			writeError(w, http.StatusMethodNotAllowed, nil, mcp.CodeInvalidRequest, "Method Not Allowed: a stateless server takes POST only")
			return nil, false
		}
		writeError(w, http.StatusBadRequest, nil, mcp.CodeInvalidRequest, "Bad Request: Mcp-Session-Id header is required")
		return nil, false
	}
	sess := h.lookup(id)
	if sess == nil {
		writeError(w, http.StatusNotFound, nil, mcp.CodeInvalidRequest, "Not Found: no session "+Clip(id))
		return nil, false
	}
	return sess, true
}

func (h *StreamableHandler) delete(w http.ResponseWriter, r *http.Request) {
	sess, ok := h.requireSession(w, r)
	if !ok {
		return
	}
	h.forget(sess)
	w.WriteHeader(http.StatusNoContent)
}

// forget closes a session and drops it from the handler (DELETE, idle).
func (h *StreamableHandler) forget(sess *httpSession) {
	h.mu.Lock()
	if h.live[sess.id] == sess {
		delete(h.live, sess.id)
	}
	h.mu.Unlock()
	if err := sess.close(); err != nil {
		h.cfg.log.Warn().Err(err).Str("session", sess.id).Msg("close a session")
	}
}
