package ui

import (
	"fmt"
	"testing"
)

// grouper puts an MRTR chain (the request answered input_required and its
// retries, up to the round answered otherwise) in one group, a task's
// creating request and its polls in another, per session; plain requests
// in none.
func TestGrouper(t *testing.T) {
	req := func(id int, method, params string) []byte {
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
	}
	res := func(id int, result string) []byte {
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":%s}`, id, result)
	}
	const (
		ask      = `{"name":"ask"}`
		retry    = `{"name":"ask","inputResponses":{"q":{"action":"accept"}},"requestState":"st"}`
		asks     = `{"resultType":"input_required","inputRequests":{"q":{"method":"elicitation/create"}},"requestState":"st"}`
		complete = `{"resultType":"complete","content":[]}`
	)
	g := newGrouper()
	for i, c := range []struct {
		session, method, name string
		out, answer           []byte
		want                  int
		kind                  string
	}{
		{"s1", "tools/call", "ask", req(1, "tools/call", ask), res(1, asks), 1, groupRounds},
		{"s1", "tools/call", "ask", req(2, "tools/call", retry), res(2, asks), 1, groupRounds},
		{"s2", "tools/call", "ask", req(1, "tools/call", ask), res(1, asks), 2, groupRounds}, // another session, another chain
		{"s1", "tools/call", "ask", req(3, "tools/call", retry), res(3, complete), 1, groupRounds},
		{"s1", "tools/call", "ask", req(4, "tools/call", ask), res(4, complete), 0, ""},            // plain
		{"s1", "tools/call", "ask", req(5, "tools/call", retry), res(5, complete), 3, groupRounds}, // a retry of no open chain: its own
		{"s2", "tools/call", "ask", req(2, "tools/call", retry), res(2, complete), 2, groupRounds}, // s2's chain ends
		{"s1", "tools/call", "long", req(6, "tools/call", `{"name":"long"}`), res(6, `{"resultType":"task","taskId":"t1","status":"working"}`), 4, groupTask},
		{"s1", "tasks/get", "", req(7, "tasks/get", `{"taskId":"t1"}`), res(7, `{"resultType":"complete","taskId":"t1","status":"working"}`), 4, groupTask},
		{"s2", "tasks/get", "", req(3, "tasks/get", `{"taskId":"t1"}`), res(3, `{"taskId":"t1","status":"working"}`), 5, groupTask}, // s2's t1 is another task
		{"s1", "tasks/get", "", req(8, "tasks/get", `{"taskId":"t1"}`), res(8, `{"resultType":"complete","taskId":"t1","status":"completed"}`), 4, groupTask},
		{"s1", "tasks/result", "", req(9, "tasks/result", `{"taskId":"t1"}`), res(9, `{"content":[]}`), 4, groupTask},                                                  // the client is done with it
		{"s1", "tasks/get", "", req(10, "tasks/get", `{"taskId":"t1"}`), res(10, `{"taskId":"t1","status":"completed"}`), 6, groupTask},                                // after: a new group
		{"s1", "tools/call", "old", req(11, "tools/call", `{"name":"old","task":{"ttl":1000}}`), res(11, `{"task":{"taskId":"t2","status":"working"}}`), 7, groupTask}, // 2025-11-25
		{"s1", "tasks/get", "", req(12, "tasks/get", `{"taskId":"t2"}`), res(12, `{"taskId":"t2","status":"working"}`), 7, groupTask},
		{"s1", "tasks/get", "", req(13, "tasks/get", `{}`), res(13, `{}`), 0, ""},                         // no task id
		{"s1", "tools/list", "", req(14, "tools/list", `{}`), res(14, `{"tools":[]}`), 0, ""},             // plain
		{"s1", "tools/call", "ask", req(15, "tools/call", ask), []byte(nil), 0, ""},                       // no answer
		{"s1", "notifications/x", "", []byte(`{"jsonrpc":"2.0","method":"notifications/x"}`), nil, 0, ""}, // not a request
	} {
		id, kind := g.group(c.session, c.method, c.name, c.out, c.answer)
		if id != c.want || kind != c.kind {
			t.Errorf("%d: %s %s %s: got group %d %q, want %d %q", i, c.session, c.method, c.out, id, kind, c.want, c.kind)
		}
		if may := mayGroup(c.out, c.answer); c.want != 0 && !may {
			t.Errorf("%d: mayGroup is false for a request of group %d", i, c.want)
		}
	}
	if mayGroup(req(1, "tools/call", `{"name":"echo","arguments":{"message":"hi"}}`), res(1, `{"content":[{"type":"text","text":"hi"}]}`)) {
		t.Error("mayGroup is true for a plain tools/call")
	}
}
