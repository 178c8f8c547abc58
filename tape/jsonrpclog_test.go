package tape

import (
	"fmt"
	"strings"
	"testing"
)

// A client-side logger's wrapper lines: "send" is the client's. The
// server asks for sampling (its id 0 collides with nothing pending on the
// client's side) and pings; the ping's direction comes from the mark,
// read as the decided lines use it.
const wrapperLog = `{"ts":"2026-05-01T10:00:00.000Z","direction":"send","message":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}}
{"ts":"2026-05-01T10:00:00.004Z","direction":"recv","message":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18"}}}
{"ts":"2026-05-01T10:00:00.005Z","direction":"send","message":{"jsonrpc":"2.0","method":"notifications/initialized"}}
{"ts":"2026-05-01T10:00:00.010Z","direction":"send","message":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"summarize","_meta":{"progressToken":"p"}}}}
{"ts":"2026-05-01T10:00:00.011Z","direction":"recv","message":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}}
{"ts":"2026-05-01T10:00:00.012Z","direction":"recv","message":{"jsonrpc":"2.0","id":0,"method":"sampling/createMessage","params":{"messages":[]}}}
{"ts":"2026-05-01T10:00:00.020Z","direction":"send","message":{"jsonrpc":"2.0","id":0,"result":{"model":"m","role":"assistant","content":{"type":"text","text":"ok"}}}}
{"ts":"2026-05-01T10:00:00.021Z","direction":"recv","message":{"jsonrpc":"2.0","id":1,"method":"ping"}}
{"ts":"2026-05-01T10:00:00.022Z","direction":"send","message":{"jsonrpc":"2.0","id":1,"result":{}}}

{"ts":"2026-05-01T10:00:00.030Z","direction":"recv","message":{"jsonrpc":"2.0","id":1,"result":{"content":[]}}}
`

func TestLogWrapper(t *testing.T) {
	r, err := Open(writeTemp(t, "client.log", wrapperLog))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Format() != FormatLog || r.Header().ProtocolVersion != "2025-06-18" {
		t.Fatalf("format %s, header %+v", r.Format(), r.Header())
	}
	msgs := readAll(t, r)
	want := []struct {
		dir  Dir
		tus  int64
		line int64
	}{
		{C2S, 0, 1}, {S2C, 4000, 2}, {C2S, 5000, 3}, {C2S, 10000, 4}, {S2C, 11000, 5},
		{S2C, 12000, 6}, // sampling/createMessage: the server's
		{C2S, 20000, 7}, // its answer: opposite to the request with id 0 that is open
		{S2C, 21000, 8}, // ping: "recv", which this log uses for the server's
		{C2S, 22000, 9},
		{S2C, 30000, 11}, // the answer to tools/call id 1
	}
	if len(msgs) != len(want) {
		t.Fatalf("%d messages, want %d", len(msgs), len(want))
	}
	for i, w := range want {
		m := msgs[i]
		if m.Dir != w.dir || m.TUS != w.tus || m.Line != w.line || m.Session != "s1" || m.Seq != int64(i) {
			t.Errorf("seq %d: %s t=%d line %d session %s, want %+v", i, m.Dir, m.TUS, m.Line, m.Session, w)
		}
	}
}

// The same conversation logged by the server, with arrows: "-->" is now
// what the server sends. Directions come out the same.
func TestLogArrowsServerSide(t *testing.T) {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(wrapperLog), "\n") {
		if l == "" {
			continue
		}
		ts := l[7:31]
		msg := l[strings.Index(l, `"message":`)+len(`"message":`) : len(l)-1]
		arrow := "-->"
		if strings.Contains(l, `"send"`) {
			arrow = "<--"
		}
		fmt.Fprintf(&b, "[%s] %s %s\n", ts, arrow, msg)
	}
	_, msgs, _, err := DecodeLog("server.log", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	dirs := ""
	for _, m := range msgs {
		dirs += string(m.Dir[0])
	}
	if dirs != dirsOf(wrapperDirs) {
		t.Errorf("directions %s, want %s", dirs, dirsOf(wrapperDirs))
	}
	if msgs[7].TUS != 21000 {
		t.Errorf("time from the bracketed prefix: %d", msgs[7].TUS)
	}
}

var wrapperDirs = []Dir{C2S, S2C, C2S, C2S, S2C, S2C, C2S, S2C, C2S, S2C}

func dirsOf(d []Dir) string {
	s := ""
	for _, x := range d {
		s += string(x[0])
	}
	return s
}

// Bare messages, two sessions (initialize again), no times.
func TestLogBareSessions(t *testing.T) {
	doc := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}
{"jsonrpc":"2.0","id":1,"result":{}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}
{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}
{"jsonrpc":"2.0","id":1,"result":{}}
[{"jsonrpc":"2.0","id":3,"method":"tools/list"},{"jsonrpc":"2.0","id":4,"method":"prompts/list"}]
{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}
`
	r, err := Open(writeTemp(t, "bare.log", doc))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	msgs := readAll(t, r)
	got := ""
	for _, m := range msgs {
		got += fmt.Sprintf("%s/%s/%d ", m.Session, m.Dir, m.TUS)
	}
	want := "s1/c2s/0 s1/s2c/1000 s1/c2s/2000 s1/c2s/3000 s1/s2c/4000 s2/c2s/5000 s2/s2c/6000 s2/c2s/7000 s2/s2c/8000 "
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestLogBadLine(t *testing.T) {
	doc := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n--> {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n<-- hello\n"
	_, err := Open(writeTemp(t, "bad.log", doc))
	e := asError(t, err)
	if e.Line != 3 || !strings.Contains(e.Msg, "not a JSON-RPC message") {
		t.Errorf("got %v (line %d)", e, e.Line)
	}
	_, err = Open(writeTemp(t, "notrpc.log", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}\n{\"hello\":1}\n"))
	if e := asError(t, err); e.Line != 2 || !strings.Contains(e.Msg, "not a JSON-RPC message") {
		t.Errorf("got %v (line %d)", e, e.Line)
	}
}
