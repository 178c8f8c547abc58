package tapediff

import (
	"encoding/json"
	"errors"
	"io"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/internal/testtape"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// conversation is the one client script recorded against every server:
// the handshake, the listings, a ping, and a call of "echo" (a tool of
// one of the two servers only) and a read of a resource that one of
// them only has.
var conversation = [][]byte{
	[]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"tapediff-test","version":"1"}}}`),
	[]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`),
	[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`),
	[]byte(`{"jsonrpc":"2.0","id":2,"method":"prompts/list"}`),
	[]byte(`{"jsonrpc":"2.0","id":3,"method":"resources/list"}`),
	[]byte(`{"jsonrpc":"2.0","id":4,"method":"ping"}`),
	[]byte(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}`),
	// server-everything's text says the time it was read: "… created at
	// 3:04:05 PM".
	[]byte(`{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"demo://resource/dynamic/text/1"}}`),
}

// everything is the argv of server-everything, or the test is skipped.
func everything(t *testing.T) []string {
	t.Helper()
	testserver.NeedEverything(t)
	return testserver.Everything(t)
}

// record records conversation against argv over stdio (record.Script
// through replayctl's stdio transport).
func record(t *testing.T, argv []string) Side {
	t.Helper()
	return load(t, testtape.Record(t, transport.Stdio{Command: argv}, "stdio", conversation))
}

func load(t *testing.T, path string) Side {
	t.Helper()
	r, err := tape.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s := Side{Name: path, Header: r.Header()}
	for {
		m, err := r.Next()
		if errors.Is(err, io.EOF) {
			return s
		}
		if err != nil {
			t.Fatal(err)
		}
		s.Messages = append(s.Messages, m)
	}
}

// listed reads, independently of Compare, the names a listing method's
// first answer in s holds under member (key: "name" or "uri").
func listed(t *testing.T, s Side, method, member, key string) []string {
	t.Helper()
	var id []byte
	for _, m := range s.Messages {
		rpc, err := jsonrpc.Parse(m.Msg)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case rpc.Kind == jsonrpc.KindRequest && rpc.Method == method && id == nil:
			id = rpc.ID
		case rpc.Kind == jsonrpc.KindResponse && id != nil && string(rpc.ID) == string(id):
			var res map[string]any
			if err := json.Unmarshal(rpc.Result(), &res); err != nil {
				t.Fatal(err)
			}
			defs, _ := res[member].([]any)
			var names []string
			for _, x := range defs {
				d := x.(map[string]any)
				names = append(names, d[key].(string))
			}
			return names
		}
	}
	t.Fatalf("%s: no answer to %s", s.Name, method)
	return nil
}

func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}

func names(res Result, k Kind) []string {
	var out []string
	for _, c := range res.Changes {
		if c.Kind == k {
			out = append(out, c.Name)
		}
	}
	sort.Strings(out)
	return out
}

// The same script recorded against two different real servers: the diff
// lists the tools, prompts and resources one has and the other not, as
// read from the two tools/list answers, and the echo call that one
// server fails and the other answers.
func TestTwoRealServers(t *testing.T) {
	goSDK := record(t, testserver.GoSDK(t))
	node := record(t, everything(t))

	res, err := Compare(goSDK, node)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []struct {
		method, member, key string
		removed, added      Kind
	}{
		{"tools/list", "tools", "name", ToolRemoved, ToolAdded},
		{"prompts/list", "prompts", "name", PromptRemoved, PromptAdded},
		{"resources/list", "resources", "uri", ResourceRemoved, ResourceAdded},
	} {
		a, b := listed(t, goSDK, l.method, l.member, l.key), listed(t, node, l.method, l.member, l.key)
		wantRemoved, wantAdded := minus(a, b), minus(b, a)
		if got := names(res, l.removed); !slices.Equal(got, wantRemoved) {
			t.Errorf("%s: %s %q, want %q", l.method, l.removed, got, wantRemoved)
		}
		if got := names(res, l.added); !slices.Equal(got, wantAdded) {
			t.Errorf("%s: %s %q, want %q", l.method, l.added, got, wantAdded)
		}
		if l.method == "tools/list" && (len(wantRemoved) == 0 || len(wantAdded) == 0) {
			t.Fatalf("the two servers should list different tools: %q and %q", a, b)
		}
	}
	// "echo" and the dynamic resource are server-everything's only: the
	// go-sdk server fails those requests, server-everything answers them.
	var wantFixed []string
	for _, req := range conversation {
		rpc, _ := jsonrpc.Parse(req)
		if rpc.Kind != jsonrpc.KindRequest {
			continue
		}
		if name := nameOf(rpc.Method, rpc.Params()); !answeredOK(t, goSDK, rpc.ID) && answeredOK(t, node, rpc.ID) {
			wantFixed = append(wantFixed, name)
		}
	}
	sort.Strings(wantFixed)
	if len(wantFixed) != 2 {
		t.Fatalf("requests the go-sdk server fails and server-everything answers: %q, want echo and the resource", wantFixed)
	}
	if got := names(res, ErrorToSuccess); !slices.Equal(got, wantFixed) {
		t.Errorf("error_to_success %q, want %q", got, wantFixed)
	}
	if res.Summary.Breaking == 0 || res.Summary.UnpairedA+res.Summary.UnpairedB != 0 {
		t.Errorf("summary %+v: want breaking changes (tools removed) and every request paired (same script)", res.Summary)
	}

	// The other way round, the echo call turns from success to error.
	back, err := Compare(node, goSDK)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(back, SuccessToError); !slices.Equal(got, wantFixed) {
		t.Errorf("B→A: success_to_error %q, want %q", got, wantFixed)
	}
	if got, want := names(back, ToolRemoved), names(res, ToolAdded); !slices.Equal(got, want) {
		t.Errorf("B→A: tool_removed %q, want A→B's tool_added %q", got, want)
	}
}

// The same script recorded twice against the same server: no
// differences, after the normalisers.
func TestSameServerTwice(t *testing.T) {
	servers := []struct {
		name string
		argv func(*testing.T) []string
	}{
		{"go-sdk", func(t *testing.T) []string { return testserver.GoSDK(t) }},
		{"server-everything", everything},
	}
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			argv := s.argv(t)
			a := record(t, argv)
			// The next second, so that a time in an answer differs.
			time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
			b := record(t, argv)
			if s.name == "server-everything" && sameAnswer(t, a, b, []byte("6")) {
				t.Fatal("server-everything read the dynamic resource twice with the same time; the test needs a volatile value")
			}
			res, err := Compare(a, b)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Changes) != 0 || len(res.Unpaired) != 0 {
				t.Errorf("changes %q, unpaired %+v; want none", changes(res), res.Unpaired)
			}
			if res.Summary.Paired != res.Summary.RequestsA || res.Summary.RequestsA != 7 {
				t.Errorf("summary %+v: want the 7 requests paired", res.Summary)
			}
		})
	}
}

// answer is the raw answer to the request of id in s.
func answer(t *testing.T, s Side, id []byte) jsonrpc.Message {
	t.Helper()
	for _, m := range s.Messages {
		rpc, err := jsonrpc.Parse(m.Msg)
		if err == nil && jsonrpc.IsResponseKind(rpc.Kind) && string(rpc.ID) == string(id) {
			return rpc
		}
	}
	t.Fatalf("%s: no answer to id %s", s.Name, id)
	return jsonrpc.Message{}
}

// answeredOK reports whether the request of id in s got a result that
// is not a tool error.
func answeredOK(t *testing.T, s Side, id []byte) bool {
	rpc := answer(t, s, id)
	var r struct {
		IsError bool `json:"isError"`
	}
	return rpc.Kind == jsonrpc.KindResponse && json.Unmarshal(rpc.Result(), &r) == nil && !r.IsError
}

func sameAnswer(t *testing.T, a, b Side, id []byte) bool {
	return string(answer(t, a, id).Raw) == string(answer(t, b, id).Raw)
}
