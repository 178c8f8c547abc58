package mock

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// strategyTape is one recorded session: three tools/call (two alike, one
// with a progress token), a tools/list; each answer names its seq.
func strategyTape(t *testing.T, opts ...ServerOption) *Server {
	t.Helper()
	reqs := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{"progressToken":"tok","traceparent":"00-aa"},"name":"echo","arguments":{"text":"hi","token":"secret-1"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`,
	}
	var b strings.Builder
	b.WriteString(`{"type":"header","format":"replayctl-tape","version":1,"transport":"stdio"}` + "\n")
	for i, r := range reqs {
		fmt.Fprintf(&b, `{"type":"message","seq":%d,"t_us":%d,"session":"s1","dir":"c2s","msg":%s}`+"\n", 2*i, 1000*i, r)
		fmt.Fprintf(&b, `{"type":"message","seq":%d,"t_us":%d,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":%d,"result":{"seq":%d}}}`+"\n", 2*i+1, 1000*i+300, i+1, 2*i)
	}
	srv, err := NewServer(tape.Bytes("strategies", []byte(b.String())), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// askOne sends one request through s and returns the answer.
func askOne(t *testing.T, s transport.Session, req string) string {
	t.Helper()
	var got []string
	err := s.Handle(t.Context(), []byte(req), func(_ context.Context, msg []byte) error {
		got = append(got, string(msg))
		return nil
	})
	if err != nil || len(got) != 1 {
		t.Fatalf("%s: %v, %q", req, err, got)
	}
	return got[0]
}

// answered names what a request got: "seq N" for a recorded answer,
// "miss" for CodeMiss, "pong" for an empty result.
func answered(t *testing.T, ans string) string {
	t.Helper()
	m := mustParse(t, []byte(ans))
	switch {
	case m.Kind == jsonrpc.KindError && strings.Contains(string(m.Error()), fmt.Sprint(CodeMiss)):
		return "miss"
	case string(m.Result()) == "{}":
		return "pong"
	case m.Kind == jsonrpc.KindResponse:
		return "seq " + strings.Trim(strings.TrimPrefix(string(m.Result()), `{"seq":`), "}")
	}
	return ans
}

func TestStrategies(t *testing.T) {
	const (
		add    = `{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`
		addRev = `{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"arguments":{"b":2, "a":1},"name":"add"}}`
		add9   = `{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"add","arguments":{"a":9,"b":2}}}`
		addA   = `{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"add","arguments":{"a":1}}}`
		echo   = `{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"_meta":{"progressToken":"tok","traceparent":"00-aa"},"name":"echo","arguments":{"text":"hi","token":"secret-1"}}}`
		echoV  = `{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"_meta":{"progressToken":99},"name":"echo","arguments":{"text":"hi","token":"secret-1"}}}`
		echoNo = `{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi","token":"secret-1"}}}`
		list   = `{"jsonrpc":"2.0","id":"x","method":"tools/list","params":{}}`
		ping   = `{"jsonrpc":"2.0","id":"x","method":"ping"}`
		other  = `{"jsonrpc":"2.0","id":"x","method":"prompts/list"}`
	)
	cases := []struct {
		strategy Strategy
		opts     []ServerOption
		asks     []string
		want     []string
	}{
		{MethodAndParams, nil, []string{add, add, add, echo, list}, []string{"seq 0", "seq 2", "miss", "seq 4", "seq 6"}},
		{MethodAndParams, nil, []string{addRev, echoV, list}, []string{"seq 0", "seq 4", "seq 6"}},             // member order and spacing, a volatile token, {} as none
		{MethodAndParams, nil, []string{echoNo, add9, ping, other}, []string{"seq 4", "miss", "pong", "miss"}}, // _meta of volatile members only: as if absent
		{MethodAndParams, []ServerOption{WithRepeat()}, []string{add, add, add, add}, []string{"seq 0", "seq 2", "seq 0", "seq 2"}},
		{MethodAndParams, []ServerOption{WithoutDefaultVolatile()}, []string{echoV, echo}, []string{"miss", "seq 4"}},
		{MethodAndParams, []ServerOption{WithVolatile("tools/call:params.arguments.a")}, []string{add9, add9, add9}, []string{"seq 0", "seq 2", "miss"}},
		{Exact, nil, []string{echoV, addRev, echo}, []string{"miss", "seq 0", "seq 4"}},
		{Method, nil, []string{add9, echoNo, add, add}, []string{"seq 0", "seq 2", "seq 4", "miss"}},
		{Subset, nil, []string{addA, echoNo, add9, addA}, []string{"seq 0", "seq 4", "miss", "seq 2"}},
		{Sequential, nil, []string{echo, list}, []string{"seq 0", "miss"}}, // the next is seq 2, a tools/call
		{Sequential, nil, []string{add9, ping, add9, echo, list, list}, []string{"seq 0", "pong", "seq 2", "seq 4", "seq 6", "miss"}},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%d-%s", i, c.strategy), func(t *testing.T) {
			srv := strategyTape(t, append([]ServerOption{WithStrategy(c.strategy)}, c.opts...)...)
			s, _ := srv.Open(t.Context(), transport.SessionInfo{ID: "t"})
			defer s.Close()
			var got []string
			for _, a := range c.asks {
				got = append(got, answered(t, askOne(t, s, a)))
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

// TestMissReasons: each kind of miss says why, and names the closest
// recorded request with the paths that differ; the secret in the recorded
// arguments is masked.
func TestMissReasons(t *testing.T) {
	cases := []struct {
		strategy  Strategy
		asks      []string
		reason    string
		closest   int64
		diffPaths string
	}{
		{MethodAndParams, []string{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ho","token":"secret-2"}}}`},
			"session s1 has no tools/call request like this one", 4, "[params.arguments.text params.arguments.token]"},
		{MethodAndParams, []string{`{"jsonrpc":"2.0","id":1,"method":"resources/list"}`}, "the tape has no resources/list request (it has tools/call, tools/list)", -1, ""},
		{MethodAndParams, []string{`{"jsonrpc":"2.0","id":1,"method":"tools/cal"}`}, "the tape has no tools/cal request: did you mean tools/call? (it has tools/call, tools/list)", -1, ""},
		{MethodAndParams, []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
			"the recorded tools/list request like this one in session s1 was answered already", 6, "[]"},
		{Sequential, []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`}, "sequential: no recorded session starts with a tools/list request", 0, "[method params]"},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			srv := strategyTape(t, WithStrategy(c.strategy))
			s, _ := srv.Open(t.Context(), transport.SessionInfo{ID: "t"})
			defer s.Close()
			if c.strategy != Sequential {
				askOne(t, s, `{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`) // binds s1
			}
			var last string
			for _, a := range c.asks {
				last = askOne(t, s, a)
			}
			ms := srv.Misses()
			if len(ms) != 1 {
				t.Fatalf("misses %+v, want 1", ms)
			}
			m := ms[0]
			if !strings.HasPrefix(m.Reason, c.reason) {
				t.Errorf("reason %q, want %q", m.Reason, c.reason)
			}
			if c.closest < 0 {
				if m.Closest != nil {
					t.Errorf("closest %+v, want none", m.Closest)
				}
				return
			}
			if m.Closest == nil || m.Closest.Seq != c.closest {
				t.Fatalf("closest %+v, want seq %d", m.Closest, c.closest)
			}
			var paths []string
			for _, d := range m.Closest.Differences {
				paths = append(paths, d.Path)
			}
			if fmt.Sprint(paths) != c.diffPaths {
				t.Errorf("differences at %v, want %s", paths, c.diffPaths)
			}
			if strings.Contains(last, "secret-1") || strings.Contains(m.String(), "secret-") {
				t.Errorf("a secret shows: %s", last)
			}
		})
	}
}

func TestParseVolatile(t *testing.T) {
	good := []string{`params._meta["io.modelcontextprotocol/clientInfo"]`, "$.params.a[*].b", "params.x[2]", "tools/call:params.arguments.id", "params.*.traceparent"}
	if _, err := parseVolatile(good); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"result.x", "params", "params..a", "params.**.a", `params["a`, "params.a[x]", "params.a[-1]"} {
		if _, err := parseVolatile([]string{bad}); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestHashSkipsVolatile(t *testing.T) {
	v, err := parseVolatile(append(DefaultVolatile(), "params.list[*].id", "params.pair[1]"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		a, b string
		same bool
	}{
		{`{"_meta":{"progressToken":1},"x":1}`, `{"x":1}`, true},
		{`{"_meta":{"progressToken":1,"other":2},"x":1}`, `{"x":1}`, false},
		{`{"_meta":{"traceparent":"a","io.modelcontextprotocol/clientInfo":{"name":"n"}}}`, ``, true},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}`, false},
		{`{"list":[{"id":1,"v":2},{"id":3,"v":4}]}`, `{"list":[{"v":2,"id":9},{"v":4}]}`, true},
		{`{"pair":[1,2]}`, `{"pair":[1,3]}`, true},
		{`{"pair":[1,2]}`, `{"pair":[0,2]}`, false},
		{`{"pair":[1,2]}`, `{"pair":[1]}`, false},
	}
	var c canon
	for _, tc := range cases {
		if got := c.hashSkip([]byte(tc.a), v.of("x")) == c.hashSkip([]byte(tc.b), v.of("x")); got != tc.same {
			t.Errorf("%s and %s: same hash %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
	// initialize's own: capabilities and clientInfo.
	a := `{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"a"}}`
	b := `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"2"}}`
	if c.hashSkip([]byte(a), v.of("initialize")) != c.hashSkip([]byte(b), v.of("initialize")) {
		t.Error("initialize: capabilities and clientInfo not left out")
	}
	if c.hashSkip([]byte(a), v.of("tools/call")) == c.hashSkip([]byte(b), v.of("tools/call")) {
		t.Error("tools/call: initialize's volatile paths left out")
	}
}

func TestCursor(t *testing.T) {
	c := newCursor(5)
	even := func(i int) bool { return i%2 == 0 }
	var got []string
	for range 5 {
		p := c.choose(even)
		got = append(got, fmt.Sprintf("%d/%v/%d", p.i, p.fresh, p.matches))
		if p.fresh {
			c.use(p.i)
		}
	}
	if want := "[0/true/0 2/true/0 4/true/0 0/false/3 0/false/3]"; fmt.Sprint(got) != want {
		t.Errorf("strict: %v, want %s", got, want)
	}
	got = nil
	for range 4 {
		p := c.choose(even)
		got = append(got, fmt.Sprint(p.i))
		c.use(p.i)
	}
	if want := "[0 2 4 0]"; fmt.Sprint(got) != want {
		t.Errorf("again: %v, want %s", got, want)
	}
	if p := c.first(false); p.i != 1 {
		t.Errorf("first = %d, want 1", p.i)
	}
	for _, i := range []int{1, 3} {
		c.use(i)
	}
	if c.next != 5 || len(c.count) != 3 || c.uses(0) != 3 || c.uses(1) != 1 {
		t.Errorf("next %d, count %v: want 5 and only the entries used more than once kept", c.next, c.count)
	}
}

func TestContains(t *testing.T) {
	cases := []struct {
		rec, live string
		want      bool
	}{
		{`{"a":1,"b":{"c":2,"d":3}}`, `{"b":{"c":2}}`, true},
		{`{"a":1}`, `{"a":1.0}`, true},
		{`{"a":1}`, `{"a":2}`, false},
		{`{"a":[1,2]}`, `{"a":[1]}`, false},
		{`{"a":[{"x":1,"y":2}]}`, `{"a":[{"x":1}]}`, true},
		{`{"a":1}`, `{"_meta":{"progressToken":5},"a":1}`, true},
		{`{"a":1}`, ``, true},
	}
	v, _ := parseVolatile(DefaultVolatile())
	for _, c := range cases {
		if got := contains([]byte(c.rec), []byte(c.live), v.of("m")); got != c.want {
			t.Errorf("contains(%s, %s) = %v, want %v", c.rec, c.live, got, c.want)
		}
	}
}

// TestLatency: with WithLatency the answer goes as long after the
// request as recorded (300µs), scaled; without, at once.
func TestLatency(t *testing.T) {
	for _, c := range []struct {
		factor float64
		want   time.Duration
	}{{0, 0}, {1, 300 * time.Microsecond}, {10, 3 * time.Millisecond}, {0.5, 150 * time.Microsecond}} {
		synctest.Test(t, func(t *testing.T) {
			srv := strategyTape(t, WithLatency(c.factor))
			s, _ := srv.Open(t.Context(), transport.SessionInfo{ID: "t"})
			defer s.Close()
			start := time.Now()
			askOne(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			if took := time.Since(start); took != c.want {
				t.Errorf("factor %v: answered after %v, want %v", c.factor, took, c.want)
			}
		})
	}
}
