package mock

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/transport"
)

// TestStreamedSendStops: while a replay streams the mock's tape, a
// request only the whole index can answer (one the tape does not have)
// waits for the read's end; a Send whose ctx is done, or on a connection
// that closes, returns then, not when the read ends.
func TestStreamedSendStops(t *testing.T) {
	for _, tc := range []struct {
		name string
		stop func(cancel context.CancelFunc, c transport.Conn)
		want error
	}{
		{"ctx done", func(cancel context.CancelFunc, _ transport.Conn) { cancel() }, context.Canceled},
		{"closed", func(_ context.CancelFunc, c transport.Conn) { c.Close() }, ErrClosed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tapeFile(t, callsTape(1000))
			release := holdStream(t, 8) // the read holds after 16 messages
			m, _, end := startStream(t, path)
			c, err := m.Dial(t.Context(), "s1")
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- c.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"nosuch/method"}`)) }()
			for !waitsForEnd(m.r) { // the Send waits for the whole index
				runtime.Gosched()
			}
			tc.stop(cancel, c)
			select {
			case err := <-done:
				if !errors.Is(err, tc.want) {
					t.Errorf("Send = %v, want an error wrapping %v", err, tc.want)
				}
				select {
				case <-m.r.done:
					t.Error("the read ended before the Send returned, want it held")
				default:
				}
			case <-time.After(30 * time.Second): // a bound, not a wait: the Send returns at once or never
				t.Error("Send still waits for the read's end, want it to return")
				release()
				<-done
			}
			release()
			end()
		})
	}
}

// waitsForEnd reports whether a connection waits for r's end.
func waitsForEnd(r *reading) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.onDone > 0
}

// TestStreamEndHalts: a replay done before the mock's read of the tape
// it streams (an interrupt) stops the read with end, which returns while
// the read is still held, not once the tape is read. The mock's
// connections then fail their requests; a later Dial reads the tape
// afresh and answers from it.
func TestStreamEndHalts(t *testing.T) {
	const calls = 1000
	path := tapeFile(t, callsTape(calls))
	holdStream(t, 8) // the read holds after 16 messages, until halted
	m, next, end := startStream(t, path)
	if _, err := next(); err != nil {
		t.Fatal(err)
	}
	c, err := m.Dial(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ended := make(chan struct{})
	go func() {
		end()
		close(ended)
	}()
	select {
	case <-ended:
	case <-time.After(30 * time.Second): // a bound, not a wait: end returns at once or never
		t.Fatal("end still waits for the held read, want it to stop the read")
	}
	late := `{"jsonrpc":"2.0","id":900,"method":"tools/call","params":{"name":"echo","arguments":{"text":"call 899"}}}`
	if err := c.Send(t.Context(), []byte(late)); err != nil {
		t.Fatal(err)
	}
	if got := <-c.Incoming(); !strings.Contains(string(got.Msg), `"error"`) {
		t.Errorf("answer %s on the halted read's connection, want an error", got.Msg)
	}
	again, err := m.Dial(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if err := again.Send(t.Context(), []byte(late)); err != nil {
		t.Fatal(err)
	}
	if got, want := string((<-again.Incoming()).Msg), `{"jsonrpc":"2.0","id":900,"result":{"content":[{"type":"text","text":"Echo: call 899"}]}}`; got != want {
		t.Errorf("a later Dial's answer %s, want %s (the tape read afresh)", got, want)
	}
}
