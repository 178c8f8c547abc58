package tape

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/replayctl/replayctl/mcp"
)

// pcapSessions finds the sessions of a capture's exchanges. While the
// capture is read, each gets a key; finish names them s1, s2, … in the
// order of their first message.
type pcapSessions struct {
	byID      map[string]string // Mcp-Session-Id → key
	cur       map[string]string // endpoint and client → key of its current session without id
	curURL    map[string]string // endpoint → key of its latest session without id, of any client
	endpoints map[string]string // a legacy SSE stream's message endpoint → its key
	merged    map[string]string // a key without id → the key of the session it turned out to open
	inited    map[string]bool   // keys without id that hold an initialize
	n         int
}

func newPcapSessions() pcapSessions {
	return pcapSessions{byID: map[string]string{}, cur: map[string]string{}, curURL: map[string]string{}, endpoints: map[string]string{},
		merged: map[string]string{}, inited: map[string]bool{}}
}

func (s *pcapSessions) fresh() string {
	s.n++
	return "k" + strconv.Itoa(s.n)
}

// of gives the key of an exchange's session: by its Mcp-Session-Id; else
// by the legacy endpoint it posts to; else by its URL and the client
// that its message names (clientInfo), a new one at each initialize; a
// message that names no client joins the URL's latest session. The
// exchanges a client made before it had a session id (a 2026 client's
// server/discover probe) join the session its id opens.
func (s *pcapSessions) of(id, url, client string, init bool) string {
	ck := url + "\x00" + client
	if id != "" {
		k, ok := s.byID[id]
		if !ok {
			k = s.fresh()
			s.byID[id] = k
		}
		// the initialize (or, when the capture has it later, the first
		// exchange) of the session takes in the client's probe
		if prev, found := s.cur[ck]; found && (!ok || init) && !s.inited[prev] {
			s.merged[prev] = k
			delete(s.cur, ck)
		}
		return k
	}
	if k, ok := s.endpoints[url]; ok {
		return k
	}
	k, ok := s.cur[ck]
	if client == "" {
		k, ok = s.curURL[url]
	}
	if !ok || init {
		k = s.fresh()
		s.cur[ck] = k
	}
	s.curURL[url] = k
	if init {
		s.inited[k] = true
	}
	return k
}

// root is the key a key's session ends up under.
func (s *pcapSessions) root(k string) string {
	for {
		next, ok := s.merged[k]
		if !ok {
			return k
		}
		k = next
	}
}

// clientName is the name of the client a request names: initialize's
// clientInfo, or a 2026 request's _meta clientInfo.
func clientName(msg []byte) string {
	var name string
	for _, path := range [][]string{{"params", "clientInfo", "name"}, {"params", "_meta", mcp.MetaClientInfo, "name"}} {
		if v := pick(msg, path...); v != nil && json.Unmarshal(v, &name) == nil && name != "" {
			return name
		}
	}
	return ""
}

// headerNV turns http.Header into the HAR pairs messageVersion reads.
func headerNV(h http.Header) []harNV {
	var out []harNV
	for k, vs := range h {
		for _, v := range vs {
			out = append(out, harNV{Name: k, Value: v})
		}
	}
	return out
}
