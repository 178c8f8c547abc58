package shrink_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/shrink"
	"github.com/replayctl/replayctl/tape"
)

// msgs builds tape messages from "dir session json" lines, seq in order.
func msgs(lines ...string) []tape.Message {
	var out []tape.Message
	for i, l := range lines {
		f := strings.SplitN(l, " ", 3)
		out = append(out, tape.Message{Seq: int64(i), Dir: tape.Dir(f[0]), Session: f[1], Msg: []byte(f[2])})
	}
	return out
}

func TestGroup(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  string // each unit's seqs, "h" marking a handshake
	}{
		{"request and answer, handshake, notification", []string{
			`c2s s1 {"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`,
			`s2c s1 {"jsonrpc":"2.0","id":0,"result":{}}`,
			`c2s s1 {"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`c2s s1 {"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			`s2c s1 {"jsonrpc":"2.0","method":"notifications/message","params":{}}`,
			`s2c s1 {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`,
		}, "h[0 1] h[2] [3 5] [4]"},
		{"the same id in two sessions", []string{
			`c2s s1 {"jsonrpc":"2.0","id":1,"method":"ping"}`,
			`c2s s2 {"jsonrpc":"2.0","id":1,"method":"ping"}`,
			`s2c s2 {"jsonrpc":"2.0","id":1,"result":{}}`,
			`s2c s1 {"jsonrpc":"2.0","id":1,"result":{}}`,
		}, "[0 3] [1 2]"},
		{"server request and the client's answer", []string{
			`c2s s1 {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`,
			`s2c s1 {"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}`,
			`c2s s1 {"jsonrpc":"2.0","id":1,"result":{"content":{}}}`,
			`s2c s1 {"jsonrpc":"2.0","id":1,"result":{}}`,
		}, "[0 3] [1 2]"},
		{"an MRTR round chain", []string{
			`c2s s1 {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`,
			`s2c s1 {"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{}},"requestState":"st"}}`,
			`c2s s1 {"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
			`c2s s1 {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","inputResponses":{"a":{}},"requestState":"st"}}`,
			`s2c s1 {"jsonrpc":"2.0","id":2,"result":{}}`,
			`s2c s1 {"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","content":[]}}`,
		}, "[0 1 3 5] [2 4]"},
		{"two MRTR chains of one method open at once", []string{
			`c2s s1 {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`,
			`s2c s1 {"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{}},"requestState":"sx"}}`,
			`c2s s1 {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"y"}}`,
			`s2c s1 {"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","inputRequests":{"b":{}},"requestState":"sy"}}`,
			`c2s s1 {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","inputResponses":{"a":{}},"requestState":"sx"}}`,
			`c2s s1 {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"y","inputResponses":{"b":{}},"requestState":"sy"}}`,
			`s2c s1 {"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","content":[]}}`,
			`s2c s1 {"jsonrpc":"2.0","id":4,"result":{"resultType":"complete","content":[]}}`,
		}, "[0 1 4 6] [2 3 5 7]"},
		{"a task and its polls", []string{
			`c2s s1 {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","task":{"ttl":1000}}}`,
			`s2c s1 {"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"T1","status":"working"}}}`,
			`c2s s1 {"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"T1"}}`,
			`s2c s1 {"jsonrpc":"2.0","id":2,"result":{"taskId":"T1","status":"completed"}}`,
			`c2s s1 {"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":"T1"}}`,
			`s2c s1 {"jsonrpc":"2.0","id":3,"result":{"content":[]}}`,
			`c2s s1 {"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"taskId":"OTHER"}}`,
		}, "[0 1 2 3 4 5] [6]"},
		{"a request and its cancellation", []string{
			`c2s s1 {"jsonrpc":"2.0","id":"r1","method":"tools/call","params":{"name":"slow"}}`,
			`c2s s1 {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r1"}}`,
			`c2s s1 {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r9"}}`,
		}, "[0 1] [2]"},
		{"a request and its progress", []string{
			`c2s s1 {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"p1"}}}`,
			`s2c s1 {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1}}`,
			`s2c s1 {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p9","progress":1}}`,
			`s2c s1 {"jsonrpc":"2.0","id":1,"result":{}}`,
			`s2c s2 {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":2}}`,
		}, "[0 1 3] [2] [4]"},
		{"an answer with no request, and not JSON", []string{
			`s2c s1 {"jsonrpc":"2.0","id":7,"result":{}}`,
			`c2s s1 {not json`,
		}, "[0] [1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, u := range shrink.Group(msgs(tc.lines...)) {
				s := fmt.Sprint(u.Seqs)
				if u.Handshake {
					s = "h" + s
				}
				got = append(got, s)
			}
			if g := strings.Join(got, " "); g != tc.want {
				t.Errorf("got %s, want %s", g, tc.want)
			}
		})
	}
}

func TestSimplifications(t *testing.T) {
	raw := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"c","arguments":{"mode":"boom","tags":["x","y"]}}}`
	got := shrink.Simplifications([]byte(raw))
	want := []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"c"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"c","arguments":{"tags":["x","y"]}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"c","arguments":{"mode":"boom"}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"c","arguments":{"mode":"bo","tags":["x","y"]}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"c","arguments":{"mode":"boom","tags":["y"]}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"c","arguments":{"mode":"boom","tags":["x"]}}}`,
	}
	var gs []string
	for _, b := range got {
		gs = append(gs, string(b))
	}
	if !slices.Equal(gs, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(gs, "\n"), strings.Join(want, "\n"))
	}
	for _, raw := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"a":"long text"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":["not","an","object"]}`,
	} {
		if got := shrink.Simplifications([]byte(raw)); got != nil {
			t.Errorf("%s: got %q, want none", raw, got)
		}
	}
	// Unicode and escapes survive; a string is halved by characters.
	got = shrink.Simplifications([]byte(`{"jsonrpc":"2.0","method":"n","params":{"s":"ééé<\"é"}}`))
	if len(got) != 2 || string(got[1]) != `{"jsonrpc":"2.0","method":"n","params":{"s":"ééé"}}` {
		t.Errorf("got %q", got)
	}
}

func TestFailureSame(t *testing.T) {
	diff := func(seq int64, paths ...string) report.Result {
		r := report.Result{Seq: seq, Session: "s1", Verdict: report.Failed}
		for _, p := range paths {
			r.Differences = append(r.Differences, report.Difference{Path: p})
		}
		return r
	}
	target, _ := shrink.FailureOf(diff(4, "result.x", "result.y"))
	for _, tc := range []struct {
		name string
		r    report.Result
		same bool
	}{
		{"the same path among others", diff(4, "result.z", "result.x"), true},
		{"another path", diff(4, "result.y"), false},
		{"another message", diff(5, "result.x"), false},
		{"another session", report.Result{Seq: 4, Session: "s2", Verdict: report.Failed, Differences: []report.Difference{{Path: "result.x"}}}, false},
		{"a timeout there", report.Result{Seq: 4, Session: "s1", Verdict: report.Timeout}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, ok := shrink.FailureOf(tc.r)
			if got := ok && target.Same(g); got != tc.same {
				t.Errorf("Same = %v, want %v (%s vs %s)", got, tc.same, target, g)
			}
		})
	}
	for _, tc := range []struct {
		r    report.Result
		kind string
	}{
		{report.Result{Session: "s1", Verdict: report.Error, ErrKind: "target", Err: "transport: target failed: session s1: exited"}, shrink.KindCrash},
		{report.Result{Session: "s1", Verdict: report.Error, ErrKind: "no_answer"}, shrink.KindProtocol},
		{report.Result{Seq: -1, Session: "s1", Verdict: report.Error, ErrKind: "target", Err: "target sent a message that is not JSON-RPC: jsonrpc: invalid message: missing method, result or error"}, shrink.KindProtocol},
		{report.Result{Session: "s1", Verdict: report.Error, ErrKind: "invalid_answer"}, shrink.KindProtocol},
		{report.Result{Session: "s1", Verdict: report.Timeout}, shrink.KindTimeout},
		// Another session's crash, echoed at this session's message in flight.
		{report.Result{Session: "s2", Verdict: report.Error, ErrKind: "target", Err: "transport: target failed: session s1: exited"}, ""},
		{report.Result{Session: "s1", Verdict: report.Passed}, ""},
		{report.Result{Session: "s1", Verdict: report.Warned}, ""},
	} {
		f, ok := shrink.FailureOf(tc.r)
		if f.Kind != tc.kind || ok != (tc.kind != "") {
			t.Errorf("%+v: kind %q (%v), want %q", tc.r, f.Kind, ok, tc.kind)
		}
	}
}
