package mock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/replayctl/replayctl/internal/editdist"
	"github.com/replayctl/replayctl/internal/english"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
	"github.com/replayctl/replayctl/validator"
)

// query is a live request as matching sees it.
type query struct {
	method uint32 // the tape's number for the method, if known
	known  bool   // the tape has requests of this method
	name   string
	hash   uint64 // the params hash, as the index's (volatile left out but for exact)
	params []byte
}

// closestLimit bounds the recorded requests a miss compares the live one
// with, to name the closest.
const closestLimit = 1000

func (s *Server) query(req jsonrpc.Message) query {
	q := query{name: req.Method, params: req.Params()}
	q.method, q.known = s.idx.methods[req.Method]
	if q.known && s.strategy.usesHash() {
		sc := scratchPool.Get().(*scratch)
		var skip *trie
		if s.strategy != Exact {
			skip = s.vol.of(req.Method)
		}
		q.hash = sc.canon.hashSkip(q.params, skip)
		scratchPool.Put(sc)
	}
	return q
}

// matches reports whether entry i of recorded session name can answer q,
// whether or not it has been answered already.
func (s *Server) matches(name string, i int, q query) bool {
	s.idx.examined.Add(1)
	return s.matchesIn(s.idx.sessions[name], name, i, q)
}

// matchesIn is matches with recorded session name's entries es at hand:
// choose asks it of every entry of a session, where a lookup of the
// session by name for each took most of a miss's time.
func (s *Server) matchesIn(es []entry, name string, i int, q query) bool {
	e := &es[i]
	if !q.known || e.method != q.method {
		return false
	}
	switch s.strategy {
	case Exact, MethodAndParams:
		return e.params == q.hash || e.params == anyParams // anyParams: recorded redacted
	case Subset:
		rec, err := s.recordedParams(name, i)
		return err == nil && contains(rec, q.params, s.vol.of(q.name))
	}
	return true // Method, Sequential
}

// choose picks the entry of recorded session name to answer q with (see
// cursor.chooseAmong); for Sequential the next one, if its method is q's.
func (s *Server) choose(cur *cursor, name string, q query, again bool) pick {
	if s.strategy == Sequential {
		p := cur.first(again)
		if p.i >= 0 && !s.matches(name, p.i, q) {
			return pick{i: -1}
		}
		return p
	}
	es := s.idx.sessions[name]
	var a, b []uint32 // the entries that can match q
	if q.known {
		k := s.idx.keysOf(es)
		if s.strategy.usesHash() {
			a, b = k.matching(es, q.method, q.hash)
		} else {
			a = k.ofMethod(es, q.method)
		}
	}
	examined := 0
	p := cur.chooseAmong(a, b, func(i int) bool { examined++; return s.matchesIn(es, name, i, q) })
	s.idx.examined.Add(int64(examined))
	return p
}

// bind picks the recorded session a new live session is bound to, by its
// first request q: among the recorded sessions whose first request
// matches q (narrowed by exactly), or else those with any request
// matching q, the next in turn (round-robin, so that concurrent clients
// spread over recorded sessions alike). false when no recorded session
// has q.
func (s *Server) bind(q query) (string, bool) {
	var first, any []string
	for _, name := range s.idx.order {
		if len(s.idx.sessions[name]) > 0 && s.matches(name, 0, q) {
			first = append(first, name)
			continue
		}
		c := newCursor(len(s.idx.sessions[name]))
		if p := s.choose(&c, name, q, false); p.i >= 0 && s.strategy != Sequential {
			any = append(any, name)
		}
	}
	cands := s.exactly(first, q)
	if len(cands) == 0 {
		cands = any
	}
	if len(cands) == 0 {
		return "", false
	}
	return cands[int(uint64(s.rr.Add(1)-1)%uint64(len(cands)))], true
}

// exactly narrows cands, recorded sessions whose first request matches
// q, to those whose first request has q's very params, volatile members
// included: concurrent clients told apart only by what matching leaves
// out (initialize's clientInfo) are each bound to their own recording,
// not to another client's. cands itself when fewer than two, or when
// none has q's very params (a client that changed its name or version).
func (s *Server) exactly(cands []string, q query) []string {
	if len(cands) < 2 || s.strategy == Exact {
		return cands
	}
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	want := sc.canon.hash(q.params)
	var same []string
	for _, name := range cands {
		rec, err := s.recordedParams(name, 0)
		if err == nil && sc.canon.hash(rec) == want {
			same = append(same, name)
		}
	}
	if len(same) == 0 {
		return cands
	}
	return same
}

// missUnbound is the miss of a request no recorded session has.
func (s *Server) missUnbound(live string, req jsonrpc.Message, q query) *Miss {
	if !q.known {
		return newMiss(live, "", req, s.noMethod(transport.Clip(req.Method)))
	}
	if s.strategy == Sequential {
		m := newMiss(live, "", req, fmt.Sprintf("sequential: no recorded session starts with %s request", article(transport.Clip(req.Method))))
		if len(s.idx.order) > 0 && len(s.idx.sessions[s.idx.order[0]]) > 0 {
			name := s.idx.order[0]
			e := s.idx.sessions[name][0]
			m.Reason += fmt.Sprintf(" (session %s starts with %s, seq %d)", name, s.methodName(e.method), e.seq)
			m.Closest = s.closestOf(name, 0, req)
		}
		return m
	}
	m := newMiss(live, "", req, fmt.Sprintf("no recorded session has %s request like this one (strategy %s)", article(transport.Clip(req.Method)), s.strategy))
	m.Closest = s.closest(s.idx.order, nil, req)
	return m
}

// missIn is the miss of a request in a live session bound to recorded
// session name, p being what choosing gave.
func (s *Server) missIn(live, name string, cur *cursor, req jsonrpc.Message, q query, p pick) *Miss {
	m := newMiss(live, name, req, "")
	switch {
	case !q.known:
		m.Reason = s.noMethod(m.Method)
		return m
	case s.strategy == Sequential && p.i < 0:
		next := cur.first(false)
		if next.i < 0 {
			m.Reason = fmt.Sprintf("sequential: every recorded request of session %s was answered already", name)
			return m
		}
		e := s.idx.sessions[name][next.i]
		m.Reason = fmt.Sprintf("sequential: the next recorded request of session %s is %s (seq %d), not %s", name, s.methodName(e.method), e.seq, m.Method)
		m.Closest = s.closestOf(name, next.i, req)
		return m
	case p.i >= 0 && !p.fresh:
		m.Reason = fmt.Sprintf("the recorded %s request like this one in session %s was answered already (repeat answers it again)", m.Method, name)
		if p.matches != 1 {
			m.Reason = fmt.Sprintf("the %s like this one in session %s were all answered already (repeat answers them again)", english.Count(int64(p.matches), "recorded "+m.Method+" request"), name)
		}
		m.Closest = s.closestOf(name, p.i, req)
		return m
	}
	m.Reason = fmt.Sprintf("session %s has no %s request like this one left to answer (strategy %s)", name, m.Method, s.strategy)
	m.Closest = s.closest([]string{name}, cur, req)
	if m.Closest == nil { // none of that method in this session: look in the others
		m.Closest = s.closest(s.idx.order, nil, req)
	}
	return m
}

// missUnanswered is the miss of a request matched to entry i of recorded
// session name, which has no recorded answer: the recording ended (or
// the server never answered) before it.
func (s *Server) missUnanswered(live, name string, i int, req jsonrpc.Message) *Miss {
	m := newMiss(live, name, req, fmt.Sprintf("the recorded request (seq %d of session %s) has no recorded answer: the recording ended, or the server never answered, before it", s.idx.sessions[name][i].seq, name))
	m.Closest = s.closestOf(name, i, req)
	return m
}

// noMethod is the reason of a miss of a method the tape never asked.
func (s *Server) noMethod(method string) string {
	names := make([]string, 0, len(s.idx.methods))
	for n := range s.idx.methods {
		names = append(names, n)
	}
	sort.Strings(names)
	meant := ""
	if c := editdist.Closest(method, names); c != "" {
		meant = ": did you mean " + c + "?"
	}
	if len(names) > 12 {
		names = append(names[:12], "…")
	}
	return fmt.Sprintf("the tape has no %s request%s (it has %s)", method, meant, strings.Join(names, ", "))
}

func (s *Server) methodName(id uint32) string {
	for n, m := range s.idx.methods {
		if m == id {
			return n
		}
	}
	return "?"
}

// closest returns the recorded request of req's method, in the sessions
// names, with the fewest differences from req (volatile fields left
// out); of equals, one not answered yet (when cur, the live session's
// cursor over names[0], is given), then the first recorded. nil when
// there is none of that method.
func (s *Server) closest(names []string, cur *cursor, req jsonrpc.Message) *Closest {
	method, ok := s.idx.methods[req.Method]
	if !ok {
		return nil
	}
	type cand struct {
		name  string
		i     int
		diffs int
		used  bool
		ds    []validator.Difference // what differs, kept for the report
	}
	var best *cand
	checked := 0
sessions:
	for _, name := range names {
		es := s.idx.sessions[name]
		for _, at := range s.idx.keysOf(es).ofMethod(es, method) {
			i := int(at)
			s.idx.examined.Add(1)
			if checked++; checked > closestLimit {
				break sessions
			}
			rec, err := s.recordedRequest(name, i)
			if err != nil {
				continue
			}
			ds, err := s.differences(rec, req)
			if err != nil {
				continue
			}
			c := cand{name: name, i: i, diffs: len(ds), used: cur != nil && name == names[0] && cur.uses(i) > 0, ds: ds}
			if best == nil || c.diffs < best.diffs || c.diffs == best.diffs && best.used && !c.used {
				best = &c
			}
			if best.diffs <= 1 && !best.used { // none can be closer: a request that differs nowhere matched
				return s.closestWith(best.name, best.i, req, best.ds)
			}
		}
	}
	if best == nil {
		return nil
	}
	return s.closestWith(best.name, best.i, req, best.ds)
}

// closestOf describes entry i of recorded session name as the closest
// request to req.
func (s *Server) closestOf(name string, i int, req jsonrpc.Message) *Closest {
	return s.closestWith(name, i, req, nil)
}

// closestWith is closestOf with ds, when not nil, the differences of
// req from entry i's request, found already (see closest).
func (s *Server) closestWith(name string, i int, req jsonrpc.Message, ds []validator.Difference) *Closest {
	e := s.idx.sessions[name][i]
	c := &Closest{Session: name, Seq: e.seq, Method: s.methodName(e.method)}
	rec, err := s.recordedRequest(name, i)
	if err != nil {
		return c
	}
	if r, err := jsonrpc.Parse(rec); err == nil {
		c.Params = masked(bytes.Clone(r.Params()))
	}
	if ds == nil {
		if ds, err = s.differences(rec, req); err != nil {
			return c
		}
	}
	c.Differences = maskDifferences(ds)
	return c
}

// differences returns where req differs from the recorded request rec,
// volatile fields left out: the validator ignores them, and a member
// added or removed whose value holds only volatile fields ({"_meta":
// {"progressToken": …}} against no _meta) is no difference either.
func (s *Server) differences(rec []byte, req jsonrpc.Message) ([]validator.Difference, error) {
	ds, err := s.checker(req.Method).Compare(rec, req.Raw)
	if err != nil || s.strategy == Exact {
		return ds, err
	}
	skip := s.vol.of(req.Method)
	kept := ds[:0]
	for _, d := range ds {
		if d.Kind == validator.DiffAdded || d.Kind == validator.DiffRemoved {
			v := d.Actual
			if d.Kind == validator.DiffRemoved {
				v = d.Expected
			}
			if onlyVolatile(d.Path, v, skip) {
				continue
			}
		}
		kept = append(kept, d)
	}
	return kept, nil
}

// onlyVolatile reports whether the object v at path (inside a request)
// holds only members skip leaves out.
func onlyVolatile(path string, v []byte, skip *trie) bool {
	segs, err := parsePath(path)
	if err != nil || len(segs) < 2 || segs[0] != "params" {
		return false
	}
	node := skip
	for _, seg := range segs[1:] {
		if strings.HasPrefix(seg, "\x00[") {
			var i int
			if _, err := fmt.Sscanf(seg, "\x00[%d]", &i); err != nil {
				return false
			}
			node = node.element(i)
		} else {
			node = node.member([]byte(seg))
		}
		if node == nil {
			return false
		}
	}
	var m map[string]any
	if json.Unmarshal(v, &m) != nil {
		return false
	}
	return emptiedBy(m, node)
}

// recordedRequest returns the recorded request of entry i of session
// name, in memory of its own.
func (s *Server) recordedRequest(name string, i int) ([]byte, error) {
	var buf []byte
	e := s.idx.sessions[name][i]
	msg, err := s.idx.atDir(s.idx.infoOf(name, i).req, e.seq, tape.C2S, &buf)
	if err != nil {
		return nil, err
	}
	return msg, nil // in memory, or in buf, which is this call's own
}

// recordedParams returns the params of the recorded request of entry i.
func (s *Server) recordedParams(name string, i int) ([]byte, error) {
	rec, err := s.recordedRequest(name, i)
	if err != nil {
		return nil, err
	}
	r, err := jsonrpc.Parse(rec)
	if err != nil {
		return nil, err
	}
	return r.Params(), nil
}

// article is word after "a" or "an", as it is read: "an initialize",
// "a tools/call".
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiouAEIOU", rune(word[0])) {
		return "an " + word
	}
	return "a " + word
}
