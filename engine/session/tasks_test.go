package session

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/transport"
)

// TestActorTasks: a task's live id is sent where the recording has its
// own, and a tasks/get the recording answered with the task ended is
// sent again, at the interval the live server asks, until the live task
// ends; that answer is the one judged.
func TestActorTasks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var polls atomic.Int32
		c := &scripted{in: make(chan transport.Incoming, 8), answer: func(msg []byte) [][]byte {
			rpc, _ := jsonrpc.Parse(msg)
			id := string(rpc.ID)
			switch rpc.Method {
			case "tools/call":
				return [][]byte{[]byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"task":{"taskId":"live-t","status":"working","pollInterval":50}}}`)}
			case "tasks/get":
				if !strings.Contains(string(msg), `"live-t"`) {
					return [][]byte{[]byte(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32602,"message":"unknown task"}}`)}
				}
				if polls.Add(1) < 3 {
					return [][]byte{[]byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"taskId":"live-t","status":"working","pollInterval":50}}`)}
				}
				return [][]byte{[]byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"taskId":"live-t","status":"completed"}}`)}
			}
			return echo(msg)
		}}
		start := time.Now()
		s, err := replay(t, env(t, &dialer{c: c}, fast), msgs(t,
			"c2s", initReq, "s2c", initResp,
			"c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`,
			"s2c", `{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"rec-t","status":"working"}}}`,
			"c2s", `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"rec-t"}}`,
			"s2c", `{"jsonrpc":"2.0","id":2,"result":{"taskId":"rec-t","status":"completed"}}`,
		))
		if err != nil {
			t.Fatal(err)
		}
		if n := polls.Load(); n != 3 {
			t.Errorf("tasks/get answered %d times, want 3 (polled until the live task ended)", n)
		}
		o := s.bySeq()[4]
		if o == nil || o.Actual == nil || !strings.Contains(string(o.Actual.Msg), "completed") {
			t.Fatalf("tasks/get: %+v, want judged on the answer that ended the task", o)
		}
		if took := time.Since(start); took != 100*time.Millisecond {
			t.Errorf("polled for %s, want 2 × the 50ms the server asked", took)
		}
		_ = context.Background
	})
}

// TestActorEnd: the end of the tape is passed on once everything before
// it is reported, with the session's end (SessionEnds) last of all.
func TestActorEnd(t *testing.T) {
	e := env(t, mockOf(quickstart), fast)
	e.SessionEnds = true
	its := append(items(t, quickstart), &Item{End: true})
	s, err := replay(t, e, its)
	if err != nil {
		t.Fatal(err)
	}
	n := len(s.outcomes)
	if n < 2 || !s.outcomes[n-2].End || !s.outcomes[n-1].SessionEnd {
		t.Fatalf("the last outcomes: %+v, %+v; want the end of the tape, then the session's end", s.outcomes[n-2], s.outcomes[n-1])
	}
	if s.ends != 1 {
		t.Errorf("End asked %d times, want once", s.ends)
	}
}

// TestActorOrders: every order rule replays the example session against
// the mock with every answer paired.
func TestActorOrders(t *testing.T) {
	for _, o := range []Order{OrderCausal, OrderSequential, OrderNone, OrderRandom} {
		t.Run(string(o), func(t *testing.T) {
			e := env(t, mockOf(quickstart), fast)
			e.Order, e.OrderSeed = o, 7
			s, err := replay(t, e, items(t, quickstart))
			if err != nil {
				t.Fatal(err)
			}
			var answered int
			for _, oc := range s.outcomes {
				if oc.Actual != nil && oc.Expected != nil {
					answered++
				}
			}
			if answered != 8 {
				t.Errorf("%d requests answered and paired, want 8", answered)
			}
		})
	}
}

// TestActorDialFails: a target that cannot be reached ends the session
// with an error wrapping ErrTarget that names it.
func TestActorDialFails(t *testing.T) {
	_, err := replay(t, env(t, &dialer{}, fast), msgs(t, "c2s", initReq, "s2c", initResp))
	if err == nil || !strings.Contains(err.Error(), "connect session s1") {
		t.Errorf("Run = %v, want the failed connection", err)
	}
}

// TestActorRefusedHandshake: a target that refuses initialize over HTTP
// is no MCP server: the replay ends.
func TestActorRefusedHandshake(t *testing.T) {
	c := &scripted{in: make(chan transport.Incoming, 8), fail: func(int, []byte) error { return &transport.HTTPError{Status: 404} }}
	_, err := replay(t, env(t, &dialer{c: c}, fast), msgs(t, "c2s", initReq, "s2c", initResp))
	if err == nil || !strings.Contains(err.Error(), "refused initialize") {
		t.Errorf("Run = %v, want the refused handshake", err)
	}
}
