package mock

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
)

// line is a recorded message: its direction and JSON, in a session.
type line struct {
	session string
	dir     tape.Dir
	msg     string
}

// indexOf indexes lines as a tape holding them in order, seq 0 on.
func indexOf(lines []line) *index {
	var b builder
	for i, l := range lines {
		b.add(tape.Message{Seq: int64(i), Session: l.session, Dir: l.dir, Msg: []byte(l.msg)})
	}
	return b.index()
}

// shown is an entry as a test compares it.
type shown struct {
	seq    int64
	method string
	params string
	answer string
	notes  []string
}

// show shows the entries of an index of a tape in memory. Params show as
// their hash (see hashShown).
func show(idx *index, es []entry) []shown {
	var out []shown
	for _, e := range es {
		s := shown{seq: e.seq, params: strconv.FormatUint(e.params, 16)}
		for name, id := range idx.methods {
			if id == e.method {
				s.method = name
			}
		}
		if e.ans != 0 {
			sp := idx.span(e.ans)
			s.answer = string(idx.mem.at(sp.off, sp.n))
		}
		for _, n := range idx.notesOf(&e) {
			sp := idx.span(n.at)
			s.notes = append(s.notes, string(idx.mem.at(sp.off, sp.n)))
		}
		out = append(out, s)
	}
	return out
}

// hashShown shows the entries' params as show does.
func hashShown(want []shown) []shown {
	out := slices.Clone(want)
	for i := range out {
		out[i].params = strconv.FormatUint(new(canon).hash([]byte(out[i].params)), 16)
	}
	return out
}

const (
	req1   = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}`
	req1b  = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"b"}}`
	req2   = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	ans1   = `{"jsonrpc":"2.0","id":1,"result":{"r":1}}`
	ans1b  = `{"jsonrpc":"2.0","id":1,"result":{"r":"b"}}`
	ans2   = `{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"no"}}`
	noteA  = `{"jsonrpc":"2.0","method":"notifications/message","params":{"a":1}}`
	noteB  = `{"jsonrpc":"2.0","method":"notifications/message","params":{"b":2}}`
	cNote  = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	srvReq = `{"jsonrpc":"2.0","id":9,"method":"sampling/createMessage","params":{}}`
	cAns   = `{"jsonrpc":"2.0","id":9,"result":{}}`
)

func TestIndexPairsRequestsWithAnswers(t *testing.T) {
	tests := []struct {
		name  string
		lines []line
		want  map[string][]shown
	}{
		{"answers by id, out of order", []line{
			{"s1", tape.C2S, req1}, {"s1", tape.C2S, req2}, {"s1", tape.S2C, ans2}, {"s1", tape.S2C, ans1},
		}, map[string][]shown{"s1": {
			{seq: 0, method: "tools/call", params: `{"name":"a"}`, answer: ans1},
			{seq: 1, method: "ping", answer: ans2},
		}}},
		{"a reused id: the latest request waiting", []line{
			{"s1", tape.C2S, req1}, {"s1", tape.C2S, req1b}, {"s1", tape.S2C, ans1b}, {"s1", tape.S2C, ans1},
		}, map[string][]shown{"s1": {
			{seq: 0, method: "tools/call", params: `{"name":"a"}`, answer: ans1},
			{seq: 1, method: "tools/call", params: `{"name":"b"}`, answer: ans1b},
		}}},
		{"notifications go with the next answer", []line{
			{"s1", tape.S2C, noteA}, {"s1", tape.C2S, req1}, {"s1", tape.S2C, noteB}, {"s1", tape.S2C, ans1},
			{"s1", tape.S2C, noteA}, {"s1", tape.C2S, req2}, {"s1", tape.S2C, ans2}, {"s1", tape.S2C, noteB},
		}, map[string][]shown{"s1": {
			{seq: 1, method: "tools/call", params: `{"name":"a"}`, answer: ans1, notes: []string{noteA, noteB}},
			{seq: 5, method: "ping", answer: ans2, notes: []string{noteA}},
		}}},
		{"sessions apart", []line{
			{"s1", tape.C2S, req1}, {"s2", tape.C2S, req1b}, {"s2", tape.S2C, noteA}, {"s1", tape.S2C, ans1}, {"s2", tape.S2C, ans1b},
		}, map[string][]shown{
			"s1": {{seq: 0, method: "tools/call", params: `{"name":"a"}`, answer: ans1}},
			"s2": {{seq: 1, method: "tools/call", params: `{"name":"b"}`, answer: ans1b, notes: []string{noteA}}},
		}},
		{"unanswered, stray and never matched messages", []line{
			{"s1", tape.C2S, cNote}, {"s1", tape.S2C, ans2}, {"s1", tape.C2S, req1}, {"s1", tape.S2C, srvReq},
			{"s1", tape.C2S, cAns}, {"s1", tape.C2S, `not json`}, {"s1", tape.S2C, `{"id":1}`},
		}, map[string][]shown{"s1": {
			{seq: 2, method: "tools/call", params: `{"name":"a"}`},
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			idx := indexOf(tt.lines)
			for name, want := range tt.want {
				want := hashShown(want)
				if got := show(idx, idx.sessions[name]); !slices.EqualFunc(got, want, sameShown) {
					t.Errorf("session %s:\ngot  %+v\nwant %+v", name, got, want)
				}
			}
			for name, es := range idx.sessions {
				if _, ok := tt.want[name]; !ok && len(es) > 0 {
					t.Errorf("session %s: got %+v, want none", name, show(idx, es))
				}
			}
		})
	}
}

func sameShown(a, b shown) bool {
	return a.seq == b.seq && a.method == b.method && a.params == b.params && a.answer == b.answer && slices.Equal(a.notes, b.notes)
}

func TestMatcherFindsWithinLookahead(t *testing.T) {
	// Five recorded calls: tools/call a, b, c, then ping, then a again.
	idx := indexOf([]line{
		{"s1", tape.C2S, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}`},
		{"s1", tape.S2C, `{"jsonrpc":"2.0","id":1,"result":"a1"}`},
		{"s1", tape.C2S, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b"}}`},
		{"s1", tape.S2C, `{"jsonrpc":"2.0","id":2,"result":"b"}`},
		{"s1", tape.C2S, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"c"}}`},
		{"s1", tape.S2C, `{"jsonrpc":"2.0","id":3,"result":"c"}`},
		{"s1", tape.C2S, `{"jsonrpc":"2.0","id":4,"method":"ping"}`},
		{"s1", tape.C2S, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"a"}}`},
		{"s1", tape.S2C, `{"jsonrpc":"2.0","id":5,"result":"a2"}`},
	})
	const none = "no answer"
	tests := []struct {
		name      string
		lookahead int
		asks      []string // params names, or "ping"
		want      []string // results, or none
	}{
		{"in order", 0, []string{"a", "b", "c", "ping", "a", "a"}, []string{`"a1"`, `"b"`, `"c"`, none, `"a2"`, none}},
		{"lookahead 0 answers only in order", 0, []string{"b", "a", "b"}, []string{none, `"a1"`, `"b"`}},
		{"lookahead 1 reaches one further", 1, []string{"b", "c", "a", "c"}, []string{`"b"`, none, `"a1"`, `"c"`}},
		{"asked ahead, then the gap filled", 2, []string{"c", "b", "a", "ping", "a"}, []string{`"c"`, `"b"`, `"a1"`, none, `"a2"`}},
		{"the second a is past the window", 2, []string{"a", "a"}, []string{`"a1"`, none}},
		{"an asked call is not asked again", 10, []string{"c", "c", "a", "b", "a"}, []string{`"c"`, none, `"a1"`, `"b"`, `"a2"`}},
		{"a negative lookahead is 0", -5, []string{"b", "a"}, []string{none, `"a1"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMatcher(idx, idx.sessions["s1"], tt.lookahead, 0)
			for i, ask := range tt.asks {
				msg := `{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"` + ask + `"}}`
				if ask == "ping" {
					msg = `{"jsonrpc":"2.0","id":"x","method":"ping"}`
				}
				req, err := jsonrpc.Parse([]byte(msg))
				if err != nil {
					t.Fatal(err)
				}
				_, ans := m.answer(req, false)
				got := string(ans)
				if strings.Contains(got, `"code":-32601`) {
					got = none
				} else if r, _ := jsonrpc.Parse(ans); string(r.ID) == `"x"` {
					got = string(r.Result())
				}
				if got != tt.want[i] {
					t.Errorf("ask %d (%s): got %s, want %s", i, ask, got, tt.want[i])
				}
			}
			if len(m.used) > 2 {
				t.Errorf("%d entries marked beyond the cursor; they should be let go as it passes them", len(m.used))
			}
		})
	}
}
