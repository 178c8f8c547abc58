package transport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// smallBuffers is a socket option for a dialer or listener: 4 KiB to
// send and to receive (the kernel's least, about), so that a request of
// a few MiB fills the sockets long before it is written.
func smallBuffers(_, _ string, rc syscall.RawConn) error {
	var serr error
	err := rc.Control(func(fd uintptr) {
		serr = errors.Join(setsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_SNDBUF, 4096),
			setsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096))
	})
	return errors.Join(err, serr)
}

// newUnreadServer is a server on loopback, with small socket buffers,
// that answers each request of up to 64 KiB and reads nothing of a
// longer one, or after it: a slow server whose socket buffer a long
// request fills. Its connections stay open until the test ends.
func newUnreadServer(t *testing.T) string {
	t.Helper()
	lc := net.ListenConfig{Control: smallBuffers}
	ln, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	end := make(chan struct{})
	var wg sync.WaitGroup
	t.Cleanup(func() {
		close(end)
		ln.Close()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer nc.Close()
				br := bufio.NewReader(nc)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					if req.ContentLength > 64<<10 {
						<-end // reads nothing more
						return
					}
					body, _ := io.ReadAll(req.Body)
					if _, err := io.WriteString(nc, jsonOK(jsonAnswer(idOf(body)))); err != nil {
						return
					}
				}
			})
		}
	})
	return "http://" + ln.Addr().String() + "/mcp"
}

// TestSendAsyncServerNotReading: a request handed over with SendAsync
// to a server that does not read it, longer than the sockets' buffers
// take, does not hold its sender: SendAsync returns while the request
// is still being written, the session's other requests go out and are
// answered meanwhile, and the stuck request ends at its deadline with
// an error wrapping context.DeadlineExceeded (or, with no deadline, at
// Close, before Close returns) — done called after SendAsync returned,
// once.
func TestSendAsyncServerNotReading(t *testing.T) {
	for _, c := range []struct {
		name     string
		deadline time.Duration // 0: none, the request ends at Close
	}{{"deadline", time.Second}, {"close", 0}} {
		t.Run(c.name, func(t *testing.T) {
			url := newUnreadServer(t)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			tr := &http.Transport{DialContext: (&net.Dialer{Control: smallBuffers}).DialContext}
			defer tr.CloseIdleConnections()
			conn, err := HTTP{URL: url, Poster: PosterLean, Spare: 1, Client: &http.Client{Transport: tr}}.Dial(ctx, "s1")
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if err := conn.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
				t.Fatal(err)
			}
			takeAnswer(t, ctx, conn, 1)
			hc := conn.(*HTTPConn)
			if !waitFor(func() bool { hc.lean.mu.Lock(); defer hc.lean.mu.Unlock(); return len(hc.lean.idle) == 2 }) {
				t.Fatal("the first connection and the spare are not idle")
			}

			big := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}}`, strings.Repeat("x", 4<<20))
			var deadline time.Time
			if c.deadline > 0 {
				deadline = time.Now().Add(c.deadline)
			}
			var returned atomic.Bool
			done := make(chan error, 2)
			if !hc.SendAsync(ctx, big, deadline, func(err error) {
				if !returned.Load() {
					err = fmt.Errorf("done called before SendAsync returned (%v)", err)
				}
				done <- err
			}) {
				t.Fatal("SendAsync did not take the request with connections idle")
			}
			returned.Store(true)
			if !writing(hc.lean) {
				t.Skip("no connection writes without waiting here (not Linux, or not a TCP socket of the net package)")
			}

			// The session's next request goes out on the spare and is
			// answered while the long one is still being written.
			sent := make(chan error, 1)
			if !hc.SendAsync(ctx, []byte(`{"jsonrpc":"2.0","id":3,"method":"ping"}`), time.Now().Add(time.Minute), func(err error) { sent <- err }) {
				t.Fatal("SendAsync did not take the next request on the spare connection")
			}
			if err := <-sent; err != nil {
				t.Fatalf("the next request: %v", err)
			}
			takeAnswer(t, ctx, conn, 3)
			if c.deadline == 0 && !writing(hc.lean) {
				t.Fatal("the long request is not being written any more, with its server reading nothing")
			}

			if c.deadline == 0 {
				conn.Close()
				select {
				case err := <-done:
					if err == nil || !strings.Contains(err.Error(), "closed") || strings.Contains(err.Error(), "before SendAsync") {
						t.Fatalf("done got %v, want the connection's close", err)
					}
				default:
					t.Fatal("Close returned before done was called")
				}
			} else {
				select {
				case err := <-done:
					if !errors.Is(err, context.DeadlineExceeded) {
						t.Fatalf("done got %v, want an error wrapping context.DeadlineExceeded", err)
					}
				case <-ctx.Done():
					t.Fatal("the request did not end at its deadline")
				}
				conn.Close()
			}
			select {
			case err := <-done:
				t.Fatalf("done called twice (then with %v)", err)
			default:
			}
		})
	}
}

// writing reports whether a connection of lc is writing a request on a
// goroutine of its own (the socket took only part of it).
func writing(lc *leanClient) bool {
	lc.mu.Lock()
	open := make([]*leanConn, 0, len(lc.open))
	for c := range lc.open {
		open = append(open, c)
	}
	lc.mu.Unlock()
	for _, c := range open {
		c.mu.Lock()
		w := c.writing
		c.mu.Unlock()
		if w {
			return true
		}
	}
	return false
}

// TestLeanIdleBytes: bytes a server writes on a kept-alive connection
// while it is idle (an answer to no request) are not taken for the next
// request's answer: that request goes on a new connection and gets its
// own answer.
func TestLeanIdleBytes(t *testing.T) {
	srv := newRawServer(t, func(n int, req *http.Request, body []byte) (string, bool) {
		if n == 0 {
			return jsonOK(jsonAnswer(idOf(body))) + jsonOK(jsonAnswer("99")), false
		}
		return jsonOK(jsonAnswer(idOf(body))), false
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn := dialIdle(t, ctx, srv.url)
	lc := conn.(*HTTPConn).lean
	idleDead := func() bool {
		lc.mu.Lock()
		defer lc.mu.Unlock()
		for _, c := range lc.idle {
			c.mu.Lock()
			dead := c.dead
			c.mu.Unlock()
			if dead != nil {
				return true
			}
		}
		return false
	}
	if !waitFor(idleDead) {
		if !lc.idle[0].direct() {
			t.Skip("the connection is not read while idle here (not Linux, or not a TCP socket of the net package)")
		}
		t.Fatal("the idle connection's reader did not find the bytes its server wrote")
	}
	done := make(chan error, 1)
	if !conn.(AsyncSender).SendAsync(ctx, []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`), time.Now().Add(time.Minute), func(err error) { done <- err }) {
		t.Fatal("SendAsync did not take the request with a connection idle")
	}
	if err := <-done; err != nil {
		t.Fatalf("done got %v, want the request sent again on a new connection", err)
	}
	takeAnswer(t, ctx, conn, 2)
	if got := srv.conns.Load(); got != 2 {
		t.Errorf("the server accepted %d connections, want 2", got)
	}
}

// newRefusingServer is a server on loopback, with small socket buffers,
// that answers each request of up to 64 KiB, and a longer one, once its
// head is read, with 413 and a close that leaves the body unread (the
// kernel resets the connection): net/http's server does so with a body
// over its limit. heads counts the heads of long requests it read.
func newRefusingServer(t *testing.T, heads *atomic.Int32) string {
	t.Helper()
	lc := net.ListenConfig{Control: smallBuffers}
	ln, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer nc.Close()
				br := bufio.NewReader(nc)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					if req.ContentLength > 64<<10 {
						heads.Add(1)
						_, _ = io.WriteString(nc, "HTTP/1.1 413 Request Entity Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
						return // unread: the close resets the connection
					}
					body, _ := io.ReadAll(req.Body)
					if _, err := io.WriteString(nc, jsonOK(jsonAnswer(idOf(body)))); err != nil {
						return
					}
				}
			})
		}
	})
	return "http://" + ln.Addr().String() + "/mcp"
}

// TestLeanAnsweredWhileWriting: a long request on a kept-alive
// connection that its server answers (413) and resets before reading it
// all fails with that answer, and is not sent again on a new connection:
// the server read it and answered. Both ways of sending: SendAsync (the
// write goes on without its sender) and Send (its sender writes it all).
func TestLeanAnsweredWhileWriting(t *testing.T) {
	for _, async := range []bool{true, false} {
		t.Run(map[bool]string{true: "async", false: "send"}[async], func(t *testing.T) {
			var heads atomic.Int32
			url := newRefusingServer(t, &heads)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			tr := &http.Transport{DialContext: (&net.Dialer{Control: smallBuffers}).DialContext}
			defer tr.CloseIdleConnections()
			conn, err := HTTP{URL: url, Poster: PosterLean, Spare: 1, Client: &http.Client{Transport: tr}}.Dial(ctx, "s1")
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if err := conn.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
				t.Fatal(err)
			}
			takeAnswer(t, ctx, conn, 1)
			hc := conn.(*HTTPConn)
			if !waitFor(func() bool { hc.lean.mu.Lock(); defer hc.lean.mu.Unlock(); return len(hc.lean.idle) == 2 }) {
				t.Fatal("the first connection and the spare are not idle")
			}
			hc.lean.mu.Lock()
			direct := hc.lean.idle[0].direct()
			hc.lean.mu.Unlock()
			if !direct {
				t.Skip("no connection writes without waiting here (not Linux, or not a TCP socket of the net package)")
			}

			big := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}}`, strings.Repeat("x", 4<<20))
			deadline := time.Now().Add(30 * time.Second)
			if async {
				done := make(chan error, 1)
				if !hc.SendAsync(ctx, big, deadline, func(err error) { done <- err }) {
					t.Fatal("SendAsync did not take the request with connections idle")
				}
				err = <-done
			} else {
				sctx, scancel := context.WithDeadline(ctx, deadline)
				err = conn.Send(sctx, big)
				scancel()
			}
			var he *HTTPError
			if !errors.As(err, &he) || he.Status != http.StatusRequestEntityTooLarge {
				t.Errorf("the long request ended with %v, want its answer, 413", err)
			}
			if n := heads.Load(); n != 1 {
				t.Errorf("the server read the long request %d times, want once (it answered the first)", n)
			}
		})
	}
}

// TestLeanUnansweredSentOnceMore: a request whose server closes the
// connection without answering it, every time, is sent once more on a
// new connection (it may have been an idle close), not again and again
// on every spare connection dialed meanwhile (each was taken for a
// kept-alive one): twice on the wire in all, and the request fails. Both
// ways of sending.
func TestLeanUnansweredSentOnceMore(t *testing.T) {
	for _, async := range []bool{true, false} {
		t.Run(map[bool]string{true: "async", false: "send"}[async], func(t *testing.T) {
			var twos atomic.Int32
			srv := newRawServer(t, func(n int, req *http.Request, body []byte) (string, bool) {
				if idOf(body) == "2" {
					twos.Add(1)
					return "", true // read, and closed unanswered
				}
				return jsonOK(jsonAnswer(idOf(body))), false
			})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			conn, err := HTTP{URL: srv.url, Poster: PosterLean, Spare: 1}.Dial(ctx, "s1")
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if err := conn.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
				t.Fatal(err)
			}
			takeAnswer(t, ctx, conn, 1)
			lc := conn.(*HTTPConn).lean
			if !waitFor(func() bool { lc.mu.Lock(); defer lc.mu.Unlock(); return len(lc.idle) == 2 }) {
				t.Fatal("the first connection and the spare are not idle")
			}
			msg := []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
			deadline := time.Now().Add(10 * time.Second)
			if async {
				done := make(chan error, 1)
				if !conn.(AsyncSender).SendAsync(ctx, msg, deadline, func(err error) { done <- err }) {
					t.Fatal("SendAsync did not take the request with a connection idle")
				}
				err = <-done
			} else {
				sctx, scancel := context.WithDeadline(ctx, deadline)
				err = conn.Send(sctx, msg)
				scancel()
			}
			if err == nil || errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("the request ended with %v, want the server's close", err)
			}
			if n := twos.Load(); n > 2 {
				t.Errorf("the server read the request %d times, want at most twice", n)
			}
		})
	}
}

// TestLeanIdleTimedOut: a kept-alive connection whose read while idle
// ended by a deadline — the last call's, passed between its answer and
// the connection's return to the idle ones, or its context's abort —
// fails its next request before a byte of it is written: that request
// goes on a new connection and gets its answer, rather than failing as
// timed out. Both ways of sending.
func TestLeanIdleTimedOut(t *testing.T) {
	for _, async := range []bool{true, false} {
		t.Run(map[bool]string{true: "async", false: "send"}[async], func(t *testing.T) {
			srv := newRawServer(t, func(n int, req *http.Request, body []byte) (string, bool) {
				return jsonOK(jsonAnswer(idOf(body))), false
			})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			conn, err := HTTP{URL: srv.url, Poster: PosterLean, Spare: 1}.Dial(ctx, "s1")
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if err := conn.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
				t.Fatal(err)
			}
			takeAnswer(t, ctx, conn, 1)
			lc := conn.(*HTTPConn).lean
			if !waitFor(func() bool { lc.mu.Lock(); defer lc.mu.Unlock(); return len(lc.idle) == 2 }) {
				t.Fatal("the first connection and the spare are not idle")
			}
			lc.mu.Lock()
			c := lc.idle[len(lc.idle)-1] // the one the next request takes
			lc.mu.Unlock()
			if !c.direct() {
				t.Skip("the connection is not read while idle here (not Linux, or not a TCP socket of the net package)")
			}
			_ = c.nc.SetReadDeadline(aLongTimeAgo) // as a deadline left from the last call
			if !waitFor(func() bool { c.mu.Lock(); defer c.mu.Unlock(); return c.dead != nil }) {
				t.Fatal("the idle connection's read did not end at its deadline")
			}
			msg := []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
			if async {
				done := make(chan error, 1)
				if !conn.(AsyncSender).SendAsync(ctx, msg, time.Now().Add(time.Minute), func(err error) { done <- err }) {
					t.Fatal("SendAsync did not take the request with connections idle")
				}
				err = <-done
			} else {
				err = conn.Send(ctx, msg)
			}
			if err != nil {
				t.Fatalf("the request ended with %v, want it sent on another connection and answered", err)
			}
			takeAnswer(t, ctx, conn, 2)
		})
	}
}

// TestLeanAllIdleClosed: a server that closes every idle connection at
// once (its keep-alive timeout) — the one a request would take and the
// spare — does not fail the next request: each connection found closed
// before the request was written to it is passed over, however many.
// Both ways of sending.
func TestLeanAllIdleClosed(t *testing.T) {
	for _, async := range []bool{true, false} {
		t.Run(map[bool]string{true: "async", false: "send"}[async], func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			var (
				wg   sync.WaitGroup
				mu   sync.Mutex
				open []net.Conn
			)
			closeAll := func() {
				mu.Lock()
				defer mu.Unlock()
				for _, nc := range open {
					nc.Close()
				}
				open = nil
			}
			t.Cleanup(func() { ln.Close(); closeAll(); wg.Wait() })
			wg.Go(func() {
				for {
					nc, err := ln.Accept()
					if err != nil {
						return
					}
					mu.Lock()
					open = append(open, nc)
					mu.Unlock()
					wg.Go(func() {
						br := bufio.NewReader(nc)
						for {
							req, err := http.ReadRequest(br)
							if err != nil {
								return
							}
							body, _ := io.ReadAll(req.Body)
							if _, err := io.WriteString(nc, jsonOK(jsonAnswer(idOf(body)))); err != nil {
								return
							}
						}
					})
				}
			})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			conn, err := HTTP{URL: "http://" + ln.Addr().String() + "/mcp", Poster: PosterLean, Spare: 1}.Dial(ctx, "s1")
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if err := conn.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
				t.Fatal(err)
			}
			takeAnswer(t, ctx, conn, 1)
			lc := conn.(*HTTPConn).lean
			if !waitFor(func() bool { lc.mu.Lock(); defer lc.mu.Unlock(); return len(lc.idle) == 2 }) {
				t.Fatal("the first connection and the spare are not idle")
			}
			lc.mu.Lock()
			idle := append([]*leanConn(nil), lc.idle...)
			lc.mu.Unlock()
			if !idle[0].direct() {
				t.Skip("the connection is not read while idle here (not Linux, or not a TCP socket of the net package)")
			}
			// The client's dial of the spare completes before the server's
			// Accept returns it: close both only once both are accepted
			// (CI saw the spare accepted after closeAll, never closed).
			if !waitFor(func() bool { mu.Lock(); defer mu.Unlock(); return len(open) == 2 }) {
				t.Fatal("the server did not accept the first connection and the spare")
			}
			closeAll()
			if !waitFor(func() bool {
				for _, c := range idle {
					c.mu.Lock()
					dead := c.dead
					c.mu.Unlock()
					if dead == nil {
						return false
					}
				}
				return true
			}) {
				t.Fatal("the idle connections' reads did not see their server's close")
			}
			msg := []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
			if async {
				done := make(chan error, 1)
				if !conn.(AsyncSender).SendAsync(ctx, msg, time.Now().Add(time.Minute), func(err error) { done <- err }) {
					t.Fatal("SendAsync did not take the request with connections idle")
				}
				err = <-done
			} else {
				err = conn.Send(ctx, msg)
			}
			if err != nil {
				t.Fatalf("the request ended with %v, want it sent on a new connection and answered", err)
			}
			takeAnswer(t, ctx, conn, 2)
		})
	}
}
