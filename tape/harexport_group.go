package tape

import "sort"

// harExport is one exchange, rebuilt, with its messages.
type harExport struct {
	session string
	get     bool    // a GET stream, with no client message
	req     Message // the client message of a POST
	answers []Message
}

// exGroup is one exchange being rebuilt: which messages it holds, by
// their place on the tape (and in the store that holds their bodies; a
// tape's seqs increase with their place, so that is also seq order).
type exGroup struct {
	start   int64   // when it started: its request's time, or its first answer's
	answers []int32 // its answers' places
	session int32   // in grouper.names
	req     int32   // the place of the client message of a POST
	pending int32   // requests of req not answered yet
	last    int32   // place of its last response, or -1
	get     bool    // a GET stream, with no client message
	json    bool    // answered by an application/json body: the whole answer
}

// streams reports whether the server message at place i may have come on
// ex's answer: ex is a POST sent before it whose answer is an event
// stream still open then (before its last response, or, with requests
// still unanswered at the end of the tape, a stream that had begun).
func (ex *exGroup) streams(i int32) bool {
	if ex.get || ex.json || ex.req >= i {
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
// GET stream (done once every message is in: exchanges). It keeps about
// 30 bytes a message.
type grouper struct {
	exs      []*exGroup
	sessions []*groupState
	names    []string         // session names by index
	index    map[string]int32 // and their indexes
	others   []int32          // places of the server messages that answer no request
	otherOf  []int32          // and their sessions
	otherTUS []int64          // and times
	n        int32
}

// groupState is a session's exchanges while grouping.
type groupState struct {
	ids   map[string]*exGroup
	posts []*exGroup // POSTs with requests, in order
	next  int        // posts[:next] are in open or done with
	open  []*exGroup // POSTs whose stream may be open, oldest first
	get   *exGroup
}

func (g *grouper) of(name string) int32 {
	if k, ok := g.index[name]; ok {
		return k
	}
	if g.index == nil {
		g.index = map[string]int32{}
	}
	k := int32(len(g.names))
	g.index[name] = k
	g.names = append(g.names, name)
	g.sessions = append(g.sessions, &groupState{ids: map[string]*exGroup{}})
	return k
}

// add takes the next message of the tape.
func (g *grouper) add(m Message) {
	i := g.n
	g.n++
	session := g.of(m.Session)
	s := g.sessions[session]
	if m.Dir == C2S {
		ex := &exGroup{session: session, req: i, start: m.TUS, last: -1}
		g.exs = append(g.exs, ex)
		for _, id := range requestIDs(m.Msg) {
			s.ids[id] = ex
			ex.pending++
		}
		if ex.pending > 0 {
			s.posts = append(s.posts, ex)
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
		g.others, g.otherOf, g.otherTUS = append(g.others, i), append(g.otherOf, session), append(g.otherTUS, m.TUS)
		return
	}
	ex.answers = append(ex.answers, i)
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
	for k, i := range g.others {
		s := g.sessions[g.otherOf[k]]
		for s.next < len(s.posts) && s.posts[s.next].req < i { // POSTs sent before it
			s.open = append(s.open, s.posts[s.next])
			s.next++
		}
		var ex *exGroup
		n := 0
		for _, e := range s.open { // keep those whose stream may still carry messages
			if e.streams(i) {
				ex = e
				s.open[n] = e
				n++
			}
		}
		s.open = s.open[:n]
		if ex == nil {
			if s.get == nil {
				s.get = &exGroup{session: g.otherOf[k], get: true, req: -1, last: -1, start: g.otherTUS[k]}
				g.exs = append(g.exs, s.get)
			}
			ex = s.get
		}
		ex.answers = append(ex.answers, i)
	}
	g.others, g.otherOf, g.otherTUS = nil, nil, nil
	for _, ex := range g.exs {
		sort.Slice(ex.answers, func(a, b int) bool { return ex.answers[a] < ex.answers[b] })
	}
	sort.SliceStable(g.exs, func(i, j int) bool { return g.exs[i].start < g.exs[j].start })
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
