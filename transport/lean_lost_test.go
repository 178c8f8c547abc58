package transport

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"
)

// newTestLean is a lean client of its own for url (no spare
// connections), whose started calls' results go to onStarted. The test
// closes it.
func newTestLean(t *testing.T, rawURL string, onStarted func(leanCall, leanResult)) *leanClient {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	lc := newLeanClient(u, &http.Client{Transport: &http.Transport{}}, nil)
	if lc == nil {
		t.Fatal("no lean client for a plain http:// URL")
	}
	lc.onStarted = onStarted
	return lc
}

// onlyConn is lc's one open connection.
func onlyConn(t *testing.T, lc *leanClient) *leanConn {
	t.Helper()
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if len(lc.open) != 1 {
		t.Fatalf("%d connections open, want 1", len(lc.open))
	}
	for c := range lc.open {
		return c
	}
	return nil
}

// TestLeanCloseWhileServeLags: a call handed to a direct connection
// whose goroutine has not yet come back from the last answer (it gave
// that answer on, the answer's body ended elsewhere and the connection
// went idle, another call was taken on it and written whole) ends when
// the client is closed before that goroutine is back: it was lost (its
// goroutine saw the close and returned, the call's result never given),
// and a session waited for it for ever (engine
// TestInterruptReportsInFlight, once in CI on 306c962). Here the
// goroutine is held in onStarted, the place the scheduler held it.
func TestLeanCloseWhileServeLags(t *testing.T) {
	srv := newHoldingServer(t, func(n int, _ []byte) bool { return n == 2 })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	gave, proceed := make(chan struct{}), make(chan struct{})
	results := make(chan leanResult, 2)
	lc := newTestLean(t, srv.url, func(k leanCall, r leanResult) {
		if idOf(k.msg) != "1" {
			results <- r
			return
		}
		if r.err != nil {
			t.Errorf("call 1: %v", r.err)
		} else {
			_, _ = io.Copy(io.Discard, r.resp.Body)
			_ = r.resp.Body.Close() // the connection is idle again
		}
		close(gave)
		<-proceed
	})
	closed := make(chan struct{})
	defer func() {
		cancel()
		select {
		case <-proceed:
		default:
			close(proceed)
		}
		<-closed
	}()
	go func() { <-ctx.Done(); lc.close(); close(closed) }() // lc.close runs once, when the test ends or below

	resp, _, err := lc.post(ctx, leanCall{msg: []byte(`{"jsonrpc":"2.0","id":0,"method":"ping"}`)}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	c := onlyConn(t, lc)
	if !c.direct() {
		t.Skip("no connection writes without waiting here (not Linux, or not a TCP socket of the net package)")
	}
	if !lc.start(ctx, leanCall{msg: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)}, time.Time{}) {
		t.Fatal("start did not take call 1 with a connection idle")
	}
	<-gave
	if !lc.start(ctx, leanCall{msg: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call"}`)}, time.Time{}) {
		t.Fatal("start did not take call 2 with a connection idle")
	}
	if got := onlyConn(t, lc); got != c {
		t.Fatal("call 2 went on a new connection")
	}
	if !waitFor(func() bool { return srv.reqs.Load() == 3 }) {
		t.Fatal("the server never read call 2")
	}
	cancel() // closes lc: its connection is shut while its goroutine is held
	if !waitFor(func() bool { c.mu.Lock(); defer c.mu.Unlock(); return c.shut }) {
		t.Fatal("the client's close never shut the connection")
	}
	close(proceed)
	<-closed // every goroutine of lc has ended
	select {
	case r := <-results:
		if r.err == nil {
			t.Fatal("call 2 ended with no error, its connection closed before any answer")
		}
	default:
		t.Fatal("the client's close returned and call 2 was never ended")
	}
}

// TestLeanCloseEndsHandedCall: a call handed over (start) on a
// connection whose goroutine is gone without ending it — whatever made
// it go — is ended by the client's close, with ErrClosed, once; and a
// late end of it by its connection (finish) reports nothing more. The
// connection is made by hand, with no goroutine, for that state.
func TestLeanCloseEndsHandedCall(t *testing.T) {
	results := make(chan leanResult, 2)
	lc := newTestLean(t, "http://127.0.0.1:1/mcp", func(_ leanCall, r leanResult) { results <- r })
	near, far := net.Pipe()
	defer far.Close()
	c := &leanConn{lc: lc, nc: near, br: bufio.NewReader(near), bw: bufio.NewWriter(near), work: make(chan struct{}, 1), done: make(chan leanResult)}
	lc.mu.Lock()
	lc.open[c] = struct{}{}
	lc.idle = append(lc.idle, c)
	lc.mu.Unlock()

	ctx := context.Background()
	k := leanCall{msg: []byte(`{"jsonrpc":"2.0","id":7,"method":"ping"}`)}
	if !lc.start(ctx, k, time.Time{}) {
		t.Fatal("start did not take the call with a connection idle")
	}
	lc.close()
	select {
	case r := <-results:
		if !errors.Is(r.err, ErrClosed) {
			t.Fatalf("the call ended with %v, want ErrClosed", r.err)
		}
	default:
		t.Fatal("the client's close returned and the call handed over was never ended")
	}
	c.finish(c.call, leanResult{err: io.EOF}) // its connection's goroutine, come back late
	select {
	case r := <-results:
		t.Fatalf("the call ended twice (then with %v)", r.err)
	default:
	}
}
