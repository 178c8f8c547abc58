package transport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestSendAsync: a request handed to the lean client with SendAsync
// ends as SendBy's would — its answer on Incoming, a refusal as an
// *HTTPError, an event stream read to its answer, a redirect followed, a
// kept-alive connection the server had closed tried again on a new one,
// a deadline that passes as context.DeadlineExceeded — and done is
// called once with that, while SendAsync itself returns at once.
func TestSendAsync(t *testing.T) {
	cases := []struct {
		name string
		// answer is the server's answer to the second request (the
		// first, sent with Send, leaves the connection idle).
		answer     func(id string, req *http.Request) (string, bool)
		closeFirst bool // the server closes the connection after the first answer
		wantErr    func(error) bool
		wantMsg    bool  // the answer is delivered
		reqs       int32 // requests the server reads in all
	}{
		{name: "json", answer: func(id string, _ *http.Request) (string, bool) { return jsonOK(jsonAnswer(id)), false },
			wantErr: func(err error) bool { return err == nil }, wantMsg: true, reqs: 2},
		{name: "refused", answer: func(id string, _ *http.Request) (string, bool) {
			return "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\nbusy", false
		}, wantErr: func(err error) bool {
			var he *HTTPError
			return errors.As(err, &he) && he.Status == http.StatusServiceUnavailable
		}, reqs: 2},
		{name: "event stream", answer: func(id string, _ *http.Request) (string, bool) {
			ev := "event: message\ndata: " + jsonAnswer(id) + "\n\n"
			return "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk(ev) + "0\r\n\r\n", false
		}, wantErr: func(err error) bool { return err == nil }, wantMsg: true, reqs: 2},
		{name: "redirect", answer: func(id string, req *http.Request) (string, bool) {
			if req.URL.Path == "/mcp" {
				return "HTTP/1.1 307 Temporary Redirect\r\nLocation: /moved\r\nContent-Length: 0\r\n\r\n", false
			}
			return jsonOK(jsonAnswer(id)), false
		}, wantErr: func(err error) bool { return err == nil }, wantMsg: true, reqs: 4}, // as Send: net/http posts it again, and follows
		{name: "closed while idle", closeFirst: true, answer: func(id string, _ *http.Request) (string, bool) { return jsonOK(jsonAnswer(id)), false },
			wantErr: func(err error) bool { return err == nil }, wantMsg: true, reqs: 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := newRawServer(t, func(n int, req *http.Request, body []byte) (string, bool) {
				if n == 0 {
					return jsonOK(jsonAnswer(idOf(body))), c.closeFirst
				}
				return c.answer(idOf(body), req)
			})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			conn := dialIdle(t, ctx, srv.url)
			done := make(chan error, 2)
			if !conn.(AsyncSender).SendAsync(ctx, []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`), time.Now().Add(time.Minute), func(err error) { done <- err }) {
				t.Fatal("SendAsync did not take the request with a connection idle")
			}
			if err := <-done; !c.wantErr(err) {
				t.Fatalf("done got %v", err)
			}
			if c.wantMsg {
				if in := <-conn.Incoming(); string(in.Msg) != jsonAnswer("2") {
					t.Fatalf("got %s, want the answer to id 2", in.Msg)
				}
			}
			if got := srv.reqs.Load(); got != c.reqs {
				t.Errorf("the server read %d requests, want %d", got, c.reqs)
			}
			conn.Close() // its goroutines are gone: a second call of done would be in done now
			select {
			case err := <-done:
				t.Fatalf("done called twice (then with %v)", err)
			default:
			}
		})
	}
}

// dialIdle dials a lean connection to url and leaves one kept-alive
// connection of it idle: it sends a ping (id 1) and takes its answer,
// under ctx. The connection is closed when the test ends.
func dialIdle(t *testing.T, ctx context.Context, url string) Conn {
	t.Helper()
	conn, err := HTTP{URL: url, Poster: PosterLean}.Dial(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-conn.Incoming():
	case <-ctx.Done():
		t.Fatal("no answer to the first ping")
	}
	return conn
}

// TestSendAsyncDeadline: a request handed over whose answer's headers
// do not come ends at its deadline with an error wrapping
// context.DeadlineExceeded, as SendBy's.
func TestSendAsyncDeadline(t *testing.T) {
	srv := newHoldingServer(t, func(n int, _ []byte) bool { return n > 0 }) // the first answers, the rest never
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn := dialIdle(t, ctx, srv.url)
	done := make(chan error, 1)
	if !conn.(AsyncSender).SendAsync(ctx, []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`), time.Now().Add(100*time.Millisecond), func(err error) { done <- err }) {
		t.Fatal("SendAsync did not take the request with a connection idle")
	}
	if err := <-done; !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		t.Fatalf("got %v, want an error wrapping context.DeadlineExceeded before the test's own timeout", err)
	}
}

// TestSendAsyncDeclines: SendAsync takes nothing it cannot post at once
// — no connection idle yet, a notification, initialize, net/http's
// poster, a closed connection — and then never calls done.
func TestSendAsyncDeclines(t *testing.T) {
	srv := newRawServer(t, func(n int, req *http.Request, body []byte) (string, bool) {
		b := jsonAnswer(idOf(body))
		return jsonOK(b), false
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	called := make(chan error, 10)
	done := func(err error) { called <- err }
	ping := []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	deadline := time.Now().Add(time.Minute)
	std, err := HTTP{URL: srv.url, Poster: PosterStd}.Dial(ctx, "s0")
	if err != nil {
		t.Fatal(err)
	}
	defer std.Close()
	if std.(AsyncSender).SendAsync(ctx, ping, deadline, done) {
		t.Error("net/http's poster took a request")
	}
	conn, err := HTTP{URL: srv.url, Poster: PosterLean}.Dial(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	as := conn.(AsyncSender)
	if as.SendAsync(ctx, ping, deadline, done) {
		t.Error("took a request with no connection idle")
	}
	if err := conn.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
		t.Fatal(err)
	}
	<-conn.Incoming()
	for _, msg := range []string{
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`,
		`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{}}`,
	} {
		if as.SendAsync(ctx, []byte(msg), deadline, done) {
			t.Errorf("took %s", msg)
		}
	}
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	if as.SendAsync(ctx, ping, deadline, done) {
		t.Error("took a request after Close")
	}
	select {
	case err := <-called:
		t.Fatalf("done was called (%v) for a request SendAsync did not take", err)
	default:
	}
	if got := srv.reqs.Load(); got != 1 {
		t.Errorf("the server read %d requests, want 1 (the Send)", got)
	}
}

// TestSendAsyncClose: Close while a handed-over request waits for its
// answer ends it: done is called with an error, before Close returns.
func TestSendAsyncClose(t *testing.T) {
	srv := newHoldingServer(t, func(n int, _ []byte) bool { return n > 0 })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn := dialIdle(t, ctx, srv.url)
	done := make(chan error, 1)
	if !conn.(AsyncSender).SendAsync(ctx, []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`), time.Now().Add(time.Minute), func(err error) { done <- err }) {
		t.Fatal("SendAsync did not take the request with a connection idle")
	}
	if !waitFor(func() bool { return srv.reqs.Load() == 2 }) {
		t.Fatal("the server never read the request")
	}
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "closed") {
			t.Fatalf("done got %v, want the connection's close", err)
		}
	default:
		t.Fatal("Close returned before done was called")
	}
}

// TestLeanContextHook: the lean connection's hook on a send's context,
// made once per context rather than per call, aborts a call only under
// a context that ended: a context that ends while its connection idles
// leaves the next call (under another) alone, and a context used for
// several calls still aborts the one in flight when it ends.
func TestLeanContextHook(t *testing.T) {
	srv := newHoldingServer(t, func(_ int, body []byte) bool { return idOf(body) == "4" })
	base, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := HTTP{URL: srv.url, Poster: PosterLean}.Dial(base, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ping := func(id int) []byte { return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id) }
	answer := func(id int) {
		t.Helper()
		takeAnswer(t, base, conn, id)
	}
	async := func(ctx context.Context, id int) chan error {
		t.Helper()
		done := make(chan error, 1)
		if !conn.(AsyncSender).SendAsync(ctx, ping(id), time.Time{}, func(err error) { done <- err }) {
			t.Fatalf("SendAsync did not take request %d with a connection idle", id)
		}
		return done
	}

	// A context that ends with its connection idle.
	first, endFirst := context.WithCancel(base)
	if err := conn.Send(first, ping(1)); err != nil {
		t.Fatal(err)
	}
	answer(1)
	endFirst()
	// The next calls, under another context, go through.
	if err := conn.Send(base, ping(2)); err != nil {
		t.Fatalf("a call after another call's context ended: %v", err)
	}
	answer(2)
	// A context of several calls: the second, held, ends with it.
	many, endMany := context.WithCancel(base)
	if err := <-async(many, 3); err != nil {
		t.Fatal(err)
	}
	answer(3)
	held := async(many, 4)
	endMany()
	select {
	case err := <-held:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the held call ended with %v, want context.Canceled", err)
		}
	case <-base.Done():
		t.Fatal("the held call was not aborted when its context ended")
	}
	if err := conn.Send(base, ping(5)); err != nil { // on a new connection, or the spare
		t.Fatalf("a call after an aborted one: %v", err)
	}
	answer(5)
}

// TestLeanReusedAnswer: an answer read whole on its connection's
// goroutine is read into the one before it (its Response, Header map
// and body), so each answer's Incoming.HTTP must show its own headers
// and nothing of the one before, and an answer that is not read whole
// there (an event stream, read on a goroutine of its own) is not
// written over by the next.
func TestLeanReusedAnswer(t *testing.T) {
	answers := []struct{ head, body string }{
		{"Content-Type: application/json\r\nRetry-After: 5\r\n", ""},
		{"Content-Type: application/json\r\n", ""},
		{"Content-Type: application/json; charset=utf-8\r\nX-Other: 1\r\n", ""},
		{"Content-Type: text/event-stream\r\n", "sse"},
		{"Content-Type: application/json\r\nRetry-After: 7\r\n", ""},
		{"Content-Type: application/json\r\n", ""},
	}
	srv := newRawServer(t, func(n int, req *http.Request, body []byte) (string, bool) {
		a := answers[n]
		b := jsonAnswer(idOf(body))
		if a.body == "sse" {
			b = "event: message\ndata: " + b + "\n\n"
		}
		return fmt.Sprintf("HTTP/1.1 200 OK\r\n%sContent-Length: %d\r\n\r\n%s", a.head, len(b), b), false
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := HTTP{URL: srv.url, Poster: PosterLean}.Dial(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Send(ctx, []byte(`{"jsonrpc":"2.0","id":0,"method":"ping"}`)); err != nil {
		t.Fatal(err)
	}
	want := func(n int) (ct, retry string) {
		h, _ := http.ReadResponse(bufio.NewReader(strings.NewReader("HTTP/1.1 200 OK\r\n"+answers[n].head+"\r\n")), nil)
		return h.Header.Get("Content-Type"), h.Header.Get("Retry-After")
	}
	for n := range answers {
		if n > 0 {
			msg := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`, n)
			done := make(chan error, 1)
			if !conn.(AsyncSender).SendAsync(ctx, msg, time.Time{}, func(err error) { done <- err }) {
				// The event stream's connection is given back once
				// its body is read, which may be after its message:
				// the next goes as the engine sends it then.
				done <- conn.(DeadlineSender).SendBy(ctx, msg, time.Time{})
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
		var in Incoming
		select {
		case in = <-conn.Incoming():
		case <-ctx.Done():
			t.Fatalf("no answer to %d", n)
		}
		if got := idOf(in.Msg); got != fmt.Sprint(n) {
			t.Fatalf("got the answer to %s, want %d's", got, n)
		}
		ct, retry := want(n)
		var gotCT, gotRetry string
		if vs := in.HTTP.Headers["Content-Type"]; len(vs) == 1 {
			gotCT = vs[0]
		}
		if vs := in.HTTP.Headers["Retry-After"]; len(vs) == 1 {
			gotRetry = vs[0]
		}
		if gotCT != ct || gotRetry != retry || len(in.HTTP.Headers["Retry-After"]) > 1 {
			t.Errorf("answer %d: Content-Type %q, Retry-After %q; want %q, %q", n, in.HTTP.Headers["Content-Type"], in.HTTP.Headers["Retry-After"], ct, retry)
		}
	}
}

// TestSendAsyncStreamResumed: an event stream that answers a request
// handed over with SendAsync is read on its connection's goroutine; one
// that ends cleanly before its answer is resumed (GET with
// Last-Event-ID) on a goroutine of its own, so that the connection,
// given back at the stream's end, carries the next request meanwhile:
// the next request's answer comes while the resumed stream is held, and
// the first answer after it.
func TestSendAsyncStreamResumed(t *testing.T) {
	release := make(chan struct{})
	resumed := make(chan struct{})
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, s seen) {
		switch {
		case s.Method == http.MethodGet && r.Header.Get(HeaderLastEventID) == "e1":
			close(resumed)
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
			writeSSE(w, "id: e2\ndata: "+jsonAnswer("2")+"\n\n")
		case s.Method == http.MethodGet:
			w.WriteHeader(http.StatusMethodNotAllowed)
		case strings.Contains(s.Body, `"id":2`): // a stream that ends, cleanly, before the answer
			writeSSE(w, "retry: 1\nid: e1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n")
		default:
			writeJSON(w, http.StatusOK, jsonAnswer(idOf([]byte(s.Body))))
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn := dialIdle(t, ctx, f.srv.URL+"/mcp")
	as := conn.(AsyncSender)
	done := make(chan error, 2*leanIdle)
	if !as.SendAsync(ctx, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{}}`), time.Now().Add(time.Minute), func(err error) { done <- err }) {
		t.Fatal("SendAsync did not take the request with a connection idle")
	}
	if err := <-done; err != nil {
		t.Fatalf("done got %v for a 200 event stream", err)
	}
	next := func() Incoming {
		t.Helper()
		select {
		case in := <-conn.Incoming():
			return in
		case <-ctx.Done():
			t.Fatal("no message")
			return Incoming{}
		}
	}
	if in := next(); !strings.Contains(string(in.Msg), "notifications/progress") || in.SSE == nil || in.SSE.ID != "e1" {
		t.Fatalf("got %s (SSE %+v), want the stream's progress event e1", in.Msg, in.SSE)
	}
	select {
	case <-resumed:
	case <-ctx.Done():
		t.Fatal("the stream was never resumed")
	}
	// Every connection is idle again, the stream's own given back at its
	// end, before the resumption: one request on each is answered while
	// the resumed stream is held.
	lc := conn.(*HTTPConn).lean
	if !waitFor(lc.allIdle) {
		t.Fatal("the stream's connection was not given back")
	}
	lc.mu.Lock()
	n := len(lc.idle)
	lc.mu.Unlock()
	for i := range n {
		msg := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`, 10+i)
		if !as.SendAsync(ctx, msg, time.Now().Add(time.Minute), func(err error) { done <- err }) {
			t.Fatalf("SendAsync did not take request %d of %d with connections idle", i+1, n)
		}
	}
	for range n {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if in := next(); strings.Contains(string(in.Msg), `"id":2`) {
			t.Fatalf("got %s before the resumed stream was let go", in.Msg)
		}
	}
	close(release)
	if in := next(); string(in.Msg) != jsonAnswer("2") || in.SSE == nil || in.SSE.ID != "e2" {
		t.Fatalf("got %s (SSE %+v), want the answer to id 2 from the resumed stream", in.Msg, in.SSE)
	}
}
