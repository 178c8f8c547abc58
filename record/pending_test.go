package record

import (
	"slices"
	"testing"

	"github.com/replayctl/replayctl/tape"
)

// TestPendingRequests: allAnswered is closed once the client's input
// has ended and each of its requests is answered (a result or an error)
// or cancelled; notifications and the server's own requests count for
// nothing, nor does an answer to an id never sent.
func TestPendingRequests(t *testing.T) {
	type line struct {
		dir tape.Dir
		msg string
	}
	c := func(msg string) line { return line{tape.C2S, msg} }
	s := func(msg string) line { return line{tape.S2C, msg} }
	for _, tc := range []struct {
		name  string
		lines []line
		want  bool // all answered once the input ended
	}{
		{"nothing sent", nil, true},
		{"answered", []line{c(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), s(`{"jsonrpc":"2.0","id":1,"result":{}}`)}, true},
		{"not answered", []line{c(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)}, false},
		{"an error is an answer", []line{c(`{"jsonrpc":"2.0","id":"a","method":"x"}`), s(`{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"no"}}`)}, true},
		{"a string id is not a number's", []line{c(`{"jsonrpc":"2.0","id":"1","method":"ping"}`), s(`{"jsonrpc":"2.0","id":1,"result":{}}`)}, false},
		{"one of two answered", []line{c(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), c(`{"jsonrpc":"2.0","id":2,"method":"ping"}`), s(`{"jsonrpc":"2.0","id":2,"result":{}}`)}, false},
		{"cancelled", []line{c(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow"}}`), c(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`)}, true},
		{"a notification waits for nothing", []line{c(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)}, true},
		{"the server's request waits for nothing", []line{s(`{"jsonrpc":"2.0","id":1,"method":"roots/list"}`)}, true},
		{"an answer to no request", []line{s(`{"jsonrpc":"2.0","id":9,"result":{}}`)}, true},
		{"an id reused before its answer waits for two", []line{c(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), c(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), s(`{"jsonrpc":"2.0","id":1,"result":{}}`)}, false},
		{"an id reused, both answered", []line{c(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), c(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), s(`{"jsonrpc":"2.0","id":1,"result":{}}`), s(`{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`)}, true},
		{"an id reused, one answered, one cancelled", []line{c(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), c(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), s(`{"jsonrpc":"2.0","id":1,"result":{}}`), c(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)}, true},
		{"an id reused after its answer", []line{c(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), s(`{"jsonrpc":"2.0","id":1,"result":{}}`), c(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPendingRequests()
			for i, l := range tc.lines {
				p.saw(l.dir, []byte(l.msg), i+1, int64(i))
			}
			if closed(p.allAnswered()) {
				t.Fatal("all answered before the input ended")
			}
			p.inputEnded()
			if got := closed(p.allAnswered()); got != tc.want {
				t.Errorf("all answered %v, want %v", got, tc.want)
			}
			if left, _ := p.left(); (len(left) == 0) != tc.want {
				t.Errorf("left %v, want none: %v", left, tc.want)
			}
		})
	}
	// An answer after the end of the input settles it.
	p := newPendingRequests()
	p.saw(tape.C2S, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), 1, 0)
	p.inputEnded()
	p.saw(tape.S2C, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), 1, 1)
	p.saw(tape.S2C, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), 2, 2) // a duplicate: closed once
	if !closed(p.allAnswered()) {
		t.Error("the answer after the input ended did not settle it")
	}
}

// TestPendingLeft: left names the requests still unanswered, each by
// method, id, line of the input and seq, in the order they were sent:
// an answer to a reused id takes the oldest request of that id; the
// server's requests the client did not answer are named apart, less
// those the server cancelled itself.
func TestPendingLeft(t *testing.T) {
	p := newPendingRequests()
	for i, l := range []struct {
		dir tape.Dir
		msg string
	}{
		{tape.C2S, `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{tape.C2S, `{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"x"}}`},
		{tape.C2S, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{tape.S2C, `{"jsonrpc":"2.0","id":"ask-1","method":"roots/list"}`},
		{tape.S2C, `{"jsonrpc":"2.0","id":"ask-2","method":"elicitation/create"}`},
		{tape.S2C, `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{tape.C2S, `{"jsonrpc":"2.0","id":"ask-1","result":{"roots":[]}}`},
		{tape.C2S, `{"jsonrpc":"2.0","id":3,"method":"resources/list"}`},
		{tape.S2C, `{"jsonrpc":"2.0","id":"ask-3","method":"sampling/createMessage"}`},
		{tape.S2C, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"ask-3"}}`},
	} {
		p.saw(l.dir, []byte(l.msg), 10+i, int64(100+i))
	}
	left, asked := p.left()
	var got, gotAsked []string
	for _, u := range left {
		got = append(got, u.String())
	}
	for _, u := range asked {
		gotAsked = append(gotAsked, u.String())
	}
	want := []string{
		`tools/call id "b" (line 11 of the input, seq 101)`,
		`tools/list id 1 (line 12 of the input, seq 102)`,
		`resources/list id 3 (line 17 of the input, seq 107)`,
	}
	wantAsked := []string{`elicitation/create id "ask-2" (seq 104)`}
	if !slices.Equal(got, want) {
		t.Errorf("left:\n got %q\nwant %q", got, want)
	}
	if !slices.Equal(gotAsked, wantAsked) {
		t.Errorf("asked:\n got %q\nwant %q", gotAsked, wantAsked)
	}
}

// TestPendingStoppingKeepsTheQuestions: once record stops the server
// (its stdin closed after the drain, or Ctrl-C), a server that cancels
// its own question because its input is gone (the go-sdk server does,
// for an elicitation/create in progress) has not had it settled: the
// input never answered it, and it is still named. Before, whether it was
// named depended on whether that cancel was relayed before the server
// exited (TestRecordDrainNamesTheServersQuestion failed 2 of 16 under
// burners).
func TestPendingStoppingKeepsTheQuestions(t *testing.T) {
	p := newPendingRequests()
	p.saw(tape.S2C, []byte(`{"jsonrpc":"2.0","id":"ask-1","method":"elicitation/create"}`), 0, 4)
	p.saw(tape.S2C, []byte(`{"jsonrpc":"2.0","id":"ask-2","method":"roots/list"}`), 0, 5)
	p.saw(tape.S2C, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"ask-2"}}`), 0, 6)
	p.stop()
	p.saw(tape.S2C, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"ask-1"}}`), 0, 7)
	_, asked := p.left()
	var got []string
	for _, u := range asked {
		got = append(got, u.String())
	}
	if want := []string{`elicitation/create id "ask-1" (seq 4)`}; !slices.Equal(got, want) {
		t.Errorf("asked:\n got %q\nwant %q (a cancel before the stop settles ask-2; one after it settles nothing)", got, want)
	}
}

// TestPendingHeard: firstAnswer is closed by the server's first answer
// to a request of the client's (not by its notifications or requests),
// and lastHeard is when the server last wrote anything.
func TestPendingHeard(t *testing.T) {
	p := newPendingRequests()
	p.saw(tape.C2S, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`), 1, 0)
	if !p.lastHeard().IsZero() || closed(p.firstAnswer()) {
		t.Fatal("heard the server before it wrote")
	}
	p.saw(tape.S2C, []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`), 1, 1)
	p.saw(tape.S2C, []byte(`{"jsonrpc":"2.0","id":"a","method":"roots/list"}`), 2, 2)
	heard := p.lastHeard()
	if heard.IsZero() || closed(p.firstAnswer()) {
		t.Fatalf("after a notification and a request: heard %v, first answer %v; want heard, no answer", heard, closed(p.firstAnswer()))
	}
	p.saw(tape.S2C, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), 3, 3)
	if !closed(p.firstAnswer()) || p.lastHeard().Before(heard) {
		t.Error("the answer to initialize was not taken for the server's first answer")
	}
}

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
