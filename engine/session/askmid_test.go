package session

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/transport"
)

const (
	callReq  = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{}}}`
	callResp = `{"jsonrpc":"2.0","id":3,"result":{"content":[]}}`
	changed  = `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`
)

// TestAskRecordedPastClientRequests: a tape recorded under load has the
// server's own roots/list ask (made on a timer after initialized) past
// several client requests; the live server asks it while the session
// still waits for tools/list's answer, and answers tools/list only once
// its ask is answered. The ask is answered with the client's recorded
// answer (no client notification lies between, so nothing the client
// sent later can have caused it), not refused. It used to be refused: a
// recorded ask past a request of the client was taken for another ask.
// Every message is in the session's backlog before it runs, so the live
// ask finds the recorded one read.
func TestAskRecordedPastClientRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &scripted{in: make(chan transport.Incoming, 8), answer: asking(false)}
		e := env(t, &dialer{c: c}, fast)
		its := msgs(t, "c2s", initReq, "s2c", initResp, "c2s", initializedNote, "c2s", listReq, "s2c", listResp,
			"c2s", callReq, "s2c", callResp, "s2c", rootsAsk, "c2s", rootsAnswer, "c2s", pingReq, "s2c", pingResp)
		s := runAll(t, e, its)
		answer, refused := liveAnswer(c, "live-1")
		if answered := answer == `{"jsonrpc":"2.0","id":"live-1","result":{"roots":[]}}`; !answered || refused {
			t.Errorf("live roots/list answered %v, refused %v; want answered with the recorded answer: sent %q", answered, refused, c.sent())
		}
		if s.counts[ServerRequest] != 1 || s.counts[ServerRefused] != 0 {
			t.Errorf("counts %v, want one server request answered, none refused", s.counts)
		}
		if o := s.bySeq()[3]; o == nil || o.Actual == nil {
			t.Errorf("tools/list: %+v, want answered", o)
		}
		if o := s.bySeq()[8]; o == nil || o.Sent.IsZero() || o.Err != nil {
			t.Errorf("the client's answer to roots/list: %+v, want sent", o)
		}
	})
}

// TestAskRecordedPastClientNotification: the same, but the recorded ask
// comes after the client's notifications/roots/list_changed, which may
// have caused it: it is another ask, and the live one, asked before the
// replay sent that notification, is refused rather than answered with
// its answer.
func TestAskRecordedPastClientNotification(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &scripted{in: make(chan transport.Incoming, 8), answer: asking(false)}
		e := env(t, &dialer{c: c}, fast)
		e.AskWait = time.Second
		its := msgs(t, "c2s", initReq, "s2c", initResp, "c2s", initializedNote, "c2s", listReq, "s2c", listResp,
			"c2s", callReq, "s2c", callResp, "c2s", changed, "s2c", rootsAsk, "c2s", rootsAnswer, "c2s", pingReq, "s2c", pingResp)
		s := runAll(t, e, its)
		answer, refused := liveAnswer(c, "live-1")
		if answered := answer == `{"jsonrpc":"2.0","id":"live-1","result":{"roots":[]}}`; answered || !refused {
			t.Errorf("live roots/list answered %v, refused %v; want refused (the recorded ask is past a client notification): sent %q", answered, refused, c.sent())
		}
		if s.counts[ServerRefused] != 1 {
			t.Errorf("counts %v, want one server request refused", s.counts)
		}
	})
}

// askingOnList is a scripted server that asks the requests asks while it
// handles tools/list, and answers tools/list once the last of them is
// answered or refused.
func askingOnList(asks ...string) func(msg []byte) [][]byte {
	last := fmt.Sprintf(`"live-%d"`, len(asks))
	return func(msg []byte) [][]byte {
		rpc, _ := jsonrpc.Parse(msg)
		switch {
		case rpc.Method == "tools/list":
			var out [][]byte
			for i, a := range asks {
				out = append(out, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":"live-%d","method":%q,"params":{}}`, i+1, a)))
			}
			return out
		case (rpc.Kind == jsonrpc.KindResponse || rpc.Kind == jsonrpc.KindError) && string(rpc.ID) == last:
			return [][]byte{[]byte(listResp)}
		case rpc.Kind == jsonrpc.KindRequest:
			return echo(msg)
		}
		return nil
	}
}

// runAll replays its with every message in the backlog before the run.
func runAll(t *testing.T, e *Env, its []*Item) *recSink {
	t.Helper()
	s := &recSink{}
	a := New(e, s, "s1", time.Now())
	for _, it := range its {
		if !a.Put(it) {
			t.Fatal("the actor took no more")
		}
	}
	a.Close()
	if err := a.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSamplingAskNotTakenPastARequest: sampling is asked while the server
// handles a request of the client, so a live sampling ask made during
// tools/list is not the one the tape records within the later
// tools/call: it is refused, not answered with that call's answer.
func TestSamplingAskNotTakenPastARequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const (
			sampleAsk    = `{"jsonrpc":"2.0","id":"m0","method":"sampling/createMessage","params":{}}`
			sampleAnswer = `{"jsonrpc":"2.0","id":"m0","result":{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}}`
		)
		c := &scripted{in: make(chan transport.Incoming, 8), answer: askingOnList("sampling/createMessage")}
		e := env(t, &dialer{c: c}, fast)
		e.AskWait = time.Second
		s := runAll(t, e, msgs(t, "c2s", initReq, "s2c", initResp, "c2s", initializedNote, "c2s", listReq, "s2c", listResp,
			"c2s", callReq, "s2c", sampleAsk, "c2s", sampleAnswer, "s2c", callResp, "c2s", pingReq, "s2c", pingResp))
		answer, refused := liveAnswer(c, "live-1")
		if answered := answer != ""; answered || !refused {
			t.Errorf("live sampling answered %v, refused %v; want refused (the recorded one is within a later request): sent %q", answered, refused, c.sent())
		}
		if o := s.bySeq()[3]; o == nil || o.Actual == nil {
			t.Errorf("tools/list: %+v, want answered", o)
		}
	})
}

// TestAskBeyondTheTapesIsRefused: the live server asks roots/list twice
// while the session waits for tools/list; the tape has one such ask,
// past client requests. The first is answered from it; the second finds
// that recorded ask spent and is refused at once, so tools/list is
// answered (it used to be kept, the spent ask counted again, and
// tools/list waited for the timeout).
func TestAskBeyondTheTapesIsRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &scripted{in: make(chan transport.Incoming, 8), answer: askingOnList("roots/list", "roots/list")}
		e := env(t, &dialer{c: c}, fast)
		s := runAll(t, e, msgs(t, "c2s", initReq, "s2c", initResp, "c2s", initializedNote, "c2s", listReq, "s2c", listResp,
			"c2s", callReq, "s2c", callResp, "s2c", rootsAsk, "c2s", rootsAnswer, "c2s", pingReq, "s2c", pingResp))
		answer, _ := liveAnswer(c, "live-1")
		first := answer == `{"jsonrpc":"2.0","id":"live-1","result":{"roots":[]}}`
		_, second := liveAnswer(c, "live-2")
		if !first || !second {
			t.Errorf("first ask answered %v, second refused %v; want both: sent %q", first, second, c.sent())
		}
		if o := s.bySeq()[3]; o == nil || o.Actual == nil || o.Err != nil {
			t.Errorf("tools/list: %+v, want answered in time", o)
		}
	})
}

// liveAnswer is the session's answer to the live server's request id
// (the message sent, "" when none), and whether it refused it instead.
func liveAnswer(c *scripted, id string) (answer string, refused bool) {
	for _, m := range c.sent() {
		if strings.Contains(string(m), `"id":"`+id+`","result"`) {
			answer = string(m)
		}
		refused = refused || strings.Contains(string(m), `"id":"`+id+`","error"`)
	}
	return answer, refused
}
