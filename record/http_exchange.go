package record

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// exchange is one HTTP request through the proxy and its answer. Only the
// handler's goroutine uses it (ReverseProxy's hooks and the body's Read
// and Close all run there).
type exchange struct {
	p    *HTTP
	seen time.Time // when the request came in
	req  *http.Request

	body    []byte // the POST body, when within the limit
	over    bool   // the POST body was over the limit
	session string // the tape session; "" until known
	client  []byte // the clientInfo the message carries, if any
	id      string // the request's id (jsonrpc.IDKey), "" if not a lone request
	lane    *lane  // the lane of a client without a session id; nil once answered

	// out is the client's message (its POST body), recorded when the
	// upstream's answer starts (its status and headers known, put in its
	// HTTP metadata), or when the request fails or ends without one.
	out     *tape.Message
	outOnce sync.Once

	// held is the initialize request of a client that has no session yet:
	// the answer's Mcp-Session-Id says which session it opens. It is
	// recorded just before the first message of the answer, or when the
	// answer ends.
	held     *tape.Message
	heldOnce sync.Once
}

// readBody reads a POST body up to the limit and puts it back for the
// upstream request; the rest of a longer body is relayed as it comes.
func (ex *exchange) readBody() error {
	r := ex.req
	limit := ex.p.limit
	if b, over, ok := transport.BufferedBody(r); ok && (over || len(b) <= limit) {
		// The BodyGuard read it: r.Body gives it again, then the rest.
		ex.body, ex.over = b, over
		if over {
			ex.body = nil
		}
		ex.recordRequest()
		return nil
	}
	buf, err := io.ReadAll(io.LimitReader(r.Body, int64(limit)+1))
	if err != nil {
		return err
	}
	if len(buf) > limit {
		ex.over = true
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(buf), r.Body), r.Body}
	} else {
		ex.body = buf
		r.Body = io.NopCloser(bytes.NewReader(buf))
	}
	ex.recordRequest()
	return nil
}

// recordRequest readies the client's POST body for the tape: one message
// or a batch, as it came, recorded when its answer starts (see out); a
// lone initialize without a session is held longer (see held). Its
// session, when the request does not name one, is its client's lane.
func (ex *exchange) recordRequest() {
	p, r := ex.p, ex.req
	session, known, legacy := p.requestSession(r)
	if ex.over {
		p.drop(session, "a client message over the message limit")
		return
	}
	m, err := jsonrpc.ParseStrict(ex.body)
	if err != nil {
		p.drop(session, "a client POST body that is not JSON-RPC")
		return
	}
	ex.client = clientInfo(m.Params())
	if m.Kind == jsonrpc.KindRequest {
		ex.id = jsonrpc.IDKey(m.ID)
	}
	msg := &tape.Message{Dir: tape.C2S, Msg: ex.body, HTTP: requestMeta(r.Header)}
	if m.Kind == jsonrpc.KindRequest && m.Method == mcp.MethodInitialize && !known {
		ex.held = msg
		return
	}
	if !known {
		ex.lane = p.clientSession(r, ex.client, ex.id)
		session = ex.lane.name
	}
	ex.session = session
	msg.Session = session
	ex.out = msg
	if legacy {
		// HTTP+SSE: the answer comes on the session's GET stream, maybe
		// before this POST's 202: the message goes on the tape now,
		// without a status.
		ex.flushRequest()
	}
}

// flushRequest records the client's message (out), once.
func (ex *exchange) flushRequest() {
	ex.outOnce.Do(func() {
		if ex.out != nil {
			ex.p.record(ex.seen, *ex.out)
		}
	})
}

// noteAnswer puts the status of the answer and the answer headers that
// matter (answerHeaders) into the client message's HTTP metadata, next
// to its request headers, as the HAR importer keeps them: a 202, or a
// 401 or 429 without a JSON-RPC body, is on the tape with the message
// it answered.
func (ex *exchange) noteAnswer(resp *http.Response) {
	msg := ex.out
	if msg == nil {
		msg = ex.held
	}
	if msg == nil {
		return
	}
	meta := &tape.HTTPMeta{Status: resp.StatusCode}
	if msg.HTTP != nil {
		meta.Headers = msg.HTTP.Headers
	}
	for k, vs := range keep(resp.Header, answerHeaders) {
		if meta.Headers == nil {
			meta.Headers = map[string][]string{}
		}
		meta.Headers[k] = vs
	}
	msg.HTTP = meta
}

// answered is called with the upstream's answer, before its body is
// relayed: it settles the session and taps the body.
func (ex *exchange) answered(resp *http.Response) {
	p, r := ex.p, ex.req
	if ex.session == "" {
		ex.session = p.answerSession(ex, resp)
	}
	ex.noteAnswer(resp)
	ex.flushRequest() // before any message of the answer
	meta := responseMeta(resp)
	if resp.StatusCode >= 400 {
		ev := p.log.Warn()
		if resp.StatusCode == http.StatusMethodNotAllowed && r.Method != http.MethodPost {
			ev = p.log.Debug() // a server with no GET stream, or no DELETE: normal
		}
		ev.Str("session", ex.session).Str("method", r.Method).Int("status", resp.StatusCode).
			Interface("headers", meta.Headers).Msg("upstream refused a request")
	}
	if resp.Body == nil || resp.Body == http.NoBody {
		ex.flushHeld()
		ex.settle()
		return
	}
	switch mediaType(resp.Header) {
	case "text/event-stream":
		body := newSSETap(ex, resp.Body, meta, resp.Header.Get("Content-Encoding"))
		if r.Method == http.MethodGet {
			resp.Body = newEndpointRewriter(ex, body)
		} else {
			resp.Body = body
		}
	case "application/json":
		resp.Body = newJSONTap(ex, resp.Body, meta, resp.Header.Get("Content-Encoding"), resp.ContentLength)
	default:
		ex.flushHeld()
		ex.settle()
	}
}

// flushHeld records the held initialize request, once, in the session
// the answer settled (or its client's lane, when none did).
func (ex *exchange) flushHeld() {
	ex.heldOnce.Do(func() {
		if ex.held == nil {
			return
		}
		if ex.session == "" {
			ex.lane = ex.p.clientSession(ex.req, ex.client, ex.id)
			ex.session = ex.lane.name
		}
		ex.held.Session = ex.session
		ex.p.record(ex.seen, *ex.held)
	})
}

// flushClient records what the exchange still holds of the client's
// message: when its request failed, or ended, without an answer.
func (ex *exchange) flushClient() {
	ex.flushRequest()
	ex.flushHeld()
}

// answer records one message of the upstream's answer, seen at at.
func (ex *exchange) answer(at time.Time, msg []byte, meta *tape.HTTPMeta, sse *tape.SSEMeta) {
	m, err := jsonrpc.ParseStrict(msg)
	if err != nil {
		ex.p.drop(ex.session, "a server message that is not JSON-RPC")
		return
	}
	ex.flushHeld()
	if jsonrpc.IsResponseKind(m.Kind) {
		defer ex.settle() // recorded first: the client has it only then
	}
	out := tape.Message{Session: ex.session, Dir: tape.S2C, Msg: msg, HTTP: meta, SSE: sse}
	if r := ex.req; r.Method == http.MethodGet && r.Header.Get(mcp.HeaderLastEventID) != "" {
		out.Extra = lastEventIDExtra(r.Header.Get(mcp.HeaderLastEventID))
	}
	ex.p.record(at, out)
}

// settle notes that the exchange's request has its answer (or never will:
// its answer is over), so that its lane may take a request from another
// connection.
func (ex *exchange) settle() {
	if ex.lane != nil && ex.id != "" {
		ex.p.answered(ex.lane, ex.id)
	}
	ex.lane = nil
}

// mediaType is a Content-Type without parameters, in lower case.
func mediaType(h http.Header) string {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		return strings.ToLower(strings.TrimSpace(h.Get("Content-Type")))
	}
	return mt
}
