package session

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/replayctl/replayctl/transport"
)

// runInTwo replays head, then, once the actor has done all it can with
// head (synctest.Wait: the live server's ask made and handled), gives
// it rest (after wait on the bubble's clock) and the end of its input,
// as a tape reader that was behind does.
func runInTwo(t *testing.T, e *Env, head, rest []*Item, wait time.Duration) *recSink {
	t.Helper()
	s := &recSink{}
	a := New(e, s, "s1", time.Now())
	for _, it := range head {
		if !a.Put(it) {
			t.Fatal("the actor took no more")
		}
	}
	done := make(chan error, 1)
	go func() { done <- a.Run(context.Background()) }()
	synctest.Wait()
	time.Sleep(wait) // the bubble's clock: the tape reader comes this much later
	for _, it := range rest {
		if !a.Put(it) {
			t.Fatal("the actor took no more")
		}
	}
	a.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return s
}

// askUnreadTape is TestAskRecordedPastClientRequests's tape: the
// server's roots/list ask recorded past tools/list's answer and a
// tools/call, before any notification of the client. head ends at
// tools/list's recorded answer (seq 4): the session waits for the live
// one when the live server asks.
func askUnreadTape(t *testing.T) (head, rest []*Item) {
	its := msgs(t, "c2s", initReq, "s2c", initResp, "c2s", initializedNote, "c2s", listReq, "s2c", listResp,
		"c2s", callReq, "s2c", callResp, "s2c", rootsAsk, "c2s", rootsAnswer, "c2s", pingReq, "s2c", pingResp)
	return its[:5], its[5:]
}

// TestAskNotReadYetWaitsForTheTape: the live server asks roots/list while
// the session waits for tools/list's answer (and answers tools/list only
// once its ask is answered), and the tape reader has not reached the
// recorded ask yet (it is past the read-ahead). The live ask waits for
// the tape, --ask-wait at most: the recorded ask comes before any
// notification of the client, so its recorded answer answers the live
// ask. It used to be refused at once, the recorded answer reported as
// an answer to an ask refused before the replay reached it.
func TestAskNotReadYetWaitsForTheTape(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &scripted{in: make(chan transport.Incoming, 8), answer: askingOnList("roots/list")}
		e := env(t, &dialer{c: c}, fast)
		e.AskWait = time.Second
		head, rest := askUnreadTape(t)
		s := runInTwo(t, e, head, rest, 0)
		answer, refused := liveAnswer(c, "live-1")
		if answered := answer == `{"jsonrpc":"2.0","id":"live-1","result":{"roots":[]}}`; !answered || refused {
			t.Errorf("live roots/list answered %v, refused %v; want answered with the recorded answer: sent %q", answered, refused, c.sent())
		}
		if s.counts[ServerRequest] != 1 || s.counts[ServerRefused] != 0 {
			t.Errorf("counts %v, want one server request answered, none refused", s.counts)
		}
		if o := s.bySeq()[3]; o == nil || o.Actual == nil || o.Err != nil {
			t.Errorf("tools/list: %+v, want answered", o)
		}
		if o := s.bySeq()[8]; o == nil || o.Sent.IsZero() || o.Err != nil || o.Skipped != "" {
			t.Errorf("the client's answer to roots/list: %+v, want sent", o)
		}
	})
}

// TestAskNotReadYetWaitIsBounded: the same, but the tape reader comes
// only after --ask-wait: the live ask is refused then, not kept until
// --timeout (the server answers tools/list only once its ask is
// answered or refused), and tools/list is answered in time.
func TestAskNotReadYetWaitIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &scripted{in: make(chan transport.Incoming, 8), answer: askingOnList("roots/list")}
		e := env(t, &dialer{c: c}, fast)
		e.AskWait = time.Second
		head, rest := askUnreadTape(t)
		start := time.Now()
		s := runInTwo(t, e, head, rest, 2*time.Second)
		if _, refused := liveAnswer(c, "live-1"); !refused {
			t.Errorf("live roots/list not refused: sent %q", c.sent())
		}
		if s.counts[ServerRefused] != 1 {
			t.Errorf("counts %v, want one server request refused", s.counts)
		}
		o := s.bySeq()[3]
		if o == nil || o.Actual == nil || o.Err != nil {
			t.Fatalf("tools/list: %+v, want answered", o)
		}
		// The bubble's clock is exact: the ask was refused, and tools/list
		// answered, at --ask-wait.
		if got := o.Actual.At.Sub(start); got != e.AskWait {
			t.Errorf("tools/list answered %v after the start, want at --ask-wait (%v)", got, e.AskWait)
		}
	})
}

// TestAskNotReadYetRefusedAtANotification: the tape reader brings the
// client's notifications/roots/list_changed before any recorded ask:
// the recorded ask past it is another one (see endsLookAhead), so the
// live ask is refused as soon as the notification is read, not after
// --ask-wait.
func TestAskNotReadYetRefusedAtANotification(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &scripted{in: make(chan transport.Incoming, 8), answer: askingOnList("roots/list")}
		e := env(t, &dialer{c: c}, fast)
		e.AskWait = time.Minute
		e.Timeout = 2 * time.Minute
		its := msgs(t, "c2s", initReq, "s2c", initResp, "c2s", initializedNote, "c2s", listReq, "s2c", listResp,
			"c2s", changed, "s2c", rootsAsk, "c2s", rootsAnswer, "c2s", pingReq, "s2c", pingResp)
		start := time.Now()
		s := runInTwo(t, e, its[:5], its[5:], 0)
		if _, refused := liveAnswer(c, "live-1"); !refused {
			t.Errorf("live roots/list not refused: sent %q", c.sent())
		}
		o := s.bySeq()[3]
		if o == nil || o.Actual == nil || o.Err != nil {
			t.Fatalf("tools/list: %+v, want answered", o)
		}
		if got := o.Actual.At.Sub(start); got != 0 {
			t.Errorf("tools/list answered %v after the start, want at once (the notification was read)", got)
		}
	})
}

// TestAskNotReadYetRefusedAtTheEnd: the session's input ends (the tape
// has no more of it) with no recorded ask read, while the session is
// still held with messages in its backlog: the live ask is refused then,
// not after --ask-wait.
func TestAskNotReadYetRefusedAtTheEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &scripted{in: make(chan transport.Incoming, 8), answer: askingOnList("roots/list")}
		e := env(t, &dialer{c: c}, fast)
		e.AskWait = time.Minute
		e.Timeout = 2 * time.Minute
		its := msgs(t, "c2s", initReq, "s2c", initResp, "c2s", initializedNote, "c2s", listReq, "s2c", listResp,
			"c2s", callReq, "s2c", callResp)
		start := time.Now()
		s := runInTwo(t, e, its[:5], its[5:], 0)
		if _, refused := liveAnswer(c, "live-1"); !refused {
			t.Errorf("live roots/list not refused: sent %q", c.sent())
		}
		o := s.bySeq()[3]
		if o == nil || o.Actual == nil || o.Err != nil {
			t.Fatalf("tools/list: %+v, want answered", o)
		}
		if got := o.Actual.At.Sub(start); got != 0 {
			t.Errorf("tools/list answered %v after the start, want at once (the input ended)", got)
		}
	})
}
