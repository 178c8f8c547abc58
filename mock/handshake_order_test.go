package mock

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// handshakeTaker is a MissHandler that keeps the live session's
// handshake as it stands at the first miss, and answers nothing.
type handshakeTaker struct {
	mu  sync.Mutex
	got [][]byte
}

func (h *handshakeTaker) Miss(_ context.Context, live *Live, _ []byte, _ transport.Send) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.got == nil {
		h.got = live.Handshake()
	}
	return context.Canceled // answered as a miss
}
func (*handshakeTaker) Notify(context.Context, *Live, []byte)      {}
func (*handshakeTaker) Answer(context.Context, *Live, []byte) bool { return false }
func (*handshakeTaker) Closed(*Live)                               {}

// The stdio listener hands each line to a goroutine of its own, so a
// client that writes its notifications/initialized right behind its
// initialize (without waiting for the answer) may have it handled first.
// Handshake still gives initialize first: serve --mode new sends it so to
// the upstream and records it so. Before, it gave them in the order they
// were handled, and the upstream got notifications/initialized before
// initialize (the tape's new session too).
func TestHandshakeRequestBeforeItsNotification(t *testing.T) {
	ctx := t.Context()
	h := &handshakeTaker{}
	srv, err := NewServer(tape.File("../examples/go-sdk-2025.jsonl"), WithMissHandler(h))
	if err != nil {
		t.Fatal(err)
	}
	sess, err := srv.Open(ctx, transport.SessionInfo{ID: "live"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	drop := func(context.Context, []byte) error { return nil }
	for _, m := range []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`, // handled first
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"me","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"not_on_the_tape","arguments":{}}}`, // the miss
	} {
		if err := sess.Handle(ctx, []byte(m), drop); err != nil {
			t.Fatal(err)
		}
	}
	var methods []string
	for _, b := range h.got {
		m, err := jsonrpc.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		methods = append(methods, m.Method)
	}
	if got, want := strings.Join(methods, " "), "initialize notifications/initialized"; got != want {
		t.Errorf("the handshake at the miss: %s; want %s", got, want)
	}
}
