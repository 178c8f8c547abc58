package tape

import "sort"

// harExport is one exchange, rebuilt, with its messages.
type harExport struct {
	session string
	get     bool    // a GET stream, with no client message
	req     Message // the client message of a POST
	answers []Message
}

// exMsg is what grouping keeps of a message: its position on the tape
// (and in the store that holds its body), seq and time.
type exMsg struct {
	i        int
	seq, tus int64
}

// exGroup is one exchange being rebuilt: which messages it holds.
type exGroup struct {
	session string
	get     bool  // a GET stream, with no client message
	req     exMsg // the client message of a POST
	answers []exMsg
	pending int  // requests of req not answered yet
	last    int  // index of its last response, or -1
	json    bool // answered by an application/json body: the whole answer
}

func (ex *exGroup) startUS() int64 {
	if ex.get {
		return ex.answers[0].tus
	}
	return ex.req.tus
}

// streams reports whether the server message at index i may have come on
// ex's answer: ex is a POST sent before it whose answer is an event
// stream still open then (before its last response, or, with requests
// still unanswered at the end of the tape, a stream that had begun).
func (ex *exGroup) streams(i, reqIdx int) bool {
	if ex.get || ex.json || reqIdx >= i {
		return false
	}
	return i < ex.last || (ex.pending > 0 && ex.last >= 0)
}

// grouper rebuilds the HTTP exchanges of a tape's messages, given one by
// one in seq order (add), without keeping their bodies: one POST per
// client message, answered by the responses with its ids; a response the
// server could not tie to a request (an error with a null id, such as a
// 400 to a refused probe) answers the session's oldest POST still waiting
// for its first answer. An application/json answer is the whole answer of
// its POST. A server notification or request goes to the latest POST of
// its session whose event stream was open then, else to the session's
// GET stream (done once every message is in: exchanges).
type grouper struct {
	exs      []*exGroup
	sessions map[string]*groupState
	names    map[string]string // session names, interned
	others   []exMsg           // server messages that answer no request
	otherOf  []string          // and their sessions
	n        int
}

// groupState is a session's exchanges while grouping.
type groupState struct {
	ids     map[string]*exGroup
	posts   []*exGroup // POSTs with requests, in order
	idx     []int      // each post's index on the tape
	next    int        // posts[:next] are in open or done with
	open    []*exGroup // POSTs whose stream may be open, oldest first
	openIdx []int
	get     *exGroup
}

func (g *grouper) of(name string) (*groupState, string) {
	if g.sessions == nil {
		g.sessions, g.names = map[string]*groupState{}, map[string]string{}
	}
	if n, ok := g.names[name]; ok {
		name = n
	} else {
		g.names[name] = name
	}
	s := g.sessions[name]
	if s == nil {
		s = &groupState{ids: map[string]*exGroup{}}
		g.sessions[name] = s
	}
	return s, name
}

// add takes the next message of the tape.
func (g *grouper) add(m Message) {
	i := g.n
	g.n++
	s, session := g.of(m.Session)
	em := exMsg{i: i, seq: m.Seq, tus: m.TUS}
	if m.Dir == C2S {
		ex := &exGroup{session: session, req: em, last: -1}
		g.exs = append(g.exs, ex)
		for _, id := range requestIDs(m.Msg) {
			s.ids[id] = ex
			ex.pending++
		}
		if ex.pending > 0 {
			s.posts, s.idx = append(s.posts, ex), append(s.idx, i)
		}
		return
	}
	var ex *exGroup
	rids := responseIDs(m.Msg)
	for _, id := range rids {
		if e, ok := s.ids[id]; ok {
			ex = e
			delete(s.ids, id)
			e.pending--
		}
	}
	if ex == nil && len(rids) > 0 {
		for _, e := range s.posts {
			if e.pending > 0 && !e.json && len(e.answers) == 0 {
				ex = e
				break
			}
		}
	}
	if ex == nil {
		g.others, g.otherOf = append(g.others, em), append(g.otherOf, session)
		return
	}
	ex.answers = append(ex.answers, em)
	ex.last = i
	if jsonAnswer(m) {
		ex.json = true
		for id, e := range s.ids {
			if e == ex {
				delete(s.ids, id)
			}
		}
		ex.pending = 0
	}
}

// exchanges places the server messages that answer no request and returns
// the exchanges in the order they started.
func (g *grouper) exchanges() []*exGroup {
	for k, m := range g.others {
		i := m.i
		s, session := g.of(g.otherOf[k])
		for s.next < len(s.posts) && s.idx[s.next] < i { // POSTs sent before m
			s.open, s.openIdx = append(s.open, s.posts[s.next]), append(s.openIdx, s.idx[s.next])
			s.next++
		}
		var ex *exGroup
		n := 0
		for k, e := range s.open { // keep those whose stream may still carry messages
			if e.streams(i, s.openIdx[k]) {
				ex = e
				s.open[n], s.openIdx[n] = e, s.openIdx[k]
				n++
			}
		}
		s.open, s.openIdx = s.open[:n], s.openIdx[:n]
		if ex == nil {
			if s.get == nil {
				s.get = &exGroup{session: session, get: true, last: -1}
				g.exs = append(g.exs, s.get)
			}
			ex = s.get
		}
		ex.answers = append(ex.answers, m)
	}
	g.others, g.otherOf = nil, nil
	for _, ex := range g.exs {
		sort.SliceStable(ex.answers, func(a, b int) bool { return ex.answers[a].seq < ex.answers[b].seq })
	}
	sort.SliceStable(g.exs, func(i, j int) bool { return g.exs[i].startUS() < g.exs[j].startUS() })
	return g.exs
}

// jsonAnswer reports whether a server message came as an application/json
// body, which holds one message and ends its exchange.
func jsonAnswer(m Message) bool {
	if m.SSE != nil || m.HTTP == nil {
		return false
	}
	for k, vs := range m.HTTP.Headers {
		if equalFold(k, "Content-Type") && len(vs) > 0 {
			return mediaTypeOf(vs[0]) == "application/json"
		}
	}
	return false
}
