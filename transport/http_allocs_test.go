package transport

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testserver"
)

// maxHTTPAllocsPerCall bounds what one tools/call over Streamable HTTP
// allocates on the client's side, sent and its JSON answer received:
// the cost per request of the HTTP client path (issue 24), as a count.
// It was 73 when written (77 before the shared header values and the
// media type's fast path), net/http's own share included.
const maxHTTPAllocsPerCall = 75

func TestHTTPAllocsPerCall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the slow test server")
	}
	if raceDetector {
		t.Skip("the race detector allocates on its own: run without -race")
	}
	call := slowCaller(t)
	i := 0
	per := testing.AllocsPerRun(300, func() { call(i); i++ })
	t.Logf("%.1f allocations per tools/call", per)
	if per > maxHTTPAllocsPerCall {
		t.Errorf("%.1f allocations per tools/call, want at most %d", per, maxHTTPAllocsPerCall)
	}
}

// BenchmarkHTTPCall sends tools/call after tools/call over one
// Streamable HTTP connection to the slow test server answering at once
// (JSON), each after the previous answer: the client's cost per request,
// for allocations (-benchmem) and instruction counts (valgrind).
func BenchmarkHTTPCall(b *testing.B) {
	call := slowCaller(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		call(i)
		i++
	}
}

// slowCaller connects to the slow test server (no delay), makes the
// handshake and 50 calls to warm the connection, and returns a function
// that makes one more tools/call and waits for its answer.
func slowCaller(tb testing.TB) func(i int) {
	url := testserver.SlowHTTP(tb, "-delay", "0s")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	tb.Cleanup(cancel)
	c, err := HTTP{URL: url}.Dial(ctx, "s1")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	call := func(msg string) {
		if err := c.Send(ctx, []byte(msg)); err != nil {
			tb.Fatal(err)
		}
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
	call(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if err := c.Send(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		tb.Fatal(err)
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
