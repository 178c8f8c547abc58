package tape

import "sort"

// harExport is one exchange being rebuilt.
type harExport struct {
	session string
	get     bool    // a GET stream, with no client message
	req     Message // the client message of a POST
	answers []Message
	pending int  // requests of req not answered yet
	last    int  // index of its last response, or -1
	json    bool // answered by an application/json body: the whole answer
}

func (ex *harExport) startUS() int64 {
	if ex.get {
		return ex.answers[0].TUS
	}
	return ex.req.TUS
}

// streams reports whether the server message at index i may have come on
// ex's answer: ex is a POST sent before it whose answer is an event
// stream still open then (before its last response, or, with requests
// still unanswered at the end of the tape, a stream that had begun).
func (ex *harExport) streams(i, reqIdx int) bool {
	if ex.get || ex.json || reqIdx >= i {
		return false
	}
	return i < ex.last || (ex.pending > 0 && ex.last >= 0)
}

// groupExchanges rebuilds the HTTP exchanges of a tape's messages, given
// in seq order: one POST per client message, answered by the responses
// with its ids; a response the server could not tie to a request (an
// error with a null id, such as a 400 to a refused probe) answers the
// session's oldest POST still waiting for its first answer. An
// application/json answer is the whole answer of its POST. A server
// notification or request goes to the latest POST of its session whose
// event stream was open then, else to the session's GET stream.
func groupExchanges(all []Message) []*harExport {
	type state struct {
		ids     map[string]*harExport
		posts   []*harExport // POSTs with requests, in order
		idx     []int        // each post's index in all
		next    int          // posts[:next] are in open or done with
		open    []*harExport // POSTs whose stream may be open, oldest first
		openIdx []int
		get     *harExport
	}
	var exs []*harExport
	sessions := map[string]*state{}
	of := func(name string) *state {
		s := sessions[name]
		if s == nil {
			s = &state{ids: map[string]*harExport{}}
			sessions[name] = s
		}
		return s
	}
	var others []int // server messages that answer no request
	for i, m := range all {
		s := of(m.Session)
		if m.Dir == C2S {
			ex := &harExport{session: m.Session, req: m, last: -1}
			exs = append(exs, ex)
			for _, id := range requestIDs(m.Msg) {
				s.ids[id] = ex
				ex.pending++
			}
			if ex.pending > 0 {
				s.posts, s.idx = append(s.posts, ex), append(s.idx, i)
			}
			continue
		}
		var ex *harExport
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
			others = append(others, i)
			continue
		}
		ex.answers = append(ex.answers, m)
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
	for _, i := range others {
		m := all[i]
		s := of(m.Session)
		for s.next < len(s.posts) && s.idx[s.next] < i { // POSTs sent before m
			s.open, s.openIdx = append(s.open, s.posts[s.next]), append(s.openIdx, s.idx[s.next])
			s.next++
		}
		var ex *harExport
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
				s.get = &harExport{session: m.Session, get: true, last: -1}
				exs = append(exs, s.get)
			}
			ex = s.get
		}
		ex.answers = append(ex.answers, m)
	}
	for _, ex := range exs {
		sort.SliceStable(ex.answers, func(a, b int) bool { return ex.answers[a].Seq < ex.answers[b].Seq })
	}
	sort.SliceStable(exs, func(i, j int) bool { return exs[i].startUS() < exs[j].startUS() })
	return exs
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
