package session

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/transformer"
	"github.com/replayctl/replayctl/transport"
)

// parsing is a scripted connection that takes messages with their parse
// too (parsedSender, as the built-in mock does), and checks each parse.
type parsing struct {
	*scripted
	t      *testing.T
	mu     sync.Mutex
	parsed int
}

func (c *parsing) SendParsed(ctx context.Context, req jsonrpc.Message) error {
	want, err := jsonrpc.Parse(req.Raw)
	if err != nil || !reflect.DeepEqual(req, want) {
		c.t.Errorf("SendParsed(%+v); Parse of its bytes: %+v, %v", req, want, err)
	}
	c.mu.Lock()
	c.parsed++
	c.mu.Unlock()
	return c.scripted.Send(ctx, req.Raw)
}

// TestRequestsSentWithTheirParse: a request with its fresh id goes to a
// connection that takes parses with the recorded request's parse moved
// to the new id (what parsing it gives); one the rules rewrote is sent
// as bytes. The answers, the recorded ones with the live ids, are paired
// and reported as with any other connection.
func TestRequestsSentWithTheirParse(t *testing.T) {
	const n = 50
	its := calls(t, n)
	var rewritten *Item
	for i, it := range its {
		if !isRequest(it) {
			continue
		}
		id := fmt.Appendf(nil, "%d", 1_000_000+i)
		it.Out, it.SentID = it.RPC.WithID(id), id
		if i == 10 {
			it.Out = bytes.Replace(it.Out, []byte(`"ping"`), []byte(`"ping" `), 1)
			it.Rewritten, rewritten = true, it
		}
	}
	c := &parsing{scripted: &scripted{in: make(chan transport.Incoming, 8), answer: echo}, t: t}
	s, err := replay(t, env(t, &dialer{c: c}, fast), its)
	if err != nil {
		t.Fatal(err)
	}
	if want := n + 1 - 1; c.parsed != want { // the handshake and the calls, but the rewritten one
		t.Errorf("%d requests sent with their parse, want %d", c.parsed, want)
	}
	if got := c.sent(); len(got) != n+1 {
		t.Fatalf("%d messages sent, want %d", len(got), n+1)
	}
	for i, msg := range c.sent() {
		if want := its[2*i].Out; !bytes.Equal(msg, want) {
			t.Errorf("sent %s, want %s", msg, want)
		}
	}
	outs := s.bySeq()
	for _, it := range its {
		if !isRequest(it) {
			continue
		}
		o := outs[it.Rec.Seq]
		if o == nil || o.Err != nil || o.Actual == nil || o.Expected == nil {
			t.Fatalf("seq %d: outcome %+v", it.Rec.Seq, o)
		}
		live, err := jsonrpc.Parse(o.Actual.Msg)
		if err != nil || !bytes.Equal(live.ID, it.SentID) {
			t.Errorf("seq %d (rewritten %v): answer %s, want id %s", it.Rec.Seq, it == rewritten, o.Actual.Msg, it.SentID)
		}
	}
}

// TestParseLiveAsParse: the actor's parse of a live message, from the
// oldest request's recorded answer where it can, is Parse's, message and
// error alike, whatever the message.
func TestParseLiveAsParse(t *testing.T) {
	a := New(env(t, &dialer{}, fast), &recSink{}, "s1", time.Now())
	its := msgs(t, "c2s", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo"}}`,
		"s2c", `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hi"}]}}`)
	answered := &pend{req: its[0], actual: &transport.Incoming{}}
	a.rq.fifo = []*pend{answered, {req: its[0], expected: its[1]}}
	for i, msg := range []string{
		// The recorded answer with a plain id: taken as recorded.
		`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hi"}]}}`,
		`{"jsonrpc":"2.0","id":1000007,"result":{"content":[{"type":"text","text":"hi"}]}}`,
		`{"jsonrpc":"2.0","id":"s1-7","result":{"content":[{"type":"text","text":"hi"}]}}`,
		// Parsed.
		`{"jsonrpc":"2.0","id":"s\u0031","result":{"content":[{"type":"text","text":"hi"}]}}`,
		`{"jsonrpc":"2.0","id":1.5,"result":{"content":[{"type":"text","text":"hi"}]}}`,
		`{"jsonrpc":"2.0","id":null,"result":{"content":[{"type":"text","text":"hi"}]}}`,
		`{"jsonrpc":"2.0","id":{},"result":{"content":[{"type":"text","text":"hi"}]}}`,
		`{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"ho"}]}}`,
		`{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"hi"}]},"id":9}`,
		`{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"hi"}]`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`,
		`{"jsonrpc":"2.0","id":3,"method":"roots/list"}`,
		``, `[]`,
	} {
		got, as, gerr := a.rx.parseLive([]byte(msg))
		want, werr := jsonrpc.Parse([]byte(msg))
		if !reflect.DeepEqual(got, want) || fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Errorf("parseLive(%s) = %+v, %v; Parse: %+v, %v", msg, got, gerr, want, werr)
		}
		if wantAs := i < 3; (as == a.rq.fifo[1]) != wantAs || as != nil && !wantAs {
			t.Errorf("parseLive(%s): as recorded by %v, want %v", msg, as != nil, wantAs)
		}
	}
}

// An outcome is AsRecorded exactly when its live answer is the recorded
// one with only the id changed and no set_result rule edited what is
// expected: validate then need not compare them.
func TestOutcomeAsRecorded(t *testing.T) {
	const n = 20
	its := calls(t, n)
	path, err := transformer.ParsePath("$.result.x")
	if err != nil {
		t.Fatal(err)
	}
	var differs, edited *Item
	for i, it := range its {
		if !isRequest(it) {
			continue
		}
		id := fmt.Appendf(nil, "%d", 1_000_000+i)
		it.Out, it.SentID = it.RPC.WithID(id), id
		switch i {
		case 10:
			differs = it
		case 14:
			edited = it
			it.Rules = &Ruled{ExpectEdits: []transformer.Edit{{Path: path, Value: []byte("1")}}}
		}
	}
	answer := func(msg []byte) [][]byte {
		if bytes.Equal(msg, differs.Out) {
			rpc, _ := jsonrpc.Parse(msg)
			return [][]byte{[]byte(`{"jsonrpc":"2.0","id":` + string(rpc.ID) + `,"result":{"x":2}}`)}
		}
		return echo(msg)
	}
	c := &scripted{in: make(chan transport.Incoming, 8), answer: answer}
	s, err := replay(t, env(t, &dialer{c: c}, fast), its)
	if err != nil {
		t.Fatal(err)
	}
	outs := s.bySeq()
	for _, it := range its {
		if !isRequest(it) {
			continue
		}
		o := outs[it.Rec.Seq]
		if o == nil || o.Actual == nil || o.Expected == nil {
			t.Fatalf("seq %d: outcome %+v", it.Rec.Seq, o)
		}
		// initialize: echo's answer is not the recorded one.
		want := it != differs && it != edited && it.RPC.Method != "initialize"
		if o.AsRecorded != want {
			t.Errorf("seq %d %s: AsRecorded %v, want %v (answer %s, recorded %s)", it.Rec.Seq, it.RPC.Method, o.AsRecorded, want, o.Actual.Msg, o.Expected.Rec.Msg)
		}
	}
}

// TestOutcomeAsRecordedWhenTheRecordedAnswerComesLate: a live answer that
// arrives before the actor has read its recorded answer from the tape is
// still AsRecorded when the two differ only in id (the CI failure of
// TestOutcomeAsRecorded, where a loaded machine delivered the answer
// first); one that differs in its result is not.
func TestOutcomeAsRecordedWhenTheRecordedAnswerComesLate(t *testing.T) {
	its := calls(t, 2)
	for i, it := range its {
		if isRequest(it) {
			id := fmt.Appendf(nil, "%d", 1_000_000+i)
			it.Out, it.SentID = it.RPC.WithID(id), id
		}
	}
	ping1, ping2 := its[2], its[4]
	answer := func(msg []byte) [][]byte {
		if bytes.Equal(msg, ping2.Out) {
			rpc, _ := jsonrpc.Parse(msg)
			return [][]byte{[]byte(`{"jsonrpc":"2.0","id":` + string(rpc.ID) + `,"result":{"x":2}}`)}
		}
		return echo(msg)
	}
	answered := make(chan int64, 16)
	e := env(t, &dialer{c: &scripted{in: make(chan transport.Incoming, 8), answer: answer}}, fast)
	e.Events = event.New(time.Now(), []event.Consumer{{Name: "test", Handle: func(b []event.Event) error {
		for _, ev := range b {
			if ev.Type == event.Answered {
				answered <- ev.Seq
			}
		}
		return nil
	}}})
	s := &recSink{}
	a := New(e, s, "s1", time.Now())
	done := make(chan error, 1)
	go func() { done <- a.Run(context.Background()) }()
	// Each ping's recorded answer is put only once its live one is in.
	put := func(its ...*Item) {
		for _, it := range its {
			if !a.Put(it) {
				t.Fatal("the actor returned early")
			}
		}
	}
	waitAnswered := func(seq int64) {
		for got := range answered {
			if got == seq {
				return
			}
		}
	}
	put(its[0], its[1], ping1)
	waitAnswered(ping1.Rec.Seq)
	put(its[3], ping2)
	waitAnswered(ping2.Rec.Seq)
	put(its[5])
	a.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := e.Events.Close(); err != nil {
		t.Fatal(err)
	}
	outs := s.bySeq()
	for it, want := range map[*Item]bool{ping1: true, ping2: false} {
		o := outs[it.Rec.Seq]
		if o == nil || o.Actual == nil || o.Expected == nil {
			t.Fatalf("seq %d: outcome %+v", it.Rec.Seq, o)
		}
		if o.AsRecorded != want {
			t.Errorf("seq %d: AsRecorded %v, want %v (answer %s, recorded %s)", it.Rec.Seq, o.AsRecorded, want, o.Actual.Msg, o.Expected.Rec.Msg)
		}
	}
}
