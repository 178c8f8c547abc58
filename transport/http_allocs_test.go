package transport

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/tape"
)

// maxHTTPAllocsPerCall bounds what one tools/call over Streamable HTTP
// allocates on the client's side, sent and its JSON answer received:
// the cost per request of the HTTP client path (issue 24), as a count.
// It was 70 when written (80 before the shared header values, the
// media type's fast path, the method's name and the shared HTTPMeta),
// net/http's own share included: PosterStd's bound. PosterLean's is
// maxLeanAllocsPerCall.
const maxHTTPAllocsPerCall = 72

// maxLeanAllocsPerCall is maxHTTPAllocsPerCall for PosterLean: 12 when
// written (14 before a JSON answer in hand was read on the sender's
// goroutine), 4 since the fifth round of issue 24 (the batch slice of a
// one-message body, the Content-Length digits, the per-call context
// hook's two, and the answer's Response, Header map and body, read into
// the last answer's when that one was read whole).
const maxLeanAllocsPerCall = 4

func TestHTTPAllocsPerCall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the slow test server")
	}
	if raceDetector {
		t.Skip("the race detector allocates on its own: run without -race")
	}
	for _, tc := range []struct {
		poster Poster
		max    int
	}{{PosterStd, maxHTTPAllocsPerCall}, {PosterLean, maxLeanAllocsPerCall}} {
		t.Run(string(tc.poster), func(t *testing.T) {
			checkAllocsPerCall(t, slowCaller(t, tc.poster), tc.max)
		})
	}
}

// checkAllocsPerCall fails t when call, given 0, 1, 2, ..., allocates
// more than max times per call on average over 300 calls.
func checkAllocsPerCall(t *testing.T, call func(i int), max int) {
	t.Helper()
	i := 0
	per := testing.AllocsPerRun(300, func() { call(i); i++ })
	t.Logf("%.1f allocations per tools/call", per)
	if per > float64(max) {
		t.Errorf("%.1f allocations per tools/call, want at most %d", per, max)
	}
}

// benchCalls times call, given 0, 1, 2, ..., reporting allocations.
func benchCalls(b *testing.B, call func(i int)) {
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		call(i)
		i++
	}
}

// BenchmarkHTTPCall sends tools/call after tools/call over one
// Streamable HTTP connection to the slow test server answering at once
// (JSON), each after the previous answer, through each poster: the
// client's cost per request,
// for allocations (-benchmem) and instruction counts (valgrind).
func BenchmarkHTTPCall(b *testing.B) {
	for _, poster := range []Poster{PosterStd, PosterLean} {
		b.Run("poster="+string(poster), func(b *testing.B) {
			benchCalls(b, slowCaller(b, poster))
		})
	}
}

// slowCaller connects through poster to the slow test server (no delay), makes the
// handshake and 50 calls to warm the connection, and returns a function
// that makes one more tools/call and waits for its answer.
func slowCaller(tb testing.TB, poster Poster) func(i int) {
	ctx, c, wait := slowSession(tb, poster)
	call := func(msg string) {
		if err := c.Send(ctx, []byte(msg)); err != nil {
			tb.Fatal(err)
		}
		wait()
	}
	msgs := make([]string, 400)
	for i := range msgs {
		msgs[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`, i+1)
	}
	for _, m := range msgs[:50] { // warm: the connection pool, the buffers
		call(m)
	}
	return func(i int) { call(msgs[(50+i)%len(msgs)]) }
}

// slowSession connects through poster to the slow test server (no
// delay) and makes the handshake; it returns the connection, the
// context its calls are made under, and a function that waits for the
// next answer (failing tb if none comes, or it is empty).
func slowSession(tb testing.TB, poster Poster) (context.Context, Conn, func()) {
	url := testserver.SlowHTTP(tb, "-delay", "0s")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	tb.Cleanup(cancel)
	c, err := HTTP{URL: url, Poster: poster}.Dial(ctx, "s1")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	wait := func() {
		select {
		case in, ok := <-c.Incoming():
			if !ok {
				tb.Fatalf("the connection ended: %v", c.Err())
			}
			if len(in.Msg) == 0 {
				tb.Fatal("an empty answer")
			}
		case <-ctx.Done():
			tb.Fatal("no answer")
		}
	}
	if err := c.Send(ctx, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)); err != nil {
		tb.Fatal(err)
	}
	wait()
	if err := c.Send(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		tb.Fatal(err)
	}
	return ctx, c, wait
}

// TestHTTPMetaOfAnswers: each answer's HTTPMeta shows its own status and
// headers; alike answers share one (it is never changed once made).
func TestHTTPMetaOfAnswers(t *testing.T) {
	cts := []string{"application/json", "application/json", "application/json; charset=utf-8", "application/json"}
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		id := string(b[strings.Index(string(b), `"id":`)+5 : strings.Index(string(b), `,"method"`)])
		w.Header().Set("Content-Type", cts[n%len(cts)])
		n++
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+id+`,"result":{}}`)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := HTTP{URL: srv.URL}.Dial(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var metas []*tape.HTTPMeta
	for i := range cts {
		if err := c.Send(ctx, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i))); err != nil {
			t.Fatal(err)
		}
		in := <-c.Incoming()
		metas = append(metas, in.HTTP)
	}
	for i, m := range metas {
		if got := m.Headers["Content-Type"]; m.Status != 200 || len(got) != 1 || got[0] != cts[i] {
			t.Errorf("answer %d: status %d, Content-Type %q; want 200, %q", i, m.Status, got, cts[i])
		}
	}
	if metas[0] != metas[1] {
		t.Errorf("two alike answers have an HTTPMeta each")
	}
}

// maxAsyncAllocsPerCall is maxLeanAllocsPerCall for a request handed
// over with SendAsync (how the engine sends): the request posted on the
// connection's goroutine, its JSON answer read there and delivered. It
// was 10 when written; 2 since (as maxLeanAllocsPerCall's): the stream
// the answer is for, and the answer's bytes.
const maxAsyncAllocsPerCall = 2

func TestHTTPAllocsPerAsyncCall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the slow test server")
	}
	if raceDetector {
		t.Skip("the race detector allocates on its own: run without -race")
	}
	checkAllocsPerCall(t, slowAsyncCaller(t), maxAsyncAllocsPerCall)
}

// BenchmarkHTTPAsyncCall is BenchmarkHTTPCall's lean poster through
// SendAsync.
func BenchmarkHTTPAsyncCall(b *testing.B) {
	benchCalls(b, slowAsyncCaller(b))
}

// slowAsyncCaller is slowCaller's lean connection, whose function hands
// each tools/call over with SendAsync and waits for its done and its
// answer. The done function is made once, as the engine makes it.
func slowAsyncCaller(tb testing.TB) func(i int) {
	ctx, c, _ := slowSession(tb, PosterLean)
	return asyncCaller(tb, ctx, c, func(in Incoming) bool { return len(in.Msg) > 0 }, "echo", `{"text":"hi"}`)
}

// maxAsyncStreamAllocsPerCall is maxAsyncAllocsPerCall for a server
// that answers each request with an event stream (the go-sdk's): 8 when
// written, 12 before the stream was read on its connection's goroutine
// (a goroutine per answer: its closures) and an event's data handed
// over rather than copied, its type "message" not made a string. The
// rest: the stream and its reader, the answer's Response, Header and
// body (an answer not read whole lends them to no other), the event's
// data and its SSE metadata.
const maxAsyncStreamAllocsPerCall = 8

// TestHTTPAllocsPerAsyncStream is TestHTTPAllocsPerAsyncCall against
// the go-sdk conformance server, whose answers are event streams.
func TestHTTPAllocsPerAsyncStream(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the go-sdk conformance server")
	}
	if raceDetector {
		t.Skip("the race detector allocates on its own: run without -race")
	}
	checkAllocsPerCall(t, goSDKAsyncCaller(t), maxAsyncStreamAllocsPerCall)
}

// BenchmarkHTTPAsyncStream is BenchmarkHTTPAsyncCall against the go-sdk
// conformance server (stateless), whose answers are event streams.
func BenchmarkHTTPAsyncStream(b *testing.B) {
	benchCalls(b, goSDKAsyncCaller(b))
}

// goSDKAsyncCaller is slowAsyncCaller against the go-sdk conformance
// server (stateless): its tool test_simple_text answers each call with
// an event stream.
func goSDKAsyncCaller(tb testing.TB) func(i int) {
	url := testserver.GoSDKHTTPStateless(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	tb.Cleanup(cancel)
	c, err := HTTP{URL: url, Poster: PosterLean}.Dial(ctx, "s1")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	wait := func() {
		select {
		case in, ok := <-c.Incoming():
			if !ok {
				tb.Fatalf("the connection ended: %v", c.Err())
			}
			if !hasResult(in) {
				tb.Fatalf("got %s, want an answer with a result", in.Msg)
			}
		case <-ctx.Done():
			tb.Fatal("no answer")
		}
	}
	if err := c.Send(ctx, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)); err != nil {
		tb.Fatal(err)
	}
	wait()
	return asyncCaller(tb, ctx, c, hasResult, "test_simple_text", `{}`)
}

// hasResult reports whether in is an answer with a result.
func hasResult(in Incoming) bool { return bytes.Contains(in.Msg, []byte(`"result"`)) }

// asyncCaller is a function that hands a tools/call of tool (with args)
// to c with SendAsync and waits for its done, for its answer (which
// answered must accept) and for its connection's return to the idle ones, after 50 such calls to
// warm the connections and buffers. Each call is bounded by asyncCallWait.
//
// It waits for the connection by blocking on the end of the call on the
// connection's goroutine (its onStarted, wrapped), never by yielding in
// a loop: testing.AllocsPerRun runs with GOMAXPROCS=1, and a goroutine
// that yields (runtime.Gosched) is always runnable, so the scheduler of
// the one processor never polls the network itself; the runtime's
// monitor thread (sysmon), which would, is in its deep sleep after the
// program was idle between two calls, and the lean connection's raw
// system calls (rawio_linux.go) do not wake it. The end of an event
// stream the go-sdk server sent then waited until the next timer or
// system call (a minute or more): such a loop hung from 87d4f63 on.
func asyncCaller(tb testing.TB, ctx context.Context, c Conn, answered func(Incoming) bool, tool, args string) func(i int) {
	hc := c.(*HTTPConn)
	lc := hc.lean
	sent := make(chan error, 1)
	done := func(err error) { sent <- err }
	// ended: a call handed over has ended on its connection's goroutine,
	// its answer read to its end (an event stream's too) and the
	// connection given back, or closed. Set before the first SendAsync
	// (start, under lc.mu, orders it before every read).
	ended := make(chan struct{}, 1)
	onStarted := lc.onStarted
	lc.onStarted = func(k leanCall, r leanResult) {
		onStarted(k, r)
		ended <- struct{}{}
	}
	stuck := time.NewTimer(asyncCallWait) // reset for each call: no timer made per call
	tb.Cleanup(func() { stuck.Stop() })
	msgs := make([][]byte, 400)
	for i := range msgs {
		msgs[i] = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, i+1, tool, args)
	}
	n := 0
	call := func(msg []byte) {
		n++
		stuck.Reset(asyncCallWait)
		if !hc.SendAsync(ctx, msg, time.Time{}, done) {
			lc.mu.Lock()
			idle, open := len(lc.idle), len(lc.open)
			lc.mu.Unlock()
			tb.Fatalf("call %d: SendAsync declined a tools/call (%d of %d connections idle)", n, idle, open)
		}
		select {
		case err := <-sent:
			if err != nil {
				tb.Fatalf("call %d: %v", n, err)
			}
		case <-stuck.C:
			tb.Fatalf("call %d: its done was not called within %v", n, asyncCallWait)
		}
		select {
		case in, ok := <-c.Incoming():
			if !ok {
				tb.Fatalf("call %d: the connection ended: %v", n, c.Err())
			}
			if !answered(in) {
				tb.Fatalf("call %d: got %s, want its answer", n, in.Msg)
			}
		case <-stuck.C:
			tb.Fatalf("call %d: no answer within %v", n, asyncCallWait)
		}
		select {
		case <-ended:
		case <-stuck.C:
			tb.Fatalf("call %d: answered, but its answer did not end within %v (an event stream never closed?)", n, asyncCallWait)
		}
		// The answer ended on the connection's goroutine: its connection
		// is idle again (the next call takes it), none dialed meanwhile.
		if !lc.allIdle() {
			lc.mu.Lock()
			idle, open, dialing := len(lc.idle), len(lc.open), lc.dialing
			lc.mu.Unlock()
			tb.Fatalf("call %d: its answer ended, but %d of %d connections are idle (%d dialing): one was not given back", n, idle, open, dialing)
		}
	}
	// The handshake's answer is read on a goroutine of its own, not the
	// connection's (an event stream from the go-sdk server): its
	// connection is given back at its end, which onStarted does not see.
	if !waitFor(lc.allIdle) {
		tb.Fatal("the connection of the handshake was not given back within 10 s")
	}
	for _, m := range msgs[:50] { // warm: the connection pool, the buffers
		call(m)
	}
	return func(i int) { call(msgs[(50+i)%len(msgs)]) }
}

// asyncCallWait bounds each of asyncCaller's calls: far more than one
// takes on a loaded machine (milliseconds), so that a lost answer or a
// stream that never ends fails with its call's number, not at the
// test's timeout.
const asyncCallWait = time.Minute

// TestMetaHeadersCanonical: metaHeaders are looked up in an answer's
// Header as they are, so each must be in the form its keys are.
func TestMetaHeadersCanonical(t *testing.T) {
	for _, k := range append([]string{"Content-Type"}, metaHeaders...) {
		if c := http.CanonicalHeaderKey(k); c != k {
			t.Errorf("%q is looked up as it is, but an answer's key is %q", k, c)
		}
	}
}

// allIdle reports whether every connection of lc is idle, and none is
// being dialed.
func (lc *leanClient) allIdle() bool {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	return len(lc.idle) == len(lc.open) && lc.dialing == 0
}
