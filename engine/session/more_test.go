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

const (
	rootsAsk    = `{"jsonrpc":"2.0","id":"r0","method":"roots/list"}`
	rootsAnswer = `{"jsonrpc":"2.0","id":"r0","result":{"roots":[]}}`
)

// asking is a target that asks roots/list before it answers tools/list,
// and answers tools/list once it has the client's answer; it asks for
// sampling too, which the tape never answered, when extra is set.
func asking(extra bool) func(msg []byte) [][]byte {
	return func(msg []byte) [][]byte {
		rpc, _ := jsonrpc.Parse(msg)
		switch {
		case rpc.Method == "tools/list":
			out := [][]byte{[]byte(`{"jsonrpc":"2.0","id":"live-1","method":"roots/list"}`)}
			if extra {
				out = append(out, []byte(`{"jsonrpc":"2.0","id":"live-2","method":"sampling/createMessage","params":{}}`))
			}
			return out
		case rpc.Kind == jsonrpc.KindResponse && string(rpc.ID) == `"live-1"`:
			return [][]byte{[]byte(listResp)}
		case rpc.Kind == jsonrpc.KindRequest:
			return echo(msg)
		}
		return nil
	}
}

// TestActorAnswersServerRequests: the live server's request is answered
// with the client's recorded answer of the same method, with the live id;
// the session waits for it as the recorded client did; a request the tape
// has no answer to is refused with an error and counted.
func TestActorAnswersServerRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &scripted{in: make(chan transport.Incoming, 8), answer: asking(true)}
		e := env(t, &dialer{c: c}, fast)
		s, err := replay(t, e, msgs(t, "c2s", initReq, "s2c", initResp, "c2s", listReq, "s2c", rootsAsk, "c2s", rootsAnswer, "s2c", listResp, "c2s", pingReq, "s2c", pingResp))
		if err != nil {
			t.Fatal(err)
		}
		var answered, refused bool
		for _, m := range c.sent() {
			answered = answered || string(m) == `{"jsonrpc":"2.0","id":"live-1","result":{"roots":[]}}`
			refused = refused || strings.Contains(string(m), `"id":"live-2","error":{"code":-32601`)
		}
		if !answered || !refused {
			t.Errorf("answered roots/list %v, refused sampling %v; want both: sent %q", answered, refused, c.sent())
		}
		if s.counts[ServerRequest] != 1 || s.counts[ServerRefused] != 1 {
			t.Errorf("counts %v, want one server request answered, one refused", s.counts)
		}
		if o := s.bySeq()[2]; o == nil || o.Actual == nil {
			t.Errorf("tools/list: %+v, want answered", o)
		}
		if o := s.bySeq()[4]; o == nil || o.Sent.IsZero() {
			t.Errorf("the client's answer: %+v, want sent", o)
		}
	})
}

// TestActorServerNeverAsks: when the live server does not ask what the
// recorded one asked, the session waits for it at most Env.AskWait (not
// the whole Env.Timeout), then goes on; the recorded answer is reported
// as not asked for.
func TestActorServerNeverAsks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &scripted{in: make(chan transport.Incoming, 8), answer: echo}
		e := env(t, &dialer{c: c}, fast)
		e.Timeout = 20 * time.Second
		e.AskWait = 2 * time.Second
		start := time.Now()
		s, err := replay(t, e, msgs(t, "c2s", initReq, "s2c", initResp, "c2s", listReq, "s2c", rootsAsk, "c2s", rootsAnswer, "s2c", listResp, "c2s", pingReq, "s2c", pingResp))
		if err != nil {
			t.Fatal(err)
		}
		o := s.bySeq()[6]
		if o == nil || o.Actual == nil {
			t.Fatalf("ping: %+v, want answered", o)
		}
		if waited := o.Sent.Sub(start); waited != 2*time.Second {
			t.Errorf("ping sent after %s, want after the 2s the session waited for the server's request", waited)
		}
		if o := s.bySeq()[4]; o == nil || !strings.Contains(o.Skipped, "did not ask") {
			t.Errorf("the client's answer: %+v, want skipped: the server did not ask", o)
		}
	})
}

// TestActorControl: while it runs, an actor takes a message injected
// into its session (reported with its answer), a rewind of its
// connection, and a speed change; after it has returned it says so.
func TestActorControl(t *testing.T) {
	e := env(t, mockOf(quickstart), fast)
	s := &recSink{}
	a := New(e, s, "s1", time.Now())
	if a.Name() != "s1" {
		t.Errorf("Name %q, want s1", a.Name())
	}
	done := make(chan error, 1)
	go func() { done <- a.Run(context.Background()) }()
	its := items(t, quickstart)
	for _, it := range its[:3] { // the handshake
		a.Put(it)
	}
	ctx := context.Background()
	ping := msgs(t, "c2s", `{"jsonrpc":"2.0","id":"inj","method":"ping"}`)[0]
	ping.Injected, ping.Rec.Seq = true, -1
	if err := a.Inject(ctx, ping); err != nil {
		t.Fatal(err)
	}
	if err := a.Rewind(ctx, 3); err != nil {
		t.Fatal(err)
	}
	a.SetSpeed(scheduler.Speed{Mode: scheduler.Scaled, Factor: 10}, time.Now())
	for _, it := range its[3:] {
		a.Put(it)
	}
	a.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var injected *Outcome
	for _, o := range s.outcomes {
		if o.Req == ping {
			injected = o
		}
	}
	if injected == nil || injected.Actual == nil {
		t.Errorf("the injected ping: %+v, want answered", injected)
	}
	if err := a.Rewind(ctx, 3); err == nil || !strings.Contains(err.Error(), "has ended") {
		t.Errorf("Rewind after the end: %v, want an error saying the session has ended", err)
	}
	if a.Put(its[0]) {
		t.Error("Put after the end took the item")
	}
}

// dying is a scripted connection whose target dies after its first
// request is sent.
type dying struct {
	scripted
	once sync.Once
	err  error
}

func (c *dying) Send(ctx context.Context, msg []byte) error {
	if err := c.scripted.Send(ctx, msg); err != nil {
		return err
	}
	if strings.Contains(string(msg), "tools/list") {
		c.once.Do(func() { c.Close() })
	}
	return nil
}

func (c *dying) Err() error { return c.err }

// TestActorTargetDies: a target that dies ends the session with an error
// wrapping ErrTarget; under chaos the session is marked dead instead,
// its request in flight fails and what comes later is skipped.
func TestActorTargetDies(t *testing.T) {
	died := errors.New("exit status 7")
	c := &dying{scripted: scripted{in: make(chan transport.Incoming, 8), answer: echo}, err: died}
	c.scripted.answer = func(msg []byte) [][]byte {
		if strings.Contains(string(msg), "tools/list") {
			return nil
		}
		return echo(msg)
	}
	its := msgs(t, "c2s", initReq, "s2c", initResp, "c2s", listReq, "s2c", listResp, "c2s", pingReq, "s2c", pingResp)
	_, err := replay(t, env(t, &dialer{c: c}, fast), its)
	if !errors.Is(err, ErrTarget) || !errors.Is(err, died) {
		t.Errorf("Run = %v, want the target's failure", err)
	}

	c2 := &dying{scripted: scripted{in: make(chan transport.Incoming, 8), answer: c.scripted.answer}, err: died}
	e := env(t, &dialer{c: c2}, fast)
	e.Chaos = &chaos.Plan{}
	s, err := replay(t, e, msgs(t, "c2s", initReq, "s2c", initResp, "c2s", listReq, "s2c", listResp, "c2s", pingReq, "s2c", pingResp))
	if err != nil {
		t.Fatalf("Run = %v, want nil: under chaos a dead server is a verdict", err)
	}
	if o := s.bySeq()[2]; o == nil || !o.Died && o.Err == nil {
		t.Errorf("tools/list: %+v, want failed: its server died", o)
	}
	if o := s.bySeq()[4]; o == nil || !strings.Contains(o.Skipped, "died") {
		t.Errorf("ping: %+v, want skipped: its server died", o)
	}
}

// concurrent is a scripted connection whose sends may overlap (as over
// Streamable HTTP): the actor sends requests without waiting.
type concurrent struct{ *scripted }

func (concurrent) SendsConcurrently() bool { return true }

// TestActorSendsWithoutWaiting: over a connection that allows it, a
// request goes out on a goroutine of the actor's; a send that fails is
// the request's outcome, and the session goes on.
func TestActorSendsWithoutWaiting(t *testing.T) {
	c := &scripted{in: make(chan transport.Incoming, 8), answer: echo, fail: func(_ int, msg []byte) error {
		if strings.Contains(string(msg), "ping") {
			return &transport.HTTPError{Status: 400}
		}
		return nil
	}}
	s, err := replay(t, env(t, &dialer{c: concurrent{c}}, fast), msgs(t, "c2s", initReq, "s2c", initResp, "c2s", listReq, "s2c", listResp, "c2s", pingReq, "s2c", pingResp))
	if err != nil {
		t.Fatal(err)
	}
	if o := s.bySeq()[2]; o == nil || o.Actual == nil {
		t.Errorf("tools/list: %+v, want answered", o)
	}
	var he *transport.HTTPError
	if o := s.bySeq()[4]; o == nil || !errors.As(o.Err, &he) {
		t.Errorf("ping: %+v, want the 400 as its outcome", o)
	}
}

// handing is a concurrent connection that also takes a request without
// holding its sender (transport.AsyncSender), as the lean HTTP client
// does, and counts the requests it took so; closed, it takes none.
type handing struct {
	concurrent
	handed atomic.Int32
}

func (h *handing) SendAsync(ctx context.Context, msg []byte, _ time.Time, done func(error)) bool {
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		return false
	}
	h.handed.Add(1)
	go func() { done(h.Send(ctx, msg)) }()
	return true
}

// TestActorHandsRequestsToTheNewConnection: what a session's connection
// can do (session.setConn) is found again when a disconnect fault makes
// it reconnect: the requests after the reconnect are handed to the new
// connection without waiting, none to the closed one.
func TestActorHandsRequestsToTheNewConnection(t *testing.T) {
	newConn := func() *handing {
		return &handing{concurrent: concurrent{&scripted{in: make(chan transport.Incoming, 8), answer: echo}}}
	}
	first, second := newConn(), newConn()
	e := env(t, &dialers{cs: []transport.Conn{first, second}}, fast)
	e.Chaos = &chaos.Plan{}
	list2 := strings.Replace(listReq, `"id":1`, `"id":3`, 1)
	list2Resp := strings.Replace(listResp, `"id":1`, `"id":3`, 1)
	its := msgs(t, "c2s", initReq, "s2c", initResp, "c2s", listReq, "s2c", listResp, "c2s", pingReq, "s2c", pingResp, "c2s", list2, "s2c", list2Resp)
	its[2].Fault = &chaos.Fault{Kind: chaos.Disconnect, Seq: 2, Session: "s1", MsgKind: "request"}
	s, err := replay(t, e, its)
	if err != nil {
		t.Fatal(err)
	}
	for _, seq := range []int64{4, 6} {
		if o := s.bySeq()[seq]; o == nil || o.Actual == nil {
			t.Errorf("seq %d: %+v, want answered after the reconnect", seq, o)
		}
	}
	if n := first.handed.Load(); n != 0 {
		t.Errorf("the first connection was handed %d requests, want 0 (its one request carried the fault)", n)
	}
	if n := second.handed.Load(); n != 2 {
		t.Errorf("the new connection was handed %d requests, want 2 (ping, the second tools/list)", n)
	}
}

// TestActorInjectError: a request an inject_error rule answers is not
// sent; its answer is the rule's error.
func TestActorInjectError(t *testing.T) {
	c := &scripted{in: make(chan transport.Incoming, 8), answer: echo}
	its := msgs(t, "c2s", initReq, "s2c", initResp, "c2s", listReq, "s2c", listResp)
	its[2].Rules = &Ruled{InjectError: []byte(`{"code":-32000,"message":"injected"}`)}
	s, err := replay(t, env(t, &dialer{c: c}, fast), its)
	if err != nil {
		t.Fatal(err)
	}
	o := s.bySeq()[2]
	if o == nil || o.Actual == nil || !strings.Contains(string(o.Actual.Msg), "injected") {
		t.Errorf("tools/list: %+v, want the injected error as its answer", o)
	}
	for _, m := range c.sent() {
		if strings.Contains(string(m), "tools/list") {
			t.Errorf("tools/list was sent: %s", m)
		}
	}
}

// TestActorNotifications: with ValidateNotifications the server's
// notifications are compared with the recorded ones once the session is
// settled: the mock sends the one recorded.
func TestActorNotifications(t *testing.T) {
	e := env(t, mockOf(quickstart), fast)
	e.ValidateNotifications = true
	s, err := replay(t, e, items(t, quickstart))
	if err != nil {
		t.Fatal(err)
	}
	var notes int
	for _, o := range s.outcomes {
		if o.Note {
			notes++
			if o.Expected == nil || o.Actual == nil {
				t.Errorf("notification %+v: want the recorded and the live one paired", o)
			}
		}
	}
	if notes != 1 {
		t.Errorf("%d notifications compared, want 1", notes)
	}
}

// TestActorInterrupted: a replay interrupted while a request is in
// flight reports it as failed, not lost.
func TestActorInterrupted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &scripted{in: make(chan transport.Incoming, 8), answer: func(msg []byte) [][]byte {
			if strings.Contains(string(msg), "tools/list") {
				return nil
			}
			return echo(msg)
		}}
		e := env(t, &dialer{c: c}, fast)
		s := &recSink{}
		a := New(e, s, "s1", time.Now())
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- a.Run(ctx) }()
		for _, it := range msgs(t, "c2s", initReq, "s2c", initResp, "c2s", listReq, "s2c", listResp) {
			a.Put(it)
		}
		synctest.Wait() // tools/list is in flight
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v, want canceled", err)
		}
		if o := s.bySeq()[2]; o == nil || !errors.Is(o.Err, errInterrupted) {
			t.Errorf("tools/list: %+v, want failed: interrupted", o)
		}
	})
}

// TestActorInboundFaults: faults on answers: one withheld times its
// request out at once, one replaced by an error is judged as that error.
func TestActorInboundFaults(t *testing.T) {
	for _, tc := range []struct {
		kind   chaos.Kind
		check  func(t *testing.T, o *Outcome)
		reason string // of the notifications/cancelled sent, if one is
	}{
		{chaos.Timeout, func(t *testing.T, o *Outcome) {
			if !o.Timeout {
				t.Errorf("got %+v, want a timeout", o)
			}
		}, "replayctl: an injected timeout (chaos): the answer was withheld"},
		{chaos.ErrorResponse, func(t *testing.T, o *Outcome) {
			if o.Actual == nil || !strings.Contains(string(o.Actual.Msg), `"error"`) {
				t.Errorf("got %+v, want an error as the answer", o)
			}
		}, ""},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := &scripted{in: make(chan transport.Incoming, 8), answer: echo}
				e := env(t, &dialer{c: c}, fast)
				e.Chaos = &chaos.Plan{}
				its := msgs(t, "c2s", initReq, "s2c", initResp, "c2s", listReq, "s2c", listResp)
				its[2].Fault = &chaos.Fault{Kind: tc.kind, Seq: 2, Session: "s1", MsgKind: "request"}
				s, err := replay(t, e, its)
				if err != nil {
					t.Fatal(err)
				}
				if o := s.bySeq()[2]; o == nil {
					t.Fatal("no outcome")
				} else {
					tc.check(t, o)
				}
				var reasons []string
				for _, m := range c.sent() {
					if strings.Contains(string(m), "notifications/cancelled") {
						reasons = append(reasons, string(m))
					}
				}
				switch {
				case tc.reason == "" && len(reasons) > 0:
					t.Errorf("sent %q, want no cancellation", reasons)
				case tc.reason != "" && (len(reasons) != 1 || !strings.Contains(reasons[0], `"reason":"`+tc.reason+`"`)):
					t.Errorf("sent %q, want one cancellation saying %q", reasons, tc.reason)
				}
			})
		})
	}
}

// TestActorReconnects: a disconnect fault closes the connection, and the
// session reconnects (a fresh handshake first) and goes on.
func TestActorReconnects(t *testing.T) {
	e := env(t, mockOf(quickstart), fast)
	e.Chaos = &chaos.Plan{}
	its := items(t, quickstart)
	for _, it := range its {
		if it.Rec.Seq == 5 {
			it.Fault = &chaos.Fault{Kind: chaos.Disconnect, Seq: 5, Session: "s1", MsgKind: "request"}
		}
	}
	s, err := replay(t, e, its)
	if err != nil {
		t.Fatal(err)
	}
	if o := s.bySeq()[16]; o == nil || o.Actual == nil {
		t.Errorf("the last request: %+v, want answered after the reconnect", o)
	}
	if o := s.bySeq()[5]; o == nil || o.Sent.IsZero() || o.Actual != nil {
		t.Errorf("the disconnected request: %+v, want it sent and cut off (judged by the chaos expectation)", o)
	}
}

// TestActorOutboundFaults: every outbound fault kind goes out against the
// mock, which answers as a server would (a parse error with a null id to
// a line that is not JSON, say); each faulted message gets its outcome,
// and the rest of the session is replayed and paired.
func TestActorOutboundFaults(t *testing.T) {
	for _, kind := range []chaos.Kind{chaos.Malformed, chaos.Invalid, chaos.UnknownMethod, chaos.BadParams, chaos.DuplicateID, chaos.Reorder, chaos.Burst, chaos.SlowWrite} {
		t.Run(string(kind), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := env(t, mockOf(quickstart), fast)
				e.Chaos = &chaos.Plan{}
				its := items(t, quickstart)
				for _, it := range its {
					if it.Rec.Seq == 5 {
						it.Fault = &chaos.Fault{Kind: kind, Seq: 5, Session: "s1", MsgKind: "request", Param: 3}
					}
				}
				s, err := replay(t, e, its)
				if err != nil {
					t.Fatal(err)
				}
				if o := s.bySeq()[5]; o == nil {
					t.Error("no outcome for the faulted request")
				}
				if o := s.bySeq()[16]; o == nil || o.Actual == nil || o.Expected == nil {
					t.Errorf("the last request: %+v, want answered and paired", o)
				}
			})
		})
	}
}

// TestActorOverLimitEndsTheReplay: a connection the transport's size
// limit ended fails the replay even under chaos: the limit stopped it,
// not a fault.
func TestActorOverLimitEndsTheReplay(t *testing.T) {
	tooLarge := &transport.TooLargeError{What: "a stdout line", Limit: 1 << 20}
	c := &dying{scripted: scripted{in: make(chan transport.Incoming, 8)}, err: tooLarge}
	c.scripted.answer = func(msg []byte) [][]byte {
		if strings.Contains(string(msg), "tools/list") {
			return nil
		}
		return echo(msg)
	}
	e := env(t, &dialer{c: c}, fast)
	e.Chaos = &chaos.Plan{}
	_, err := replay(t, e, msgs(t, "c2s", initReq, "s2c", initResp, "c2s", listReq, "s2c", listResp))
	if !errors.Is(err, ErrTarget) || !errors.As(err, &tooLarge) {
		t.Errorf("Run = %v, want the size limit as the target's failure", err)
	}
}
