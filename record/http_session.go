package record

import (
	"fmt"
	"net"
	"net/http"

	"github.com/replayctl/replayctl/internal/jsonscan"
	"github.com/replayctl/replayctl/mcp"
)

// How the proxy names tape sessions. Each client session is its own tape
// session, named s1, s2, … in the order the proxy first sees them:
//
//   - Session-based revisions: one per Mcp-Session-Id. The initialize
//     request carries none yet: it is held until its answer assigns one.
//   - Legacy HTTP+SSE: one per GET stream (the endpoint it announces, path
//     and query, routes the client's POSTs to it).
//   - Everything else — the stateless revision 2026-07-28, or a server
//     that hands out no session id — one per client, as far as the wire
//     tells (see lanes): clients are told apart by their IP address and
//     the clientInfo their requests carry in _meta
//     ("io.modelcontextprotocol/clientInfo"; initialize's clientInfo), when
//     they carry one; then by their JSON-RPC ids, which a client never
//     reuses, and by connection. Not by connection
//     alone: an HTTP client spreads one MCP client's requests over pooled
//     connections, and a replay needs them in one session (the
//     x-mcp-header annotations its tools/list taught, its multi-round
//     retries).
//   - A 2026 client whose server/discover probe was refused and that fell
//     back to initialize is one session: the session id the initialize
//     gets joins the probe's lane.

// newName returns the next tape session name. p.mu must be held.
func (p *HTTP) newName() string {
	p.names++
	return fmt.Sprintf("s%d", p.names)
}

// requestSession is the tape session of a request, when the request
// alone tells it: its Mcp-Session-Id, or the legacy endpoint it is posted
// to (legacy is then set). known is false otherwise.
func (p *HTTP) requestSession(r *http.Request) (session string, known, legacy bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if id := r.Header.Get(mcp.HeaderSessionID); id != "" {
		name, ok := p.bySessID[id]
		if !ok { // a session begun before the proxy started
			name = p.newName()
			p.bySessID[id] = name
		}
		return name, true, false
	}
	if name, ok := p.byPath[r.URL.RequestURI()]; ok {
		return name, true, true
	}
	return "", false, false
}

// clientSession is the tape session (a lane) of a message with id
// (jsonrpc.IDKey, "" for none) from the client that sent r, whose
// clientInfo (raw JSON) is info, or nil; the request is noted in it.
func (p *HTTP) clientSession(r *http.Request, info []byte, id string) *lane {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seq++
	return p.lanes.pick(host, string(info), r.RemoteAddr, id, p.seq, p.newName)
}

// answered notes the answer to the request id of lane l.
func (p *HTTP) answered(l *lane, id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l.answered(id)
}

// clientInfo is the clientInfo a request's params carry: in _meta
// (stateless revision), else initialize's; nil if none.
func clientInfo(params []byte) []byte {
	if info := member(member(params, "_meta"), mcp.MetaClientInfo); info != nil {
		return info
	}
	return member(params, "clientInfo")
}

// member is the raw value of doc's top-level member name, or nil.
func member(doc []byte, name string) []byte {
	if len(doc) == 0 {
		return nil
	}
	var v []byte
	_ = jsonscan.Members(doc, func(m jsonscan.Member) bool {
		if !m.KeyEscaped && string(m.Key) == name {
			v = doc[m.Start:m.End]
			return false
		}
		return true
	})
	return v
}

// answerSession is the tape session of an exchange whose request did not
// tell: the session id the answer assigns, or for a GET stream a session
// of its own (legacy HTTP+SSE), or the client's lane. A GET without a
// session id is not a request of a lane: it carries no id, and its
// answer is a stream, not an answer.
//
// A new session id joins the client's stateless session when that has
// no session id yet: a 2026 client that probed with server/discover, was
// refused and fell back to initialize is one session on the tape, as a
// replay needs it (mcp.MessageEra: the initialize that follows decides).
func (p *HTTP) answerSession(ex *exchange, resp *http.Response) string {
	r := ex.req
	if id := resp.Header.Get(mcp.HeaderSessionID); id != "" {
		p.mu.Lock()
		name, ok := p.bySessID[id]
		p.mu.Unlock()
		if ok {
			return name
		}
		l := p.clientSession(r, ex.client, ex.id)
		ex.lane = l // settled with the answer
		p.mu.Lock()
		defer p.mu.Unlock()
		if name, ok := p.bySessID[id]; ok { // another request of the session came first
			return name
		}
		if l.joined {
			l = &lane{name: p.newName(), pending: map[string]struct{}{}}
		}
		l.joined = true
		p.bySessID[id] = l.name
		return l.name
	}
	if r.Method == http.MethodGet {
		if resp.StatusCode/100 != 2 {
			return "" // no stream (405: the server offers none): nothing to record, no name
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.newName()
	}
	l := p.clientSession(r, ex.client, ex.id)
	ex.lane = l
	return l.name
}

// announce routes the legacy endpoint uri (path and query, as the client
// will post to it) to session.
func (p *HTTP) announce(uri, session string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.byPath[uri] = session
	p.legacy = true
}
