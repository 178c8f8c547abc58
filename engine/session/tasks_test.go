package session

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/scheduler"
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

// TestActorStartsAtItsTime: a session connects at its recorded start,
// not before.
func TestActorStartsAtItsTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &scripted{in: make(chan transport.Incoming, 8), answer: echo}
		s := &recSink{}
		start := time.Now()
		a := New(env(t, &dialer{c: c}, fast), s, "s1", start.Add(3*time.Second))
		done := make(chan error, 1)
		go func() { done <- a.Run(context.Background()) }()
		for _, it := range msgs(t, "c2s", initReq, "s2c", initResp) {
			a.Put(it)
		}
		a.Close()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if o := s.bySeq()[0]; o == nil || o.Sent.Sub(start) != 3*time.Second {
			t.Errorf("initialize: %+v, want sent at its start, +3s", o)
		}
	})
}

// TestOutcomeHelpers: what validate reads of an outcome: the recorded
// answer as set_result rules left it, a message's result member, and a
// task poll the recording answered with the task going on.
func TestOutcomeHelpers(t *testing.T) {
	rec := msgs(t, "s2c", `{"jsonrpc":"2.0","id":2,"result":{"taskId":"t","status":"working"}}`)[0]
	get := msgs(t, "c2s", `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"t"}}`)[0]
	o := &Outcome{Req: get, Expected: rec, Actual: &transport.Incoming{Msg: []byte(`{"jsonrpc":"2.0","id":2,"result":{"taskId":"t","status":"completed"}}`)}}
	if string(o.ExpectedMsg()) != string(rec.Rec.Msg) {
		t.Errorf("ExpectedMsg = %s, want the recorded answer", o.ExpectedMsg())
	}
	o.Edited = []byte(`{"edited":true}`)
	if string(o.ExpectedMsg()) != `{"edited":true}` {
		t.Errorf("ExpectedMsg = %s, want the edited answer", o.ExpectedMsg())
	}
	o.Edited = nil
	if !IsPoll(o) {
		t.Error("IsPoll = false for a poll the recording answered with the task working")
	}
	if got := string(Result(o.Actual.Msg)); got != `{"taskId":"t","status":"completed"}` {
		t.Errorf("Result = %s", got)
	}
	if Result([]byte("not json")) != nil {
		t.Error("Result of bytes that are not JSON-RPC is not nil")
	}
	for in, want := range map[string]time.Duration{`{"pollIntervalMs":20}`: 20 * time.Millisecond, `{"pollInterval":30}`: 30 * time.Millisecond, `{"task":{"pollInterval":40}}`: 40 * time.Millisecond, `{}`: 0, `x`: 0} {
		if got := pollInterval([]byte(in)); got != want {
			t.Errorf("pollInterval(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestActorListenEndsWithTheTape: a subscriptions/listen the recording
// left open is finished with the tape, with what it delivered.
func TestActorListenEndsWithTheTape(t *testing.T) {
	c := &scripted{in: make(chan transport.Incoming, 8), answer: func(msg []byte) [][]byte {
		if strings.Contains(string(msg), "subscriptions/listen") {
			return [][]byte{[]byte(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"x"}}`)}
		}
		return echo(msg)
	}}
	s, err := replay(t, env(t, &dialer{c: c}, fast), append(msgs(t, "c2s", initReq, "s2c", initResp,
		"c2s", `{"jsonrpc":"2.0","id":5,"method":"subscriptions/listen","params":{}}`), &Item{End: true}))
	if err != nil {
		t.Fatal(err)
	}
	if o := s.bySeq()[2]; o == nil || !o.Stream {
		t.Errorf("subscriptions/listen: %+v, want finished as a stream the tape ended", o)
	}
}

// TestActorSendFailures: what becomes of a message the target does not
// take: one it does not take within the timeout times out; one it
// refuses (HTTP 400) has the refusal as its outcome, and a faulted one
// has it as its answer (the server's verdict on the fault).
func TestActorSendFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &scripted{in: make(chan transport.Incoming, 8), answer: echo, fail: func(_ int, msg []byte) error {
			switch {
			case strings.Contains(string(msg), "tools/list"):
				return context.DeadlineExceeded // the answer's headers never came
			case strings.Contains(string(msg), `"ping"`):
				return &transport.HTTPError{Status: 400}
			case strings.Contains(string(msg), `"id":3`) || !strings.HasPrefix(string(msg), "{"):
				return &transport.HTTPError{Status: 400, Body: "bad request"}
			}
			return nil
		}}
		e := env(t, &dialer{c: c}, fast)
		e.Chaos = &chaos.Plan{}
		its := msgs(t, "c2s", initReq, "s2c", initResp, "c2s", listReq, "s2c", listResp, "c2s", pingReq, "s2c", pingResp,
			"c2s", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{}}`, "s2c", `{"jsonrpc":"2.0","id":3,"result":{}}`)
		its[6].Fault = &chaos.Fault{Kind: chaos.Malformed, Seq: 6, Session: "s1", MsgKind: "request"}
		s, err := replay(t, e, its)
		if err != nil {
			t.Fatal(err)
		}
		if o := s.bySeq()[2]; o == nil || !o.Timeout || !strings.Contains(o.Err.Error(), "did not take the message") {
			t.Errorf("tools/list: %+v, want timed out: not taken", o)
		}
		var he *transport.HTTPError
		if o := s.bySeq()[4]; o == nil || !errors.As(o.Err, &he) {
			t.Errorf("ping: %+v, want the refusal as its error", o)
		}
		if o := s.bySeq()[6]; o == nil || o.Actual == nil || o.Actual.HTTP == nil {
			t.Errorf("the faulted call: %+v, want the refusal as its answer", o)
		}
	})
}

// TestCountSpeedConnectsInTurn: at rps, a session connects when its
// first message's shared ticket falls due, not when it is routed: three
// sessions started at once at rps:10 connect at +0, +100ms and +200ms
// (which one when is whichever takes the ticket), and each first message
// is due and goes out as its session connects.
func TestCountSpeedConnectsInTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rps := scheduler.Speed{Mode: scheduler.Rate, RPS: 10}
		e := env(t, nil, rps)
		start := time.Now()
		var mu sync.Mutex
		dialled := map[string]time.Duration{}
		e.Dialer = dialFunc(func(_ context.Context, name string) (transport.Conn, error) {
			mu.Lock()
			dialled[name] = time.Since(start)
			mu.Unlock()
			return &scripted{in: make(chan transport.Incoming, 8), answer: echo}, nil
		})
		var wg sync.WaitGroup
		sinks := map[string]*recSink{}
		for _, name := range []string{"a", "b", "c"} {
			s := &recSink{}
			sinks[name] = s
			a := New(e, s, name, start)
			wg.Go(func() {
				if err := a.Run(context.Background()); err != nil {
					t.Error(err)
				}
			})
			a.Put(msgs(t, "c2s", pingReq)[0])
			a.Close()
		}
		wg.Wait()
		turns := map[time.Duration]bool{}
		for name, at := range dialled {
			turns[at] = true
			if o := sinks[name].bySeq()[0]; o == nil || o.Sent.Sub(start) != at || o.Req.Due.Sub(start) != at {
				t.Errorf("session %s connected at +%s: %+v, want its ping due and sent then", name, at, o)
			}
		}
		if len(turns) != 3 || !turns[0] || !turns[100*time.Millisecond] || !turns[200*time.Millisecond] {
			t.Errorf("sessions connected at %v, want at +0, +100ms and +200ms", dialled)
		}
	})
}

type dialFunc func(context.Context, string) (transport.Conn, error)

func (f dialFunc) Dial(ctx context.Context, s string) (transport.Conn, error) { return f(ctx, s) }

// chanGate lets a message through per value received.
type chanGate chan struct{}

func (g chanGate) Pass(ctx context.Context, _ *Item) Admission {
	select {
	case <-g:
		return Admission{Pass: true}
	case <-ctx.Done():
		return Admission{Err: ctx.Err()}
	}
}

// TestGateBeforeConnecting: with a gate (a debugger's), a session does
// not connect before the gate lets its first message through: its server
// starts at the first step, not when the replay starts.
func TestGateBeforeConnecting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var dials atomic.Int32
		e := env(t, nil, fast)
		e.Dialer = dialFunc(func(context.Context, string) (transport.Conn, error) {
			dials.Add(1)
			return &scripted{in: make(chan transport.Incoming, 8), answer: echo}, nil
		})
		g := make(chanGate)
		e.Gate = g
		s := &recSink{}
		a := New(e, s, "s1", time.Now())
		done := make(chan error, 1)
		go func() { done <- a.Run(context.Background()) }()
		for _, it := range msgs(t, "c2s", initReq, "s2c", initResp, "c2s", pingReq, "s2c", pingResp) {
			a.Put(it)
		}
		a.Close()
		synctest.Wait()
		if n := dials.Load(); n != 0 {
			t.Fatalf("dialled %d times before the first step, want 0", n)
		}
		g <- struct{}{}
		synctest.Wait()
		if n := dials.Load(); n != 1 {
			t.Fatalf("dialled %d times after the first step, want 1", n)
		}
		if o := s.bySeq()[0]; o == nil || o.Actual == nil {
			t.Errorf("initialize: %+v, want sent and answered after the first step", o)
		}
		if o := s.bySeq()[2]; o != nil {
			t.Errorf("ping: %+v, want it held at the gate", o)
		}
		g <- struct{}{}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if o := s.bySeq()[2]; o == nil || o.Actual == nil {
			t.Errorf("ping: %+v, want answered after the second step", o)
		}
	})
}

// pollThenPing is the poll tests' tape: a tasks/get whose recorded task
// ended (id 2), then a ping (id 3).
func pollThenPing(t *testing.T) []*Item {
	return msgs(t,
		"c2s", initReq, "s2c", initResp,
		"c2s", `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"t"}}`,
		"s2c", `{"jsonrpc":"2.0","id":2,"result":{"taskId":"t","status":"completed"}}`,
		"c2s", `{"jsonrpc":"2.0","id":3,"method":"ping"}`, "s2c", `{"jsonrpc":"2.0","id":3,"result":{}}`,
	)
}

// stillWorking is a live answer to tasks/get id: the task still working,
// polled again after a second.
func stillWorking(id []byte) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"taskId":"t","status":"working","pollInterval":1000}}`)
}

// TestPollNotSentAgainOnceEnded: a tasks/get polled again (the live task
// still working, the recorded one ended) that times out while it waits
// for its next poll is reported once, as a timeout, and not polled again:
// the poll's timer found it ended. It used to be sent again, after it
// had been reported, as a new request of the same seq (as one lost in a
// chaos disconnect was, on the new connection).
func TestPollNotSentAgainOnceEnded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var gets atomic.Int32
		var c *scripted
		c = &scripted{in: make(chan transport.Incoming, 8), answer: func(msg []byte) [][]byte {
			rpc, _ := jsonrpc.Parse(msg)
			switch rpc.Method {
			case "ping": // answered 0.8s later (sent at 1s): the session is still on when the poll's wait ends (1.5s)
				go func() {
					time.Sleep(800 * time.Millisecond)
					c.in <- transport.Incoming{Msg: []byte(`{"jsonrpc":"2.0","id":3,"result":{}}`), At: time.Now()}
				}()
				return nil
			case "tasks/get":
			default:
				return echo(msg)
			}
			gets.Add(1)
			time.Sleep(500 * time.Millisecond) // the bubble's clock: a slow answer
			return [][]byte{stillWorking(rpc.ID)}
		}}
		e := env(t, &dialer{c: c}, fast)
		e.Timeout = time.Second // passes during the 1s wait for the next poll
		s, a, err := replayed(t, e, pollThenPing(t))
		if err != nil {
			t.Fatal(err)
		}
		if n := a.ss.inflight; n != 0 {
			t.Errorf("%d requests in flight at the end, want 0 (every one answered or given up)", n)
		}
		if n := gets.Load(); n != 1 {
			t.Errorf("tasks/get sent %d times, want once (it timed out before its next poll)", n)
		}
		var got []*Outcome
		for _, o := range s.outcomes {
			if o.Req.Rec.Seq == 2 {
				got = append(got, o)
			}
		}
		if len(got) != 1 || !got[0].Timeout {
			t.Errorf("tasks/get reported %d times (%+v), want once, as a timeout", len(got), got)
		}
	})
}

// TestPollEndedKeepsTheInflightLimit: a tasks/get that times out while it
// waits for its next poll is no longer counted in flight: its answer took
// it out already. It used to be taken out twice (the session at -1 for
// good), so that with MaxInflight 1 the two pings after it went out
// together.
func TestPollEndedKeepsTheInflightLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var open, overlaps atomic.Int32 // pings sent and not answered; pings sent while another was
		var c *scripted
		c = &scripted{in: make(chan transport.Incoming, 8), answer: func(msg []byte) [][]byte {
			rpc, _ := jsonrpc.Parse(msg)
			switch rpc.Method {
			case "ping": // each answered 0.3s later
				if open.Add(1) > 1 {
					overlaps.Add(1)
				}
				go func() {
					time.Sleep(300 * time.Millisecond)
					open.Add(-1)
					c.in <- transport.Incoming{Msg: []byte(`{"jsonrpc":"2.0","id":` + string(rpc.ID) + `,"result":{}}`), At: time.Now()}
				}()
				return nil
			case "tasks/get":
				time.Sleep(500 * time.Millisecond)
				return [][]byte{stillWorking(rpc.ID)}
			}
			return echo(msg)
		}}
		e := env(t, &dialer{c: c}, fast)
		e.Timeout = time.Second // passes during the 1s wait for the next poll
		e.MaxInflight = 1
		s, a, err := replayed(t, e, msgs(t,
			"c2s", initReq, "s2c", initResp,
			"c2s", `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"t"}}`,
			"s2c", `{"jsonrpc":"2.0","id":2,"result":{"taskId":"t","status":"completed"}}`,
			"c2s", `{"jsonrpc":"2.0","id":3,"method":"ping"}`,
			"c2s", `{"jsonrpc":"2.0","id":4,"method":"ping"}`,
			"s2c", `{"jsonrpc":"2.0","id":3,"result":{}}`, "s2c", `{"jsonrpc":"2.0","id":4,"result":{}}`,
		))
		if err != nil {
			t.Fatal(err)
		}
		if n := overlaps.Load(); n != 0 {
			t.Errorf("%d pings sent while another was unanswered, want 0 (MaxInflight 1)", n)
		}
		if n := a.ss.inflight; n != 0 {
			t.Errorf("%d requests in flight at the end, want 0", n)
		}
		for _, seq := range []int64{4, 5} {
			if o := s.bySeq()[seq]; o == nil || o.Actual == nil {
				t.Errorf("ping seq %d: %+v, want answered", seq, o)
			}
		}
	})
}

// TestPollLostInADisconnectCountedOnce: a tasks/get lost in a chaos
// disconnect while it waits for its next poll is not taken out of the
// count in flight a second time (its answer took it out), nor polled
// again on the new connection.
func TestPollLostInADisconnectCountedOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var gets atomic.Int32
		answer := func(msg []byte) [][]byte {
			rpc, _ := jsonrpc.Parse(msg)
			switch rpc.Method {
			case "tasks/get":
				gets.Add(1)
				return [][]byte{stillWorking(rpc.ID)}
			case "ping":
				return nil // cut off by the disconnect
			}
			return echo(msg)
		}
		first := &scripted{in: make(chan transport.Incoming, 8), answer: answer}
		second := &scripted{in: make(chan transport.Incoming, 8), answer: echo}
		e := env(t, &dialers{cs: []transport.Conn{first, second}}, scheduler.Speed{Mode: scheduler.Realtime})
		e.Chaos = &chaos.Plan{}
		e.Order = OrderNone // the ping goes out on time (0.4s), during the poll's 1s wait
		its := pollThenPing(t)
		its[4].Fault = &chaos.Fault{Kind: chaos.Disconnect, Seq: 4, Session: "s1", MsgKind: "request"}
		s, a, err := replayed(t, e, its)
		if err != nil {
			t.Fatal(err)
		}
		if n := a.ss.inflight; n != 0 {
			t.Errorf("%d requests in flight at the end, want 0", n)
		}
		if n := gets.Load(); n != 1 {
			t.Errorf("tasks/get sent %d times, want once (lost before its next poll)", n)
		}
		if o := s.bySeq()[2]; o == nil || !o.Lost {
			t.Errorf("tasks/get: %+v, want lost in the disconnect", o)
		}
	})
}

// TestPollDuplicateAnswerCountedOnce: a second answer with the id of a
// tasks/get that waits for its next poll is an answer to no request in
// flight, as one to any request already answered: it is not paired (the
// count in flight taken down again, the poll timed twice).
func TestPollDuplicateAnswerCountedOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var gets atomic.Int32
		var c *scripted
		c = &scripted{in: make(chan transport.Incoming, 8), answer: func(msg []byte) [][]byte {
			rpc, _ := jsonrpc.Parse(msg)
			if rpc.Method != "tasks/get" {
				return echo(msg)
			}
			if gets.Add(1) > 1 {
				return [][]byte{[]byte(`{"jsonrpc":"2.0","id":` + string(rpc.ID) + `,"result":{"taskId":"t","status":"completed"}}`)}
			}
			working := stillWorking(rpc.ID)
			go func() { // the same answer again, 0.1s later: while the poll waits
				time.Sleep(100 * time.Millisecond)
				c.in <- transport.Incoming{Msg: working, At: time.Now()}
			}()
			return [][]byte{working}
		}}
		s, a, err := replayed(t, env(t, &dialer{c: c}, fast), pollThenPing(t))
		if err != nil {
			t.Fatal(err)
		}
		if n := a.ss.inflight; n != 0 {
			t.Errorf("%d requests in flight at the end, want 0", n)
		}
		if n := gets.Load(); n != 2 {
			t.Errorf("tasks/get sent %d times, want twice (polled once again)", n)
		}
		var strays int
		for _, o := range s.outcomes {
			if o.Req.Rec.Seq == -1 && o.Err != nil && strings.Contains(o.Err.Error(), "matches no request in flight") {
				strays++
			}
		}
		if strays != 1 {
			t.Errorf("%d answers to no request in flight, want 1 (the duplicate)", strays)
		}
		if o := s.bySeq()[2]; o == nil || o.Actual == nil || !strings.Contains(string(o.Actual.Msg), "completed") {
			t.Errorf("tasks/get: %+v, want judged on the answer that ended the task", o)
		}
	})
}
