package forward

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mock"
	"github.com/replayctl/replayctl/record"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// collector is a client stream: it keeps what is sent on it, and hands
// requests of the server to answer.
type collector struct {
	mu   sync.Mutex
	msgs []string
	asks chan jsonrpc.Message
}

func (c *collector) send(_ context.Context, msg []byte) error {
	c.mu.Lock()
	c.msgs = append(c.msgs, string(msg))
	c.mu.Unlock()
	if m, err := jsonrpc.Parse(append([]byte(nil), msg...)); err == nil && m.Kind == jsonrpc.KindRequest {
		c.asks <- m
	}
	return nil
}

// TestForwarderRelaysAMissAndRecordsIt: a mock.Server of the example tape
// with a Forwarder to the go-sdk everything-server (a real subprocess)
// answers the tape's requests itself and forwards a tools/call the tape
// lacks (test_elicitation): the upstream is opened with the client's own
// initialize, its elicitation request reaches the client with the
// Forwarder's id, the client's answer goes back with the upstream's, and
// the real answer reaches the client. The recorded session holds the
// handshake and the whole exchange, the upstream's ids as it used them.
func TestForwarderRelaysAMissAndRecordsIt(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var journal bytes.Buffer
	w, err := tape.NewWriter(&journal, tape.Header{Transport: "stdio"})
	if err != nil {
		t.Fatal(err)
	}
	tap := record.NewTap(w)
	n := 0
	fwd := New(transport.Stdio{Command: testserver.GoSDK(t)}, tap, func() string { n++; return fmt.Sprintf("n%d", n) }, zerolog.Nop())
	srv, err := mock.NewServer(tape.File("../examples/go-sdk-2025.jsonl"), mock.WithMissHandler(fwd))
	if err != nil {
		t.Fatal(err)
	}
	sess, err := srv.Open(ctx, transport.SessionInfo{ID: "live"})
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{asks: make(chan jsonrpc.Message, 4)}
	sess.SetUnsolicited(c.send)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"fwd-test","version":"1"},"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}}}}`
	for _, m := range []string{initialize, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_simple_text","arguments":{}}}`} {
		if err := sess.Handle(ctx, []byte(m), c.send); err != nil {
			t.Fatal(err)
		}
	}
	if fwd.Forwarded() != 0 {
		t.Fatalf("%d forwarded before any miss", fwd.Forwarded())
	}

	call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_elicitation","arguments":{"message":"Who?"}}}`
	done := make(chan error, 1)
	go func() { done <- sess.Handle(ctx, []byte(call), c.send) }()
	var ask jsonrpc.Message
	select {
	case ask = <-c.asks:
	case err := <-done:
		t.Fatalf("the forwarded call ended (%v) without relaying the upstream's elicitation: %q", err, c.msgs)
	case <-ctx.Done():
		t.Fatal("no elicitation relayed")
	}
	if ask.Method != "elicitation/create" || !strings.Contains(string(ask.ID), "replayctl-fwd-") {
		t.Fatalf("relayed %s with id %s; want elicitation/create with an id of the Forwarder's", ask.Method, ask.ID)
	}
	answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"name":"Ada","username":"ada","context":"tests","color":"blue"}}}`, ask.ID)
	if err := sess.Handle(ctx, []byte(answer), c.send); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	last := c.msgs[len(c.msgs)-1]
	c.mu.Unlock()
	if !strings.Contains(last, `"id":3`) || !strings.Contains(last, "action=accept") {
		t.Errorf("the client's answer to the forwarded call: %s; want the upstream's result, the elicitation accepted", last)
	}
	if fwd.Forwarded() != 1 || fwd.Failed() != 0 || len(srv.Misses()) != 0 {
		t.Errorf("forwarded %d, failed %d, misses %d; want 1, 0, 0", fwd.Forwarded(), fwd.Failed(), len(srv.Misses()))
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(fwd.Close(), tap.Close()); err != nil {
		t.Fatal(err)
	}

	got := journalLines(t, journal.Bytes(), true)
	want := []string{
		"n1 c2s initialize 1", "n1 s2c  1", "n1 c2s notifications/initialized ",
		"n1 c2s tools/call 3", "n1 s2c elicitation/create " + upstreamID(t, journal.String()),
		"n1 c2s  " + upstreamID(t, journal.String()), "n1 s2c  3",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the journal holds:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// journalLines reads a journal's messages as "dir method id" lines, each
// after its session when withSession, in order.
func journalLines(t *testing.T, journal []byte, withSession bool) []string {
	t.Helper()
	r, err := tape.NewReader("journal", bytes.NewReader(journal))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		m, err := r.Next()
		if err != nil {
			return got
		}
		p, _ := jsonrpc.Parse(m.Msg)
		line := fmt.Sprintf("%s %s %s", m.Dir, p.Method, p.ID)
		if withSession {
			line = m.Session + " " + line
		}
		got = append(got, line)
	}
}

// upstreamID is the id of the elicitation request the upstream sent, as
// the journal holds it.
func upstreamID(t *testing.T, journal string) string {
	t.Helper()
	for _, line := range strings.Split(journal, "\n") {
		if m, err := tape.DecodeLine([]byte(line)); err == nil {
			if p, _ := jsonrpc.Parse(m.Msg); p.Method == "elicitation/create" {
				return string(p.ID)
			}
		}
	}
	t.Fatal("no elicitation/create in the journal")
	return ""
}

// TestForwarderHandshakeOutlivesACancelledRequest: the client cancels the
// request whose miss opened the upstream while the upstream is still
// answering the handshake (initialize takes 400 ms); the session's next miss
// is forwarded all the same, over the connection that handshake opened.
func TestForwarderHandshakeOutlivesACancelledRequest(t *testing.T) {
	// A bound, not a wait: at a load average of 50 the race-built slow
	// server's start and handshake outlasted 30s.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w, err := tape.NewWriter(&bytes.Buffer{}, tape.Header{Transport: "stdio"})
	if err != nil {
		t.Fatal(err)
	}
	tap := record.NewTap(w)
	fwd := New(transport.Stdio{Command: testserver.Slow(t, "-init-delay", "400ms")}, tap, func() string { return "n1" }, zerolog.Nop())
	srv, err := mock.NewServer(tape.File("../examples/go-sdk-2025.jsonl"), mock.WithMissHandler(fwd))
	if err != nil {
		t.Fatal(err)
	}
	sess, err := srv.Open(ctx, transport.SessionInfo{ID: "live"})
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{asks: make(chan jsonrpc.Message, 4)}
	sess.SetUnsolicited(c.send)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"fwd-test","version":"1"},"protocolVersion":"2025-11-25","capabilities":{}}}`
	for _, m := range []string{initialize, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`} {
		if err := sess.Handle(ctx, []byte(m), c.send); err != nil {
			t.Fatal(err)
		}
	}
	miss := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"not-on-the-tape","arguments":{"n":%d}}}`, id, id)
	}
	short, cancelShort := context.WithTimeout(ctx, 100*time.Millisecond)
	_ = sess.Handle(short, []byte(miss(2)), c.send) // cancelled during the upstream's initialize
	cancelShort()
	if err := sess.Handle(ctx, []byte(miss(3)), c.send); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	last := c.msgs[len(c.msgs)-1]
	c.mu.Unlock()
	if !strings.Contains(last, `"id":3`) || !strings.Contains(last, `"result"`) || fwd.Forwarded() < 1 {
		t.Errorf("the next miss after a request cancelled mid-handshake: %s (forwarded %d); want the upstream's result", last, fwd.Forwarded())
	}
	if err := errors.Join(sess.Close(), fwd.Close(), tap.Close()); err != nil {
		t.Fatal(err)
	}
}

// TestForwarderInitializeMissKeepsTheHandshakeOrder: the live session's
// initialize is itself the miss (another protocol revision than the
// tape's) and its notifications/initialized was taken first (the stdio
// listener handles each line in a goroutine of its own, so a client that
// writes both at once may have them handled in either order): the
// upstream still gets initialize, its answer, then
// notifications/initialized, once.
func TestForwarderInitializeMissKeepsTheHandshakeOrder(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var journal bytes.Buffer
	w, err := tape.NewWriter(&journal, tape.Header{Transport: "stdio"})
	if err != nil {
		t.Fatal(err)
	}
	tap := record.NewTap(w)
	fwd := New(transport.Stdio{Command: testserver.GoSDK(t)}, tap, func() string { return "n1" }, zerolog.Nop())
	srv, err := mock.NewServer(tape.File("../examples/go-sdk-2025.jsonl"), mock.WithMissHandler(fwd))
	if err != nil {
		t.Fatal(err)
	}
	sess, err := srv.Open(ctx, transport.SessionInfo{ID: "live"})
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{asks: make(chan jsonrpc.Message, 4)}
	sess.SetUnsolicited(c.send)
	for _, m := range []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"fwd-test","version":"1"},"protocolVersion":"2025-06-18","capabilities":{}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"not-on-the-tape","arguments":{}}}`,
	} {
		if err := sess.Handle(ctx, []byte(m), c.send); err != nil {
			t.Fatal(err)
		}
	}
	if fwd.Forwarded() != 2 || fwd.Failed() != 0 {
		t.Errorf("forwarded %d, failed %d; want 2 (initialize and the call), 0", fwd.Forwarded(), fwd.Failed())
	}
	if err := errors.Join(sess.Close(), fwd.Close(), tap.Close()); err != nil {
		t.Fatal(err)
	}
	got := journalLines(t, journal.Bytes(), false)
	want := []string{"c2s initialize 1", "s2c  1", "c2s notifications/initialized ", "c2s tools/call 2", "s2c  2"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the upstream got, in this order:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
