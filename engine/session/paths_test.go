package session

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
	"github.com/replayctl/replayctl/validator"
)

// msgs makes a session's items from (dir, JSON) pairs, 100ms apart.
func msgs(t testing.TB, lines ...string) []*Item {
	t.Helper()
	var out []*Item
	for i := 0; i < len(lines); i += 2 {
		dir, msg := tape.Dir(lines[i]), []byte(lines[i+1])
		rpc, err := jsonrpc.Parse(msg)
		if err != nil {
			t.Fatal(err)
		}
		it := &Item{Rec: tape.Message{Seq: int64(i / 2), TUS: int64(i/2) * 100_000, Session: "s1", Dir: dir, Msg: msg}, RPC: rpc, Out: msg}
		if dir == tape.C2S && rpc.Kind == jsonrpc.KindRequest {
			it.SentID = rpc.ID
		}
		out = append(out, it)
	}
	return out
}

const (
	initReq  = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	initResp = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`
	listReq  = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	listResp = `{"jsonrpc":"2.0","id":1,"result":{}}`
	pingReq  = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	pingResp = `{"jsonrpc":"2.0","id":2,"result":{}}`
)

// TestActorTimesOut: a request the target never answers is reported as
// timed out after Env.Timeout, and the server is told it is cancelled;
// the session goes on with what comes after it.
func TestActorTimesOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &scripted{in: make(chan transport.Incoming, 8), answer: func(msg []byte) [][]byte {
			if strings.Contains(string(msg), "tools/list") {
				return nil // never answered
			}
			return echo(msg)
		}}
		e := env(t, &dialer{c: c}, fast)
		e.Timeout = time.Second
		start := time.Now()
		s, err := replay(t, e, msgs(t, "c2s", initReq, "s2c", initResp, "c2s", listReq, "s2c", listResp, "c2s", pingReq, "s2c", pingResp))
		if err != nil {
			t.Fatal(err)
		}
		o := s.bySeq()[2]
		if o == nil || !o.Timeout || o.Err == nil || !strings.Contains(o.Err.Error(), "no answer within 1s") {
			t.Fatalf("tools/list: %+v, want a timeout after 1s", o)
		}
		if took := time.Since(start); took != time.Second {
			t.Errorf("took %s of fake time, want the 1s timeout", took)
		}
		var cancelled bool
		for _, m := range c.sent() {
			if strings.Contains(string(m), "notifications/cancelled") && strings.Contains(string(m), `"requestId":1`) {
				cancelled = true
				if !strings.Contains(string(m), `"reason":"replayctl: timed out after 1s"`) {
					t.Errorf("cancelled %s: want the reason to say it timed out after 1s", m)
				}
			}
		}
		if !cancelled {
			t.Errorf("no notifications/cancelled for the request: sent %q", c.sent())
		}
		if o := s.bySeq()[4]; o == nil || o.Actual == nil {
			t.Errorf("ping after the timeout: %+v, want answered", o)
		}
	})
}

// gate is a scripted Env.Gate.
type gate struct {
	pass func(it *Item) Admission
	seen []int64
}

func (g *gate) Pass(_ context.Context, it *Item) Admission {
	g.seen = append(g.seen, it.Rec.Seq)
	return g.pass(it)
}

// TestActorGate: every recorded client message passes the gate once due:
// a message it holds is due later by the hold, and replay time stands
// still for the rest; one it replaces goes out replaced, with its id; a
// stale one is dropped; a gate that stopped ends the session.
func TestActorGate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &scripted{in: make(chan transport.Incoming, 8), answer: echo}
		e := env(t, &dialer{c: c}, fast)
		g := &gate{pass: func(it *Item) Admission {
			now := time.Now()
			switch it.Rec.Seq {
			case 2:
				return Admission{Pass: true, HeldFrom: now.Add(-3 * time.Second), HeldUntil: now,
					Replace: []byte(`{"jsonrpc":"2.0","id":99,"method":"tools/list","params":{"cursor":"x"}}`)}
			case 4:
				return Admission{} // stale
			}
			return Admission{Pass: true}
		}}
		e.Gate = g
		s, err := replay(t, e, msgs(t, "c2s", initReq, "s2c", initResp, "c2s", listReq, "s2c", listResp, "c2s", pingReq, "s2c", pingResp))
		if err != nil {
			t.Fatal(err)
		}
		if len(g.seen) != 3 {
			t.Errorf("the gate saw %v, want each client message once", g.seen)
		}
		var replaced bool
		for _, m := range c.sent() {
			if string(m) == `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"x"}}` {
				replaced = true
			}
			if strings.Contains(string(m), "ping") {
				t.Errorf("the stale ping was sent: %s", m)
			}
		}
		if !replaced {
			t.Errorf("the replacement did not go out with the message's id: %q", c.sent())
		}
		o := s.bySeq()[2]
		if o == nil || o.Req.Due.Sub(o.Sent) != 3*time.Second {
			t.Errorf("tools/list: due %v, sent %v; want due 3s after it was sent (the hold)", o.Req.Due, o.Sent)
		}
		if got := e.Timing.Frozen(); got != 3*time.Second {
			t.Errorf("replay time stood still %s, want the 3s hold", got)
		}

		stop := errors.New("stopped")
		e2 := env(t, &dialer{c: &scripted{in: make(chan transport.Incoming, 8), answer: echo}}, fast)
		e2.Gate = &gate{pass: func(*Item) Admission { return Admission{Err: stop} }}
		if _, err := replay(t, e2, msgs(t, "c2s", initReq, "s2c", initResp)); !errors.Is(err, stop) {
			t.Errorf("Run = %v, want the gate's error", err)
		}
	})
}

// TestActorRetriesRefusals: a send the target refuses with 503 is sent
// again after the backoff, at most MaxRetries times; a retry event is
// told for each; past the limit the refusal is the answer.
func TestActorRetriesRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		refusals := 2
		c := &scripted{in: make(chan transport.Incoming, 8), answer: echo, fail: func(n int, msg []byte) error {
			if strings.Contains(string(msg), "tools/list") && refusals > 0 {
				refusals--
				return &transport.HTTPError{Status: 503}
			}
			return nil
		}}
		e := env(t, &dialer{c: c}, fast)
		e.RetryDelay = 100 * time.Millisecond
		var retries []event.Event
		e.Events = event.New(time.Now(), []event.Consumer{{Name: "test", Handle: func(b []event.Event) error {
			for _, ev := range b {
				if ev.Type == event.Retry {
					retries = append(retries, ev)
				}
			}
			return nil
		}}})
		s, err := replay(t, e, msgs(t, "c2s", initReq, "s2c", initResp, "c2s", listReq, "s2c", listResp))
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Events.Close(); err != nil {
			t.Fatal(err)
		}
		if len(retries) != 2 || retries[0].Attempt != 1 || retries[1].Attempt != 2 || retries[0].Reason != "http_status" || !strings.Contains(retries[0].Detail, "503") {
			t.Errorf("retry events %+v, want attempts 1 and 2 for the 503", retries)
		}
		if o := s.bySeq()[2]; o == nil || o.Actual == nil || o.Err != nil {
			t.Errorf("tools/list: %+v, want answered after two retries", o)
		}
		var lists int
		for _, m := range c.sent() {
			if strings.Contains(string(m), "tools/list") {
				lists++
			}
		}
		if lists != 3 {
			t.Errorf("tools/list sent %d times, want 3", lists)
		}

		// Refused more often than MaxRetries: the refusal is the outcome.
		c2 := &scripted{in: make(chan transport.Incoming, 8), answer: echo, fail: func(_ int, msg []byte) error {
			if strings.Contains(string(msg), "tools/list") {
				return &transport.HTTPError{Status: 503}
			}
			return nil
		}}
		e2 := env(t, &dialer{c: c2}, fast)
		e2.MaxRetries = 1
		s2, err := replay(t, e2, msgs(t, "c2s", initReq, "s2c", initResp, "c2s", listReq, "s2c", listResp))
		if err != nil {
			t.Fatal(err)
		}
		var he *transport.HTTPError
		if o := s2.bySeq()[2]; o == nil || !errors.As(o.Err, &he) {
			t.Errorf("tools/list: %+v, want the 503 as its outcome", o)
		}
	})
}

// TestActorRetryRule: an answer that fails a validation rule whose
// on_failure is retry is asked for again, with a new id, until it passes
// or the rule's retries are spent.
func TestActorRetryRule(t *testing.T) {
	v, err := validator.New(validator.WithRules(validator.Rule{Scope: validator.Scope{Method: "tools/list"}, OnFailure: validator.OnFailureRetry, MaxRetries: 2}))
	if err != nil {
		t.Skip(err)
	}
	answers := 0
	c := &scripted{in: make(chan transport.Incoming, 8), answer: func(msg []byte) [][]byte {
		rpc, _ := jsonrpc.Parse(msg)
		if rpc.Method != "tools/list" {
			return echo(msg)
		}
		answers++
		if answers < 2 {
			return [][]byte{[]byte(`{"jsonrpc":"2.0","id":` + string(rpc.ID) + `,"result":{"tools":["wrong"]}}`)}
		}
		return [][]byte{[]byte(`{"jsonrpc":"2.0","id":` + string(rpc.ID) + `,"result":{}}`)}
	}}
	e := env(t, &dialer{c: c}, fast)
	e.Validator = v
	s, err := replay(t, e, msgs(t, "c2s", initReq, "s2c", initResp, "c2s", listReq, "s2c", listResp))
	if err != nil {
		t.Fatal(err)
	}
	if answers != 2 {
		t.Errorf("tools/list asked %d times, want 2 (the first answer failed the rule)", answers)
	}
	if o := s.bySeq()[2]; o == nil || string(o.Actual.Msg) == "" || strings.Contains(string(o.Actual.Msg), "wrong") {
		t.Errorf("tools/list: %+v, want the retry's answer", o)
	}
}

// TestActorStaleItems: items of an epoch before the current one (a seek
// went past them) are dropped, and told as sent or dropped.
func TestActorStaleItems(t *testing.T) {
	e := env(t, mockOf(quickstart), fast)
	e.Epoch = func() uint64 { return 1 }
	its := items(t, quickstart)
	s, err := replay(t, e, its)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.outcomes) != 0 {
		t.Errorf("%d outcomes of stale items, want none", len(s.outcomes))
	}
	if len(s.sent) != len(its) {
		t.Errorf("%d told dropped, want %d", len(s.sent), len(its))
	}
}

// TestActorChaos: outbound faults as the chaos plan puts them on
// messages: a dropped request is reported as such and never sent, a
// duplicated one goes out twice and is answered once, a network error
// without retries never reaches the server.
func TestActorChaos(t *testing.T) {
	for _, tc := range []struct {
		kind  chaos.Kind
		check func(t *testing.T, o *Outcome, sent int)
	}{
		{chaos.Drop, func(t *testing.T, o *Outcome, sent int) {
			if o.Skipped != "dropped (chaos)" || sent != 0 {
				t.Errorf("got %+v, sent %d times; want it dropped, never sent", o, sent)
			}
		}},
		{chaos.Duplicate, func(t *testing.T, o *Outcome, sent int) {
			if o.Actual == nil || sent != 2 {
				t.Errorf("got %+v, sent %d times; want it answered, sent twice", o, sent)
			}
		}},
		{chaos.NetworkError, func(t *testing.T, o *Outcome, sent int) {
			if !errors.Is(o.Err, ErrNetworkFault) || sent != 0 {
				t.Errorf("got %+v, sent %d times; want the network fault, never sent", o, sent)
			}
		}},
		{chaos.Cancel, func(t *testing.T, o *Outcome, sent int) {
			if sent != 1 {
				t.Errorf("sent %d times, want once, then its cancellation", sent)
			}
		}},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := &scripted{in: make(chan transport.Incoming, 8), answer: echo}
				e := env(t, &dialer{c: c}, fast)
				e.MaxRetries = 0
				e.Chaos = &chaos.Plan{}
				its := msgs(t, "c2s", initReq, "s2c", initResp, "c2s", listReq, "s2c", listResp)
				its[2].Fault = &chaos.Fault{Kind: tc.kind, Seq: 2, Session: "s1", MsgKind: "request"}
				s, err := replay(t, e, its)
				if err != nil {
					t.Fatal(err)
				}
				sent := 0
				for _, m := range c.sent() {
					if strings.Contains(string(m), "tools/list") {
						sent++
					}
				}
				o := s.bySeq()[2]
				if o == nil {
					t.Fatal("no outcome for the faulted request")
				}
				tc.check(t, o, sent)
			})
		})
	}
}
