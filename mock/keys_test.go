package mock

import (
	"math/rand/v2"
	"testing"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
)

// TestChooseAmongKeysAsChoose: on random sessions (3 methods, 4 params
// hashes, some recorded redacted) with random entries answered, choosing
// among the keys' candidates picks what choosing over every entry picks,
// and a matcher's unasked what a scan of every entry finds.
func TestChooseAmongKeysAsChoose(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 500 {
		n := rng.IntN(40)
		es := make([]entry, n)
		for i := range es {
			es[i] = entry{seq: int64(i), method: uint32(rng.IntN(3)), params: uint64(10 + rng.IntN(4))}
			if rng.IntN(8) == 0 {
				es[i].params = anyParams
			}
		}
		k := newKeys(es)
		c := newCursor(n)
		for range rng.IntN(n + 1) {
			c.use(rng.IntN(n))
		}
		for range 20 {
			method, params := uint32(rng.IntN(4)), uint64(10+rng.IntN(5))
			match := func(i int) bool {
				return es[i].method == method && (es[i].params == params || es[i].params == anyParams)
			}
			a, b := k.matching(es, method, params)
			if got, want := c.chooseAmong(a, b, match), c.choose(match); got != want {
				t.Fatalf("round %d: method %d params %d: chooseAmong %+v, choose %+v", round, method, params, got, want)
			}
			anyMethod := func(i int) bool { return es[i].method == method }
			if got, want := c.chooseAmong(k.ofMethod(es, method), nil, anyMethod), c.choose(anyMethod); got != want {
				t.Fatalf("round %d: method %d: chooseAmong %+v, choose %+v", round, method, got, want)
			}

			idx := &index{sessions: map[string][]entry{"s": es}}
			from := int64(rng.IntN(n + 1))
			m := newMatcher(idx, es, rng.IntN(12), from)
			for range rng.IntN(n + 1) {
				if len(m.entries) > 0 {
					m.use(rng.IntN(len(m.entries)))
				}
			}
			end := min(len(m.entries), m.next+m.lookahead+1)
			want := -1
			for i := m.next; i < end; i++ {
				if _, used := m.used[i]; !used && match(m.base+i) {
					want = i
					break
				}
			}
			if got := m.unasked(method, params); got != want {
				t.Fatalf("round %d: method %d params %d: unasked %d, a scan %d", round, method, params, got, want)
			}
		}
	}
}

// TestInOrderWithoutParams: a replay in recorded order of requests
// without params (ping) and with them is answered by the params' bytes
// alone: the index never hashes the recorded params canonically. A
// request out of order then has them hashed, and is answered.
func TestInOrderWithoutParams(t *testing.T) {
	b := builder{lazy: true}
	for i, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a"}}`, `{"jsonrpc":"2.0","id":2,"result":"a"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"b"}}`, `{"jsonrpc":"2.0","id":3,"result":"b"}`,
		`{"jsonrpc":"2.0","id":4,"method":"ping"}`, `{"jsonrpc":"2.0","id":4,"result":{}}`,
	} {
		dir := tape.C2S
		if i%2 == 1 {
			dir = tape.S2C
		}
		b.add(tape.Message{Seq: int64(i), Session: "s1", Dir: dir, Msg: []byte(msg)})
	}
	idx := b.index()
	ask := func(m *matcher, msg string) string {
		req, err := jsonrpc.Parse([]byte(msg))
		if err != nil {
			t.Fatal(err)
		}
		_, ans := m.answer(req, false)
		r, _ := jsonrpc.Parse(ans)
		return string(r.ID) + " " + string(r.Result())
	}
	m := newMatcher(idx, idx.sessions["s1"], 10, 0)
	for _, x := range []struct{ msg, want string }{
		{`{"jsonrpc":"2.0","id":"x1","method":"ping"}`, `"x1" {}`},
		{`{"jsonrpc":"2.0","id":"x2","method":"tools/call","params":{"name":"a"}}`, `"x2" "a"`},
	} {
		if got := ask(&m, x.msg); got != x.want {
			t.Errorf("%s: got %s, want %s", x.msg, got, x.want)
		}
	}
	for _, e := range idx.sessions["s1"] {
		if e.req != 0 && e.params != 0 {
			t.Fatalf("entry seq %d: params hashed (%x) before any request needed it", e.seq, e.params)
		}
	}
	if idx.sessions["s1"][2].req == 0 {
		t.Fatal("the third entry's params were hashed before any request needed it")
	}
	// Out of order: ping before the second call.
	if got := ask(&m, `{"jsonrpc":"2.0","id":"x3","method":"ping"}`); got != `"x3" {}` {
		t.Errorf("ping out of order: got %s", got)
	}
	if got := ask(&m, `{"jsonrpc":"2.0","id":"x4","method":"tools/call","params":{ "name" : "b" }}`); got != `"x4" "b"` {
		t.Errorf("the second call, other spacing: got %s", got)
	}
}
