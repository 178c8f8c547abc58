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
//     that hands out no session id — one per client: the client's IP
//     address and the clientInfo its requests carry in _meta
//     ("io.modelcontextprotocol/clientInfo"; initialize's clientInfo), or
//     its User-Agent when they carry none. Not the TCP connection: an
//     HTTP client spreads one MCP client's requests over several pooled
//     connections, and a replay needs them in one session (the
//     x-mcp-header annotations its tools/list taught, its multi-round
//     retries). Clients that cannot be told apart that way (the same
//     program, version and host) share one tape session: each request of
//     the stateless revision stands alone, so the tape still replays,
//     their requests in the order they came.

// newName returns the next tape session name. p.mu must be held.
func (p *HTTP) newName() string {
	p.names++
	return fmt.Sprintf("s%d", p.names)
}

// requestSession is the tape session of a request, when the request
// alone tells it: its Mcp-Session-Id, or the legacy endpoint it is posted
// to. known is false otherwise.
func (p *HTTP) requestSession(r *http.Request) (session string, known bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if id := r.Header.Get(mcp.HeaderSessionID); id != "" {
		name, ok := p.bySessID[id]
		if !ok { // a session begun before the proxy started
			name = p.newName()
			p.bySessID[id] = name
		}
		return name, true
	}
	if name, ok := p.byPath[r.URL.RequestURI()]; ok {
		return name, true
	}
	return "", false
}

// clientSession is the tape session of the client that sent r, whose
// clientInfo (raw JSON) is info, or nil.
func (p *HTTP) clientSession(r *http.Request, info []byte) string {
	key := clientKey(r, info)
	p.mu.Lock()
	defer p.mu.Unlock()
	name, ok := p.byClient[key]
	if !ok {
		name = p.newName()
		p.byClient[key] = name
	}
	return name
}

// clientKey tells a client apart when it has no session id: its IP
// address and its clientInfo, or its User-Agent when it sent none.
func clientKey(r *http.Request, info []byte) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if len(info) == 0 {
		return host + "\x00\x00" + r.UserAgent()
	}
	return host + "\x00" + string(info)
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
// of its own (legacy HTTP+SSE), or the client's (info: its clientInfo).
//
// A new session id joins the client's stateless session when that has
// no session id yet: a 2026 client that probed with server/discover, was
// refused and fell back to initialize is one session on the tape, as a
// replay needs it (mcp.MessageEra: the initialize that follows decides).
func (p *HTTP) answerSession(r *http.Request, resp *http.Response, info []byte) string {
	if id := resp.Header.Get(mcp.HeaderSessionID); id != "" {
		key := clientKey(r, info)
		p.mu.Lock()
		defer p.mu.Unlock()
		name, ok := p.bySessID[id]
		if !ok {
			name, ok = p.byClient[key]
			if !ok || p.joined[name] {
				name = p.newName()
			}
			p.joined[name] = true
			p.bySessID[id] = name
		}
		return name
	}
	if r.Method == http.MethodGet {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.newName()
	}
	return p.clientSession(r, info)
}

// announce routes the legacy endpoint uri (path and query, as the client
// will post to it) to session.
func (p *HTTP) announce(uri, session string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.byPath[uri] = session
	p.legacy = true
}
