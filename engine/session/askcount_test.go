package session

import (
	"math/rand/v2"
	"testing"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
)

// TestAsksLaterCounted: asksLater, counted as the backlog changes (push,
// pushFront, pop, removeAt), says what a walk of the backlog says, for
// every method, after each change of a seeded run of them.
func TestAsksLaterCounted(t *testing.T) {
	kinds := []func(int) *Item{
		func(int) *Item { return item(tape.S2C, jsonrpc.KindRequest, "roots/list") },
		func(int) *Item { return item(tape.S2C, jsonrpc.KindRequest, "sampling/createMessage") },
		func(int) *Item { return item(tape.C2S, jsonrpc.KindRequest, "roots/list") }, // a client's: no ask
		func(int) *Item { return item(tape.S2C, jsonrpc.KindNotification, "roots/list") },
		func(int) *Item { return item(tape.C2S, jsonrpc.KindResponse, "") },
	}
	methods := []string{"roots/list", "sampling/createMessage", "elicitation/create"}
	walk := func(s *session, m string) bool {
		for _, it := range s.backlog {
			if asksFor(it, m) {
				return true
			}
		}
		return false
	}
	r := rand.New(rand.NewPCG(1, 2))
	s := newSession("s1", nil)
	for step := range 2000 {
		switch op := r.IntN(4); {
		case op == 0 || len(s.backlog) == 0:
			s.push(kinds[r.IntN(len(kinds))](step))
		case op == 1:
			s.pop()
		case op == 2:
			s.removeAt(r.IntN(len(s.backlog)))
		default:
			s.pushFront([]*Item{kinds[r.IntN(len(kinds))](step), kinds[r.IntN(len(kinds))](step)})
		}
		for _, m := range methods {
			if got, want := s.asksLater(m), walk(s, m); got != want {
				t.Fatalf("step %d: asksLater(%q) = %v, a walk of the backlog (%d messages) says %v", step, m, got, len(s.backlog), want)
			}
		}
	}
}

func item(dir tape.Dir, kind jsonrpc.Kind, method string) *Item {
	return &Item{Rec: tape.Message{Dir: dir}, RPC: jsonrpc.Message{Kind: kind, Method: method, ID: []byte("1")}}
}
