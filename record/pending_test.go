package record

import (
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
			for _, l := range tc.lines {
				p.saw(l.dir, []byte(l.msg))
			}
			if closed(p.allAnswered()) {
				t.Fatal("all answered before the input ended")
			}
			p.inputEnded()
			if got := closed(p.allAnswered()); got != tc.want {
				t.Errorf("all answered %v, want %v", got, tc.want)
			}
		})
	}
	// An answer after the end of the input settles it.
	p := newPendingRequests()
	p.saw(tape.C2S, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	p.inputEnded()
	p.saw(tape.S2C, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	p.saw(tape.S2C, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)) // a duplicate: closed once
	if !closed(p.allAnswered()) {
		t.Error("the answer after the input ended did not settle it")
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
