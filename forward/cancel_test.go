package forward

import (
	"bytes"
	"context"
	"errors"
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

// heldDialer dials d, and holds what each connection receives until
// release is closed: the test decides when the upstream's answers come.
type heldDialer struct {
	d       transport.Dialer
	release chan struct{}
}

func (h heldDialer) Dial(ctx context.Context, session string) (transport.Conn, error) {
	inner, err := h.d.Dial(ctx, session)
	if err != nil {
		return nil, err
	}
	c := &heldConn{Conn: inner, in: make(chan transport.Incoming), closing: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		defer close(c.in)
		select {
		case <-h.release:
		case <-c.closing:
		}
		for m := range inner.Incoming() { // to its end, so that inner's Close never waits on it
			select {
			case c.in <- m:
			case <-c.closing:
			}
		}
	}()
	return c, nil
}

// heldConn is a connection of heldDialer.
type heldConn struct {
	transport.Conn
	in      chan transport.Incoming
	once    sync.Once
	closing chan struct{} // closed by Close
	done    chan struct{} // closed once the holding goroutine has ended
}

func (c *heldConn) Incoming() <-chan transport.Incoming { return c.in }

func (c *heldConn) Close() error {
	c.once.Do(func() { close(c.closing) })
	err := c.Conn.Close()
	<-c.done
	return err
}

// TestForwarderIgnoresACancelledInitialize: the client cancels its
// initialize (notifications/cancelled for its id), which MCP forbids,
// while serve --mode new has it in flight at the upstream. The cancel is
// not sent upstream; the client gets initialize's answer; the upstream
// gets initialize, then notifications/initialized, then the next miss,
// which is answered. Two upstreams:
//   - the go-sdk conformance server, its answer held back until the
//     client's cancel and notifications/initialized were handled. Before,
//     the cancel went upstream between initialize and its answer;
//   - the slow server honouring cancellation (-cancel) and answering
//     initialize after a second, as the TypeScript SDK's server drops
//     the answer to a request cancelled in time. Before, initialize was
//     never answered, the client got an error after --upstream-timeout,
//     and notifications/initialized never went upstream: the session was
//     stuck.
func TestForwarderIgnoresACancelledInitialize(t *testing.T) {
	for _, tc := range []struct {
		name    string
		dialer  func(t *testing.T, release chan struct{}) transport.Dialer
		release bool // close release once the cancel and initialized are handled
	}{
		{"go-sdk", func(t *testing.T, release chan struct{}) transport.Dialer {
			return heldDialer{d: transport.Stdio{Command: testserver.GoSDK(t)}, release: release}
		}, true},
		// The second is not a timing: with the fix the cancel never
		// reaches the server; without it, it has that second to.
		{"honours the cancel", func(t *testing.T, _ chan struct{}) transport.Dialer {
			return transport.Stdio{Command: testserver.Slow(t, "-cancel", "-init-delay", "1s")}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			release := make(chan struct{})
			testCancelledInitialize(t, tc.dialer(t, release), func() {
				if tc.release {
					close(release)
				}
			})
		})
	}
}

// testCancelledInitialize runs TestForwarderIgnoresACancelledInitialize
// against the upstream of dial; handled is called once the client's
// cancel and notifications/initialized have been handled.
func testCancelledInitialize(t *testing.T, dial transport.Dialer, handled func()) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang's bound
	defer cancel()
	var journal bytes.Buffer
	w, err := tape.NewWriter(&journal, tape.Header{Transport: "stdio"})
	if err != nil {
		t.Fatal(err)
	}
	initSent := make(chan struct{})
	var once sync.Once
	tap := record.NewTap(w, record.OnMessage(func(m tape.Message) {
		if rpc, err := jsonrpc.Parse(m.Msg); err == nil && m.Dir == tape.C2S && rpc.Method == "initialize" {
			once.Do(func() { close(initSent) })
		}
	}))
	// Before the fix, the wait for an answer that never comes.
	fwd := New(dial, tap, func() string { return "n1" }, zerolog.Nop(), AnswerTimeout(5*time.Second))
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
	// Another revision than the tape's: the initialize is itself a miss.
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"fwd-test","version":"1"},"protocolVersion":"2025-06-18","capabilities":{}}}`
	done := make(chan error, 1)
	go func() { done <- sess.Handle(ctx, []byte(initialize), c.send) }()
	select {
	case <-initSent:
	case err := <-done:
		t.Fatalf("initialize ended (%v) before it was forwarded: %q", err, c.msgs)
	case <-ctx.Done():
		t.Fatal("initialize was not forwarded")
	}
	for _, m := range []string{
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"impatient"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
	} {
		if err := sess.Handle(ctx, []byte(m), c.send); err != nil {
			t.Fatal(err)
		}
	}
	handled()
	if err := <-done; err != nil {
		t.Fatalf("initialize: %v", err)
	}
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"not-on-the-tape","arguments":{}}}`
	if err := sess.Handle(ctx, []byte(call), c.send); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	msgs := append([]string(nil), c.msgs...)
	c.mu.Unlock()
	if len(msgs) != 2 || !strings.Contains(msgs[0], `"id":1`) || !strings.Contains(msgs[0], `"serverInfo"`) || !strings.Contains(msgs[1], `"id":2`) {
		t.Errorf("the client got %q; want initialize's result, then the call's answer", msgs)
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
