package tape

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	neturl "net/url"
	"strings"
	"time"

	"github.com/replayctl/replayctl/mcp"
)

// pcapConn is one TCP connection of a capture: its two directions, the
// requests sent on it that wait for their answers (HTTP/1.1 answers them
// in order), and the answer being read.
type pcapConn struct {
	x       *pcapImport
	n       int // its number, in the order first seen
	ends    [2]string
	halves  [2]*pcapHalf
	waiting []*pcapReq
	cur     *pcapReq  // the request whose body is being read
	resp    *pcapResp // the answer being read
	last    time.Time // the last packet's time
	notHTTP bool
}

// pcapHalf is one direction of a connection.
type pcapHalf struct {
	tcp  halfStream
	http httpStream
}

func newPcapConn(x *pcapImport, n int) *pcapConn { return &pcapConn{x: x, n: n} }

// half returns the direction sent from the end from; syn says the
// packet is a connection's first SYN.
func (c *pcapConn) half(from string, syn bool) *pcapHalf {
	for i, e := range c.ends {
		if e == from && c.halves[i] != nil {
			return c.halves[i]
		}
	}
	i := 0
	if c.halves[0] != nil {
		i = 1
	}
	h := &pcapHalf{}
	c.ends[i], c.halves[i] = from, h
	ev := &halfEvents{c: c, h: h}
	h.http.ev = ev
	h.tcp.deliver = func(data []byte, at time.Time) {
		c.last = at
		h.http.feed(data, at)
	}
	h.tcp.gap = h.http.gap
	return h
}

// done reports whether both directions have ended (or the one seen, on
// a reset).
func (c *pcapConn) done() bool {
	for _, h := range c.halves {
		if h == nil || !h.tcp.closed {
			return false
		}
	}
	return true
}

// reopened reports whether a SYN from the end from, at sequence number
// seq, opens a new connection on the same ports (not a SYN sent again).
func (c *pcapConn) reopened(from string, seq uint32) bool {
	for i, e := range c.ends {
		if e == from && c.halves[i] != nil && c.halves[i].tcp.started {
			return c.halves[i].tcp.next != seq+1
		}
	}
	return false
}

// closeAll ends both directions and the connection, at at.
func (c *pcapConn) closeAll(at time.Time) {
	for _, h := range c.halves {
		if h != nil && !h.tcp.closed {
			h.tcp.finish()
			h.http.close(at)
		}
	}
	c.endAll(at)
}

// endAll ends the connection: requests that got no answer are kept
// without a status.
func (c *pcapConn) endAll(at time.Time) {
	for _, r := range c.waiting {
		c.x.unanswered(r)
	}
	c.waiting = nil
}

// halfEvents passes what an httpStream reads to its connection.
type halfEvents struct {
	c *pcapConn
	h *pcapHalf
}

func (e *halfEvents) request(req *http.Request, at time.Time) { e.c.request(req, at) }
func (e *halfEvents) response(resp *http.Response, at time.Time) bool {
	return e.c.response(resp, at)
}

func (e *halfEvents) body(data []byte, at time.Time) {
	if e.h.http.isResp {
		e.c.respBody(data, at)
		return
	}
	if r := e.c.cur; r != nil && !r.tooBig {
		if len(r.body)+len(data) > maxHTTPBody {
			r.tooBig, r.body = true, nil
			return
		}
		r.body = append(r.body, data...)
	}
}

func (e *halfEvents) end(at time.Time, complete bool) {
	if e.h.http.isResp {
		e.c.respEnd(at, complete)
		return
	}
	if e.c.cur != nil {
		e.c.cur.cut = !complete
		if !complete {
			e.c.x.lost.add("a request was cut short by the end of its connection or of the capture", e.c.n)
		}
		e.c.cur = nil
	}
}

func (e *halfEvents) lost(why string) {
	if why == whyNotHTTP {
		if !e.c.notHTTP {
			e.c.notHTTP = true
			e.c.x.notHTTP++
		}
		return
	}
	e.c.x.lost.add(why, e.c.n)
}

// pcapReq is a request read from a connection.
type pcapReq struct {
	method, url string
	header      http.Header
	body        []byte
	tooBig, cut bool
	at          time.Time
	n           int // the exchange's number, from 1
}

// pcapResp is an answer being read, and what its messages carry.
type pcapResp struct {
	skip    bool
	session string // "" until its first event, for a GET stream without a session id
	url     string
	meta    *HTTPMeta
	sse     *sseSplitter
	body    []byte
	tooBig  bool
	gzip    bool // the body is gzip-compressed (Content-Encoding)
	get     int  // for a GET stream: its exchange's number; 0 for a POST's answer
	found   int  // messages found in it
}

func (c *pcapConn) request(req *http.Request, at time.Time) {
	c.x.exchanges++
	u := req.RequestURI
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		u = "http://" + req.Host + u
	}
	r := &pcapReq{method: req.Method, url: u, header: req.Header, at: at, n: c.x.exchanges}
	c.waiting = append(c.waiting, r)
	c.cur = r
}

// response starts the answer to the oldest request waiting; it reports
// whether the answer has no body (a HEAD's).
func (c *pcapConn) response(resp *http.Response, at time.Time) bool {
	if len(c.waiting) == 0 {
		c.x.orphans++
		c.resp = &pcapResp{skip: true}
		return false
	}
	req := c.waiting[0]
	c.waiting = c.waiting[1:]
	c.resp = c.x.exchange(req, resp)
	return strings.EqualFold(req.method, "HEAD")
}

func (c *pcapConn) respBody(data []byte, at time.Time) {
	r := c.resp
	switch {
	case r == nil || r.skip || r.tooBig:
	case r.sse != nil:
		r.sse.feed(data, at)
	case len(r.body)+len(data) > maxHTTPBody:
		r.tooBig, r.body = true, nil
		c.x.lost.add("an HTTP answer's body is larger than 64 MiB: its message is skipped", c.n)
	default:
		r.body = append(r.body, data...)
	}
}

func (c *pcapConn) respEnd(at time.Time, complete bool) {
	r := c.resp
	c.resp = nil
	if r == nil || r.skip || r.tooBig {
		return
	}
	if r.sse != nil {
		if r.sse.close(at) {
			c.x.lost.add("an event stream ends in the middle of an event (the capture stopped): its last event is kept", c.n)
		}
		if r.get > 0 && r.found == 0 {
			c.x.skips.add(skipGETEmpty, r.get)
		}
		return
	}
	if !complete {
		c.x.lost.add("an answer was cut short by the end of its connection or of the capture", c.n)
		return // a JSON body cut short is not JSON
	}
	body := r.body
	if r.gzip {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err == nil {
			body, err = io.ReadAll(io.LimitReader(zr, maxHTTPBody+1))
		}
		if err != nil || len(body) > maxHTTPBody {
			c.x.lost.add("a gzip-compressed answer cannot be read (damaged, or larger than 64 MiB): its message is skipped", c.n)
			return
		}
	}
	if msg := rpcBody(body); msg != nil {
		c.x.add(Message{Dir: S2C, Msg: msg, HTTP: r.meta, Session: c.x.respSession(r)}, at)
	}
}

// whyNotHTTP is what an httpStream says of a stream that is not HTTP/1.x.
const whyNotHTTP = "not HTTP/1.x"

// exchange starts an answer to req: the client's message is kept, with
// the answer's status, and the answer is set to be read.
func (x *pcapImport) exchange(req *pcapReq, resp *http.Response) *pcapResp {
	out := &pcapResp{url: req.url, meta: &HTTPMeta{Status: resp.StatusCode}}
	for _, k := range responseHeaders {
		if v := resp.Header.Get(k); v != "" {
			if out.meta.Headers == nil {
				out.meta.Headers = map[string][]string{}
			}
			out.meta.Headers[k] = []string{v}
		}
	}
	isSSE := mediaTypeOf(resp.Header.Get("Content-Type")) == "text/event-stream"
	id := req.header.Get(mcp.HeaderSessionID)
	if id == "" {
		id = resp.Header.Get(mcp.HeaderSessionID)
	}
	switch strings.ToUpper(req.method) {
	case "POST":
		msg := x.clientMessage(req)
		if msg == nil {
			return &pcapResp{skip: true}
		}
		out.session = x.sess.of(id, req.url, clientName(msg), requestMethod(msg) == mcp.MethodInitialize)
		x.add(Message{Dir: C2S, Msg: msg, HTTP: requestMeta(req.header, resp.StatusCode), Session: out.session}, req.at)
	case "GET":
		if !isSSE {
			x.skips.add(skipGET, req.n)
			return &pcapResp{skip: true}
		}
		if id != "" {
			out.session = x.sess.of(id, req.url, "", false)
		}
		out.get = req.n
		x.seen(req.url, nil, req.header)
	case "DELETE":
		x.skips.add(skipDELETE, req.n)
		return &pcapResp{skip: true}
	default:
		x.skips.add(skipMethod, req.n)
		return &pcapResp{skip: true}
	}
	switch enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))); {
	case enc == "" || enc == "identity":
	case enc == "gzip" && !isSSE:
		out.gzip = true
	default:
		x.skips.add("an answer whose body is compressed (Content-Encoding "+enc+", or gzip on an event stream): its messages are not read", req.n)
		out.skip = true
		return out
	}
	if isSSE {
		out.sse = &sseSplitter{event: func(ev sseEvent, at time.Time) { x.event(out, ev, at) }}
	}
	return out
}

// clientMessage returns a POST's JSON-RPC message, or nil (counted).
func (x *pcapImport) clientMessage(req *pcapReq) []byte {
	if req.tooBig {
		x.skips.add("a POST whose body is larger than 64 MiB", req.n)
		return nil
	}
	msg := rpcBody(req.body)
	if msg == nil {
		x.skips.add(skipPOST, req.n)
		return nil
	}
	x.seen(req.url, msg, req.header)
	return msg
}

// seen notes the endpoint and protocol version of an MCP exchange.
func (x *pcapImport) seen(url string, msg []byte, h http.Header) {
	if x.endpoint == "" {
		x.endpoint = MaskURL(url)
	}
	if x.version == "" {
		x.version = messageVersion(msg, headerNV(h))
	}
}

// unanswered keeps the message of a POST that got no answer in the
// capture, without a status.
func (x *pcapImport) unanswered(req *pcapReq) {
	if !strings.EqualFold(req.method, "POST") {
		return
	}
	msg := x.clientMessage(req)
	if msg == nil {
		return
	}
	name := x.sess.of(req.header.Get(mcp.HeaderSessionID), req.url, clientName(msg), requestMethod(msg) == mcp.MethodInitialize)
	x.add(Message{Dir: C2S, Msg: msg, HTTP: requestMeta(req.header, 0), Session: name}, req.at)
}

// event keeps the message of one event of an answer's stream.
func (x *pcapImport) event(r *pcapResp, ev sseEvent, at time.Time) {
	if ev.event == "endpoint" && r.session == "" { // legacy HTTP+SSE: the stream names where to post
		r.session = x.sess.fresh()
		if base, err := neturl.Parse(r.url); err == nil {
			if ref, err := neturl.Parse(strings.TrimSpace(string(ev.data))); err == nil {
				x.sess.endpoints[base.ResolveReference(ref).String()] = r.session
				x.legacy = true
			}
		}
		return
	}
	msg := rpcBody(ev.data)
	if msg == nil {
		return // a priming event, or data that is not JSON-RPC
	}
	r.found++
	x.add(Message{Dir: S2C, Msg: msg, HTTP: r.meta, Session: x.respSession(r),
		SSE: &SSEMeta{ID: ev.id, Event: ev.event, Retry: ev.retry}}, at)
}

// respSession is the session of an answer's messages: a GET stream
// without a session id takes its endpoint's.
func (x *pcapImport) respSession(r *pcapResp) string {
	if r.session == "" {
		r.session = x.sess.of("", r.url, "", false)
	}
	return r.session
}

// requestMeta is a client message's HTTP: the answer's status and the
// request headers kept (never a credential).
func requestMeta(h http.Header, status int) *HTTPMeta {
	m := &HTTPMeta{Status: status}
	for k, vs := range h {
		if keepRequestHeader(k) {
			if m.Headers == nil {
				m.Headers = map[string][]string{}
			}
			m.Headers[canonical(k)] = append(m.Headers[canonical(k)], vs...)
		}
	}
	if m.Status == 0 && m.Headers == nil {
		return nil
	}
	return m
}
