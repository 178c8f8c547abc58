package transport

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
)

// postIn is a POST as the handler read it.
type postIn struct {
	w             http.ResponseWriter
	r             *http.Request
	msgs          []jsonrpc.Message
	okJSON, okSSE bool
}

// The form a POST's answer takes, decided by the first message sent.
const (
	formNone   = iota // nothing written yet
	formJSON          // one JSON answer written: the response is complete
	formStream        // an event stream
)

// postExchange is one POST being answered: it hands the POST's messages to
// the Session and carries what the Session sends back, deciding the form
// of the answer by the first message (see StreamableHandler).
type postExchange struct {
	h       *StreamableHandler
	in      postIn
	s       Session
	sess    *httpSession // nil: stateless
	batch   bool
	methods map[string]string // id key → method of the POST's requests
	ctx     context.Context   // what Handle gets: ends with the session, or when the client is gone
	cancel  context.CancelFunc

	mu       sync.Mutex // guards the fields below; serializes writes to in.w
	form     int
	stream   *outStream
	sink     *sseSink
	gone     bool                // the client's request context is done
	answered map[string]struct{} // id keys answered
	answers  [][]byte            // a batch's answers to a client that takes only JSON
	status   int                 // the status written, 0 before
}

func newPostExchange(h *StreamableHandler, in postIn, s Session, sess *httpSession, base context.Context) *postExchange {
	ctx, cancel := context.WithCancel(base)
	x := &postExchange{h: h, in: in, s: s, sess: sess, ctx: ctx, cancel: cancel,
		batch: len(in.msgs) > 1, methods: map[string]string{}, answered: map[string]struct{}{}}
	for _, m := range in.msgs {
		if m.Kind == jsonrpc.KindRequest {
			x.methods[jsonrpc.IDKey(m.ID)] = m.Method
		}
	}
	return x
}

// run handles the POST's messages, the requests concurrently, and returns
// when all are handled. It cuts the connection when a Session asked to
// (ErrHangUp).
func (x *postExchange) run() {
	defer x.cancel()
	stop := context.AfterFunc(x.in.r.Context(), x.clientGone)
	defer stop()

	var wg sync.WaitGroup
	var hangUp atomic.Bool
	for _, m := range x.in.msgs {
		if m.Kind != jsonrpc.KindRequest {
			if err := x.s.Handle(x.ctx, m.Raw, x.sendAside); errors.Is(err, ErrHangUp) {
				hangUp.Store(true)
			}
			continue
		}
		if !x.batch {
			if x.handleRequest(m) {
				hangUp.Store(true)
			}
			continue
		}
		wg.Go(func() {
			if x.handleRequest(m) {
				hangUp.Store(true)
			}
		})
	}
	wg.Wait()
	if x.finish(hangUp.Load()) {
		panic(http.ErrAbortHandler)
	}
}

// handleRequest has the Session answer one request. A Session that
// fails (an error other than ctx's or ErrHangUp) before anything of the
// POST's response is written gets its failure answered as a JSON-RPC
// error; once a stream is open, its failure only ends the stream, as
// the Session contract says. It reports whether the Session asked to
// hang up.
func (x *postExchange) handleRequest(m jsonrpc.Message) bool {
	err := x.s.Handle(x.ctx, m.Raw, x.send)
	switch {
	case errors.Is(err, ErrHangUp):
		return true
	case x.ctx.Err() != nil || err == nil:
		return false
	}
	x.h.cfg.log.Warn().Err(err).Str("method", Clip(m.Method)).Msg("handle a request")
	x.mu.Lock()
	_, answered := x.answered[jsonrpc.IDKey(m.ID)]
	untouched := x.form == formNone
	x.mu.Unlock()
	if !answered && untouched {
		_ = x.send(x.ctx, errorBody(m.ID, mcp.CodeInternal, "replayctl serve: "+err.Error()))
	}
	return false
}

// sendAside is the Send of a notification or response: what the Session
// says then goes to the unsolicited stream, if there is one.
func (x *postExchange) sendAside(ctx context.Context, msg []byte) error {
	if x.sess == nil {
		return nil
	}
	return x.sess.sendUnsolicited(ctx, msg)
}

// send is the Send of a request: see StreamableHandler for the form of
// the answer.
func (x *postExchange) send(ctx context.Context, msg []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	key, isAnswer, parsed := x.answerKey(msg)
	x.mu.Lock()
	if isAnswer {
		if _, dup := x.answered[key]; dup {
			isAnswer = false
		} else {
			x.answered[key] = struct{}{}
		}
	}
	switch x.form {
	case formJSON:
		x.mu.Unlock()
		return x.sendAside(ctx, msg)
	case formStream:
		defer x.mu.Unlock()
		return x.stream.add(ctx, msg)
	}
	if !x.in.okSSE || (isAnswer && !x.batch && x.in.okJSON) {
		// JSON: an unparsable message to a single request stands for
		// its answer (a malformed answer is still the answer).
		if !x.batch && (isAnswer || !parsed) {
			x.writeJSON(ctx, msg)
			x.mu.Unlock()
			return nil
		}
		if isAnswer {
			x.answers = append(x.answers, append([]byte(nil), msg...))
			x.mu.Unlock()
			return nil
		}
		x.mu.Unlock()
		return x.sendAside(ctx, msg)
	}
	x.startStream()
	defer x.mu.Unlock()
	return x.stream.add(ctx, msg)
}

// answerKey tells whether msg answers one of the POST's requests, and
// learns the tool headers of a stateless tools/list answer.
func (x *postExchange) answerKey(msg []byte) (key string, isAnswer, parsed bool) {
	m, err := jsonrpc.Parse(msg)
	if err != nil {
		return "", false, false
	}
	if !jsonrpc.IsResponseKind(m.Kind) {
		return "", false, true
	}
	key = jsonrpc.IDKey(m.ID)
	method, ok := x.methods[key]
	if ok && x.sess == nil && method == "tools/list" {
		if r := m.Result(); r != nil {
			x.h.learnTools(r)
		}
	}
	return key, ok, true
}

// writeJSON writes msg as the whole response, in pieces when ctx
// carries a pace (WithPace). x.mu is held.
func (x *postExchange) writeJSON(ctx context.Context, msg []byte) {
	status := http.StatusOK
	if x.sess == nil {
		status = statelessStatus(msg)
	}
	h := x.in.w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(msg)))
	x.in.w.WriteHeader(status)
	x.form, x.status = formJSON, status
	if chunk, pause, ok := PaceOf(ctx); ok {
		_ = writePaced(ctx, x.in.w, msg, chunk, pause)
		return
	}
	_, _ = x.in.w.Write(msg)
}

// statelessStatus is the HTTP status of a 2026-07-28 JSON answer: errors
// the revision maps to 404 and 400 get them.
func statelessStatus(msg []byte) int {
	m, err := jsonrpc.Parse(msg)
	if err != nil || m.Kind != jsonrpc.KindError {
		return http.StatusOK
	}
	code, _ := mcp.ErrorCode(m.Error())
	switch code {
	case mcp.CodeMethodNotFound:
		return http.StatusNotFound
	case mcp.CodeInvalidParams, mcp.CodeHeaderMismatch, mcp.CodeMissingClientCapabilities, mcp.CodeUnsupportedVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// startStream answers the POST with an event stream. x.mu is held.
func (x *postExchange) startStream() {
	if x.sess != nil {
		x.stream = x.sess.newStream(x.cancel)
	} else {
		x.stream = newOutStream("")
	}
	x.form, x.status = formStream, http.StatusOK
	if x.gone {
		return // the events are kept for a resume
	}
	x.sink = newSSESink(x.in.w)
	_ = x.stream.attach(x.sink, 0, false, func() {
		h := x.in.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		x.in.w.WriteHeader(http.StatusOK)
	})
}

// clientGone runs when the POST's client went away: the handling goes on
// for a resume while the stream is resumable, else it is cancelled.
func (x *postExchange) clientGone() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.gone = true
	if x.form == formStream && x.stream.prefix != "" {
		x.stream.detach(x.sink) // arms the stream's lost timer
		return
	}
	x.cancel()
}

// finish ends the POST's response once every message is handled, and
// reports whether the connection is to be cut.
func (x *postExchange) finish(hangUp bool) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.form == formStream {
		x.stream.finish()
		x.stream.detach(x.sink)
		if x.sess != nil {
			x.sess.streamEnded(x.stream, hangUp)
		}
	}
	if hangUp || x.form != formNone || x.gone {
		return hangUp
	}
	switch {
	case len(x.answers) > 0:
		body := []byte{'['}
		for i, a := range x.answers {
			if i > 0 {
				body = append(body, ',')
			}
			body = append(body, a...)
		}
		body = append(body, ']')
		x.writeJSON(x.ctx, body)
	case len(x.methods) == 0:
		x.in.w.WriteHeader(http.StatusAccepted)
	default: // requests the Session left without a word
		writeError(x.in.w, http.StatusInternalServerError, nil, mcp.CodeInternal, "replayctl serve: the server sent nothing for this request")
	}
	return false
}
