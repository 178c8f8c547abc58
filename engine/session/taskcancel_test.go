package session

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/transport"
)

// TestGivingUpATaskCancelsIt: a replay that stops polling a live task
// that has not ended (its time ran out: the tasks/get timed out while it
// waited for its next poll, was answered too late to be sent again, or
// its resend went unanswered) sends tasks/cancel for the live task, as
// MCP asks of a requestor giving up a task (2025-11-25 cancellation: "for
// task-augmented requests, the tasks/cancel request MUST be used instead
// of notifications/cancelled"), when the server takes it: a 2025-11-25
// server that declared capabilities.tasks.cancel, or a task of the 2026
// extension (its answers have a resultType). notifications/cancelled
// goes only for a request still unanswered ("believed to still be in
// progress"): a tasks/get waiting for its next poll was answered. The
// tasks/cancel's own answer is not an answer to no request in flight.
// The tasks/get's timeout says what happened: a poll that gave up
// waiting for its next send (the task still going) used to read "no
// answer within X; cancelled" though it had an answer and, without
// tasks.cancel, nothing was cancelled.
func TestGivingUpATaskCancelsIt(t *testing.T) {
	const (
		caps   = `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tasks":{"cancel":{},"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"s","version":"1"}}}`
		noCaps = `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tasks":{"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"s","version":"1"}}}`
	)
	working := `{"jsonrpc":"2.0","id":%s,"result":{"taskId":"live-t","status":"working","pollInterval":%d}}`
	working2026 := `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","taskId":"live-t","status":"working","pollIntervalMs":%d}}`
	for _, tc := range []struct {
		name     string
		init     string        // the live initialize answer
		working  string        // the live tasks/get answer while the task goes on
		interval int           // the poll interval it asks, ms
		timeout  time.Duration // Env.Timeout
		// answerGets: tasks/get answered (else: the first one only)
		answerGets bool
		cancels    int // tasks/cancel sent, want
		notes      int // notifications/cancelled for a tasks/get, want
		// words: the tasks/get's timeout error, want ("": no timeout)
		words string
		// end: "disconnect" or "death" while the tasks/get waits for its
		// next poll (a ping 0.2s after it, with --order none, meets a
		// disconnect fault or a send that kills the server)
		end string
	}{
		// The poll's deadline (0.5s) passes while it waits (1s) for its next send.
		{name: "timed out waiting", init: caps, working: working, interval: 1000, timeout: 500 * time.Millisecond, answerGets: true, cancels: 1,
			words: "the task did not end in time: still going at its last poll when the poll's 500ms ran out; cancelled with tasks/cancel"},
		{name: "timed out waiting, no tasks.cancel", init: noCaps, working: working, interval: 1000, timeout: 500 * time.Millisecond, answerGets: true,
			words: "the task did not end in time: still going at its last poll when the poll's 500ms ran out; not cancelled (the server did not declare tasks.cancel)"},
		{name: "timed out waiting, 2026 task", init: noCaps, working: working2026, interval: 1000, timeout: 500 * time.Millisecond, answerGets: true, cancels: 1,
			words: "the task did not end in time: still going at its last poll when the poll's 500ms ran out; cancelled with tasks/cancel"},
		// Polled at 0, 0.6 and 1.2s, each answered at once: the third
		// answer comes past the timeout (1s) since polling began.
		{name: "answered too late to poll again", init: caps, working: working, interval: 600, timeout: time.Second, answerGets: true, cancels: 1},
		// The second poll (0.6s) is not answered: it times out in
		// flight (1.6s), and is cancelled as a request too.
		{name: "resend unanswered", init: caps, working: working, interval: 600, timeout: time.Second, cancels: 1, notes: 1,
			words: "no answer within 1s; cancelled; its task cancelled with tasks/cancel"},
		// The poll is lost with its connection, neither timed out nor
		// answered: its task is not given up by the replay, nothing is sent.
		{name: "lost in a disconnect", init: caps, working: working, interval: 1000, timeout: 5 * time.Second, answerGets: true, end: "disconnect"},
		{name: "lost with the server", init: caps, working: working, interval: 1000, timeout: 5 * time.Second, answerGets: true, end: "death"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var gets atomic.Int32
				c := &scripted{in: make(chan transport.Incoming, 8), answer: func(msg []byte) [][]byte {
					rpc, _ := jsonrpc.Parse(msg)
					id := string(rpc.ID)
					switch rpc.Method {
					case mcp.MethodInitialize:
						return [][]byte{[]byte(strings.Replace(tc.init, "%s", id, 1))}
					case mcp.MethodToolsCall:
						return [][]byte{[]byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"task":{"taskId":"live-t","status":"working"}}}`)}
					case mcp.MethodTasksGet:
						if gets.Add(1) > 1 && !tc.answerGets {
							return nil
						}
						return [][]byte{[]byte(strings.NewReplacer("%s", id, "%d", strconv.Itoa(tc.interval)).Replace(tc.working))}
					}
					return echo(msg)
				}}
				tape := []string{
					"c2s", initReq, "s2c", initResp,
					"c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","task":{"ttl":60000}}}`,
					"s2c", `{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t","status":"working"}}}`,
					"c2s", `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"t"}}`,
					"s2c", `{"jsonrpc":"2.0","id":2,"result":{"taskId":"t","status":"completed"}}`,
				}
				var d transport.Dialer = &dialer{c: c}
				conns := []*scripted{c}
				speed := fast
				if tc.end != "" {
					tape = append(tape, "c2s", `{"jsonrpc":"2.0","id":3,"method":"ping"}`, "s2c", `{"jsonrpc":"2.0","id":3,"result":{}}`)
					speed = scheduler.Speed{Mode: scheduler.Realtime} // the ping goes 0.2s after the tasks/get
				}
				switch tc.end {
				case "disconnect":
					second := &scripted{in: make(chan transport.Incoming, 8), answer: c.answer}
					conns = append(conns, second)
					d = &dialers{cs: []transport.Conn{c, second}}
				case "death":
					c.fail = func(_ int, msg []byte) error {
						if rpc, _ := jsonrpc.Parse(msg); rpc.Method == "ping" {
							return errors.New("write |1: broken pipe")
						}
						return nil
					}
				}
				e := env(t, d, speed)
				e.Timeout = tc.timeout
				its := msgs(t, tape...)
				if tc.end != "" {
					e.Chaos, e.Order = &chaos.Plan{}, OrderNone
				}
				if tc.end == "disconnect" {
					its = disconnectAt(its, 6)
				}
				s, _, err := replayed(t, e, its)
				if err != nil {
					t.Fatal(err)
				}
				getIDs := map[string]bool{}
				var cancels, notes int
				var sent [][]byte
				for _, c := range conns {
					sent = append(sent, c.sent()...)
				}
				for _, m := range sent {
					rpc, err := jsonrpc.Parse(m)
					if err != nil {
						t.Fatalf("sent %s: %v", m, err)
					}
					switch rpc.Method {
					case mcp.MethodTasksGet:
						getIDs[string(rpc.ID)] = true
					case mcp.MethodTasksCancel:
						cancels++
						if id, _ := mcp.ParamTaskID(rpc.Params()); id != "live-t" {
							t.Errorf("tasks/cancel %s: want the live task's id, live-t", m)
						}
					case "notifications/cancelled":
						req := string(member(t, rpc.Params(), "requestId"))
						if !getIDs[req] {
							t.Errorf("notifications/cancelled %s: for no tasks/get sent", m)
						}
						notes++
					}
				}
				if cancels != tc.cancels {
					t.Errorf("tasks/cancel sent %d times, want %d", cancels, tc.cancels)
				}
				if notes != tc.notes {
					t.Errorf("notifications/cancelled sent %d times for a tasks/get, want %d (only for one unanswered)", notes, tc.notes)
				}
				var words []string
				for _, o := range s.outcomes {
					if o.Err != nil && strings.Contains(o.Err.Error(), "matches no request in flight") {
						t.Errorf("an answer to no request in flight: %v", o.Err)
					}
					if o.Req.RPC.Method == mcp.MethodTasksGet && o.Timeout {
						words = append(words, o.Err.Error())
					}
					if tc.end != "" && o.Req.RPC.Method == mcp.MethodTasksGet && o.Err == nil {
						t.Errorf("tasks/get: %+v, want it lost (%s)", o, tc.end)
					}
				}
				if tc.end != "" && gets.Load() != 1 {
					t.Errorf("tasks/get sent %d times, want once (lost waiting for its next poll)", gets.Load())
				}
				switch {
				case tc.words == "" && len(words) != 0:
					t.Errorf("tasks/get timed out: %q, want no timeout", words)
				case tc.words != "" && (len(words) != 1 || words[0] != tc.words):
					t.Errorf("tasks/get timeouts %q, want one: %q", words, tc.words)
				}
			})
		})
	}
}

// member is the raw value of params' top-level member key.
func member(t *testing.T, params []byte, key string) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(params, &m); err != nil {
		t.Fatalf("params %s: %v", params, err)
	}
	return m[key]
}

// TestOwnCancelIsNotANotificationToCompare: with ValidateNotifications,
// the status notification a server sends for a task replayctl cancelled
// itself (cancelTask) is of replayctl's doing, not the server's: the
// recorded client cancelled nothing. It used to be reported as a
// notification not recorded when the session's notifications were
// compared after it came (a request later on the tape kept the session
// going).
func TestOwnCancelIsNotANotificationToCompare(t *testing.T) {
	const caps = `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tasks":{"cancel":{},"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"s","version":"1"}}}`
	for _, method := range []string{mcp.NotificationTaskStatus, mcp.NotificationTasks} {
		t.Run(method, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := &scripted{in: make(chan transport.Incoming, 8), answer: func(msg []byte) [][]byte {
					rpc, _ := jsonrpc.Parse(msg)
					id := string(rpc.ID)
					switch rpc.Method {
					case mcp.MethodInitialize:
						return [][]byte{[]byte(strings.Replace(caps, "%s", id, 1))}
					case mcp.MethodToolsCall:
						return [][]byte{[]byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"task":{"taskId":"live-t","status":"working"}}}`)}
					case mcp.MethodTasksGet:
						return [][]byte{[]byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"taskId":"live-t","status":"working","pollInterval":1000}}`)}
					case mcp.MethodTasksCancel:
						return [][]byte{
							[]byte(`{"jsonrpc":"2.0","method":"` + method + `","params":{"taskId":"live-t","status":"cancelled"}}`),
							[]byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"taskId":"live-t","status":"cancelled"}}`),
						}
					}
					return echo(msg)
				}}
				e := env(t, &dialer{c: c}, fast)
				e.Timeout = 500 * time.Millisecond // the poll's passes while it waits 1s for its next send
				e.ValidateNotifications = true
				s, _, err := replayed(t, e, msgs(t,
					"c2s", initReq, "s2c", initResp,
					"c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","task":{"ttl":60000}}}`,
					"s2c", `{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t","status":"working"}}}`,
					"c2s", `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"t"}}`,
					"s2c", `{"jsonrpc":"2.0","id":2,"result":{"taskId":"t","status":"completed"}}`,
					"c2s", `{"jsonrpc":"2.0","id":3,"method":"ping"}`, "s2c", `{"jsonrpc":"2.0","id":3,"result":{}}`,
				))
				if err != nil {
					t.Fatal(err)
				}
				if got := sentOf(c, mcp.MethodTasksCancel); len(got) != 1 {
					t.Fatalf("tasks/cancel sent %q, want once", got)
				}
				for _, o := range s.outcomes {
					if o.Note {
						t.Errorf("notification outcome %+v (%v): want none (the server's answer to replayctl's own tasks/cancel)", o.Req.RPC.Method, o.Err)
					}
				}
			})
		})
	}
}
