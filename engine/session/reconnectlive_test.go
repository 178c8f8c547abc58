package session

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/transport"
)

// disconnectAt puts a chaos disconnect fault on its[i] (a request).
func disconnectAt(its []*Item, i int) []*Item {
	its[i].Fault = &chaos.Fault{Kind: chaos.Disconnect, Seq: its[i].Rec.Seq, Session: "s1", MsgKind: "request"}
	return its
}

// sentOf is what c was sent of method, in order.
func sentOf(c *scripted, method string) []string {
	var out []string
	for _, m := range c.sent() {
		if rpc, err := jsonrpc.Parse(m); err == nil && rpc.Method == method {
			out = append(out, string(m))
		}
	}
	return out
}

// TestReconnectLiveValues: of the live values the old connection's
// answers taught the session (live.go), a chaos reconnect forgets those
// of the old MCP session, which the new one does not have, and keeps
// those that outlive it. The live id of a 2025-11-25 task (of the
// session that made it) is not sent on the new connection: it used to
// be, naming a task the new server never made. The live id of a task of
// the 2026 extension (a durable handle: polled again after a reconnect
// with the same id) still is where the reconnect reaches the same server
// (HTTP), not over stdio, where the new connection is a new process that
// never made it (it used to be kept there too). A multi-round
// requestState (the state the server handed the client, echoed on the
// retry) is kept either way.
func TestReconnectLiveValues(t *testing.T) {
	for _, tc := range []struct {
		name             string
		call, callAnswer string // the request that teaches a live value, its recorded answer
		live             string // its live answer on the first connection, %s its id
		after, afterResp string // sent on the new connection: it names the value
		method, member   string
		ownServer        bool   // the connections are to a server of their own (stdio)
		want             string // the value it carries on the new connection
	}{
		{
			name:       "2025-11-25 task forgotten",
			call:       `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","task":{"ttl":60000}}}`,
			callAnswer: `{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"rec-t","status":"working"}}}`,
			live:       `{"jsonrpc":"2.0","id":%s,"result":{"task":{"taskId":"live-1","status":"working"}}}`,
			after:      `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"rec-t"}}`,
			afterResp:  `{"jsonrpc":"2.0","id":3,"result":{"taskId":"rec-t","status":"completed"}}`,
			method:     mcp.MethodTasksGet, member: "taskId", want: `"rec-t"`,
		},
		{
			name:       "2026 task kept over HTTP",
			call:       `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`,
			callAnswer: `{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"rec-t","status":"working"}}`,
			live:       `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"task","taskId":"live-1","status":"working"}}`,
			after:      `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"rec-t"}}`,
			afterResp:  `{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","taskId":"rec-t","status":"completed"}}`,
			method:     mcp.MethodTasksGet, member: "taskId", want: `"live-1"`,
		},
		{
			name:       "2026 task forgotten over stdio",
			call:       `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`,
			callAnswer: `{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"rec-t","status":"working"}}`,
			live:       `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"task","taskId":"live-1","status":"working"}}`,
			after:      `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"rec-t"}}`,
			afterResp:  `{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","taskId":"rec-t","status":"completed"}}`,
			method:     mcp.MethodTasksGet, member: "taskId", ownServer: true, want: `"rec-t"`,
		},
		{
			name:       "requestState kept",
			call:       `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`,
			callAnswer: `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"rec-s"}}`,
			live:       `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"input_required","requestState":"live-s"}}`,
			after:      `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","requestState":"rec-s"}}`,
			afterResp:  `{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","content":[]}}`,
			method:     mcp.MethodToolsCall, member: "requestState", want: `"live-s"`,
		},
		{
			name:       "requestState kept over stdio",
			call:       `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`,
			callAnswer: `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"rec-s"}}`,
			live:       `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"input_required","requestState":"live-s"}}`,
			after:      `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","requestState":"rec-s"}}`,
			afterResp:  `{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","content":[]}}`,
			method:     mcp.MethodToolsCall, member: "requestState", ownServer: true, want: `"live-s"`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				first := &scripted{in: make(chan transport.Incoming, 8), own: tc.ownServer, answer: func(msg []byte) [][]byte {
					rpc, _ := jsonrpc.Parse(msg)
					if rpc.Method == mcp.MethodToolsCall {
						return [][]byte{[]byte(strings.Replace(tc.live, "%s", string(rpc.ID), 1))}
					}
					return echo(msg)
				}}
				second := &scripted{in: make(chan transport.Incoming, 8), own: tc.ownServer, answer: echo}
				e := env(t, &dialers{cs: []transport.Conn{first, second}}, fast)
				e.Chaos = &chaos.Plan{}
				its := disconnectAt(msgs(t,
					"c2s", initReq, "s2c", initResp,
					"c2s", tc.call, "s2c", tc.callAnswer,
					"c2s", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, "s2c", `{"jsonrpc":"2.0","id":2,"result":{}}`,
					"c2s", tc.after, "s2c", tc.afterResp,
				), 4)
				if _, _, err := replayed(t, e, its); err != nil {
					t.Fatal(err)
				}
				got := sentOf(second, tc.method)
				if len(got) == 0 {
					t.Fatalf("no %s on the new connection: sent %q", tc.method, second.sent())
				}
				rpc, _ := jsonrpc.Parse([]byte(got[len(got)-1]))
				if v := string(member(t, rpc.Params(), tc.member)); v != tc.want {
					t.Errorf("%s on the new connection carries %s %s, want %s: %s", tc.method, tc.member, v, tc.want, got[len(got)-1])
				}
			})
		})
	}
}

// TestReconnectKeepsTheOldServersNotes: a notification the old server
// sent before a chaos disconnect came: with ValidateNotifications it
// still meets its recorded twin, though the new server does not send
// it again.
func TestReconnectKeepsTheOldServersNotes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const note = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`
		first := &scripted{in: make(chan transport.Incoming, 8), answer: func(msg []byte) [][]byte {
			rpc, _ := jsonrpc.Parse(msg)
			if rpc.Method == "tools/list" {
				return append([][]byte{[]byte(note)}, echo(msg)...)
			}
			return echo(msg)
		}}
		second := &scripted{in: make(chan transport.Incoming, 8), answer: echo}
		e := env(t, &dialers{cs: []transport.Conn{first, second}}, fast)
		e.Chaos = &chaos.Plan{}
		e.ValidateNotifications = true
		its := disconnectAt(msgs(t,
			"c2s", initReq, "s2c", initResp,
			"c2s", listReq, "s2c", note, "s2c", listResp,
			"c2s", pingReq, "s2c", pingResp,
		), 5)
		s, _, err := replayed(t, e, its)
		if err != nil {
			t.Fatal(err)
		}
		var notes int
		for _, o := range s.outcomes {
			if !o.Note {
				continue
			}
			notes++
			if o.Err != nil || o.Actual == nil {
				t.Errorf("notification: %+v (%v), want met by the old server's", o, o.Err)
			}
		}
		if notes != 1 {
			t.Errorf("%d notification outcomes, want 1", notes)
		}
	})
}

// TestReconnectForgetsTasksCancel: whether the server takes tasks/cancel
// is the old server's word until the new one answers its initialize: a
// task given up on a new connection whose initialize went unanswered
// gets no tasks/cancel (it used to, on the old server's word).
func TestReconnectForgetsTasksCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const caps = `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tasks":{"cancel":{}}},"serverInfo":{"name":"s","version":"1"}}}`
		first := &scripted{in: make(chan transport.Incoming, 8), answer: func(msg []byte) [][]byte {
			rpc, _ := jsonrpc.Parse(msg)
			if rpc.Method == mcp.MethodInitialize {
				return [][]byte{[]byte(strings.Replace(caps, "%s", string(rpc.ID), 1))}
			}
			return echo(msg)
		}}
		second := &scripted{in: make(chan transport.Incoming, 8), answer: func(msg []byte) [][]byte {
			rpc, _ := jsonrpc.Parse(msg)
			switch rpc.Method {
			case mcp.MethodInitialize:
				return nil // never answered
			case mcp.MethodTasksGet:
				return [][]byte{stillWorking(rpc.ID)}
			}
			return echo(msg)
		}}
		e := env(t, &dialers{cs: []transport.Conn{first, second}}, fast)
		e.Chaos = &chaos.Plan{}
		e.Timeout = 500 * time.Millisecond // the poll's passes while it waits 1s for its next send
		its := disconnectAt(msgs(t,
			"c2s", initReq, "s2c", initResp,
			"c2s", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "s2c", `{"jsonrpc":"2.0","id":1,"result":{}}`,
			"c2s", `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"t"}}`,
			"s2c", `{"jsonrpc":"2.0","id":2,"result":{"taskId":"t","status":"completed"}}`,
		), 2)
		if _, _, err := replayed(t, e, its); err != nil {
			t.Fatal(err)
		}
		if len(sentOf(second, mcp.MethodTasksGet)) == 0 {
			t.Fatalf("no tasks/get on the new connection: sent %q", second.sent())
		}
		if got := sentOf(second, mcp.MethodTasksCancel); len(got) != 0 {
			t.Errorf("tasks/cancel sent to a server that has not said it takes it: %q", got)
		}
	})
}

// TestReconnectForgetsCancelledTasks: the live ids of the tasks replayctl
// cancelled itself are the old server's; a status notification with one
// of them is of replayctl's doing only on that server (ownCancel). Over
// stdio the new connection is a new process, which may number its tasks
// as the old one did: its status notification for a task of its own
// with a reused id is compared with the recorded one (here, met by it).
// It used to be taken for the old cancel's and dropped, and the recorded
// notification reported as not sent. Over HTTP the same holds of a
// 2025-11-25 task, which is of the old MCP session.
func TestReconnectForgetsCancelledTasks(t *testing.T) {
	for _, own := range []bool{true, false} {
		t.Run(fmt.Sprintf("ownServer=%v", own), func(t *testing.T) { reconnectCancelled(t, own) })
	}
}

// reconnectCancelled is TestReconnectForgetsCancelledTasks with
// connections to a server of their own (stdio) or not (HTTP).
func reconnectCancelled(t *testing.T, own bool) {
	const caps = `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tasks":{"cancel":{},"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"s","version":"1"}}}`
	const note = `{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"live-t","status":"completed"}}`
	synctest.Test(t, func(t *testing.T) {
		server := func(first bool) func(msg []byte) [][]byte {
			return func(msg []byte) [][]byte {
				rpc, _ := jsonrpc.Parse(msg)
				id := string(rpc.ID)
				switch rpc.Method {
				case mcp.MethodInitialize:
					return [][]byte{[]byte(strings.Replace(caps, "%s", id, 1))}
				case mcp.MethodToolsCall:
					answer := []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"task":{"taskId":"live-t","status":"working"}}}`)
					if first {
						return [][]byte{answer}
					}
					return [][]byte{answer, []byte(note)} // a new process: its first task has the old one's id
				case mcp.MethodTasksGet:
					return [][]byte{[]byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"taskId":"live-t","status":"working","pollInterval":1000}}`)}
				case mcp.MethodTasksCancel:
					return [][]byte{[]byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"taskId":"live-t","status":"cancelled"}}`)}
				}
				return echo(msg)
			}
		}
		first := &scripted{in: make(chan transport.Incoming, 8), own: own, answer: server(true)}
		second := &scripted{in: make(chan transport.Incoming, 8), own: own, answer: server(false)}
		e := env(t, &dialers{cs: []transport.Conn{first, second}}, fast)
		e.Chaos = &chaos.Plan{}
		e.Timeout = 500 * time.Millisecond // the poll's passes while it waits 1s for its next send
		e.ValidateNotifications = true
		its := disconnectAt(msgs(t,
			"c2s", initReq, "s2c", initResp,
			"c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","task":{"ttl":60000}}}`,
			"s2c", `{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t","status":"working"}}}`,
			"c2s", `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"t"}}`,
			"s2c", `{"jsonrpc":"2.0","id":2,"result":{"taskId":"t","status":"completed"}}`,
			"c2s", `{"jsonrpc":"2.0","id":3,"method":"ping"}`, "s2c", `{"jsonrpc":"2.0","id":3,"result":{}}`,
			"c2s", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"quick","task":{"ttl":60000}}}`,
			"s2c", `{"jsonrpc":"2.0","id":4,"result":{"task":{"taskId":"live-t","status":"working"}}}`,
			"s2c", note,
		), 6)
		s, _, err := replayed(t, e, its)
		if err != nil {
			t.Fatal(err)
		}
		if got := sentOf(first, mcp.MethodTasksCancel); len(got) != 1 {
			t.Fatalf("tasks/cancel sent to the first server %q, want once", got)
		}
		if len(sentOf(second, mcp.MethodToolsCall)) != 1 {
			t.Fatalf("no tools/call on the new connection: sent %q", second.sent())
		}
		var notes int
		for _, o := range s.outcomes {
			if !o.Note {
				continue
			}
			notes++
			if o.Err != nil || o.Actual == nil {
				t.Errorf("the new server's status notification: %+v (%v), want met by the live one", o, o.Err)
			}
		}
		if notes != 1 {
			t.Errorf("%d notification outcomes, want 1", notes)
		}
	})
}
