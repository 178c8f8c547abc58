package record_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/record"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// TestHTTPProxyLongStreamMemory streams 40 MiB of SSE events through the
// proxy: the heap after the last event is no larger than after the first
// tenth (within 2 MiB), and every event is on the tape.
func TestHTTPProxyLongStreamMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 40 MiB")
	}
	const events = 40000
	payload := strings.Repeat("x", 1000)
	heap := make([]uint64, 0, 2)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		sw := transport.NewSSEWriter(w)
		for i := range events {
			if i == events/10 || i == events-1 {
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				heap = append(heap, ms.HeapAlloc)
			}
			msg := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":%d,"message":"%s"}}`, i, payload)
			if err := sw.Write(transport.SSEEvent{ID: fmt.Sprint(i), Data: []byte(msg)}); err != nil {
				return
			}
		}
		_ = sw.Write(transport.SSEEvent{Data: []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)})
	}))
	defer up.Close()
	path := filepath.Join(t.TempDir(), "long.jsonl")
	p, err := record.NewHTTP(up.URL+"/mcp", func(h tape.Header) (*tape.Writer, error) { return tape.Create(path, h) })
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"long"}}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := transport.NewSSEReader(resp.Body), error(nil)
	n := 0
	for ; err == nil; n++ {
		_, err = got.Next()
	}
	resp.Body.Close()
	http.DefaultClient.CloseIdleConnections()
	srv.Close()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if n-1 != events+1 {
		t.Fatalf("the client got %d events, want %d", n-1, events+1)
	}
	if p.Messages() != events+2 {
		t.Errorf("%d messages on the tape, want %d", p.Messages(), events+2)
	}
	if len(heap) != 2 {
		t.Fatalf("heap measured %d times", len(heap))
	}
	t.Logf("live heap after a GC: %d KiB after %d events, %d KiB after %d", heap[0]>>10, events/10, heap[1]>>10, events)
	if heap[1] > heap[0]+2<<20 {
		t.Errorf("heap grew from %d KiB to %d KiB over the stream", heap[0]>>10, heap[1]>>10)
	}
}
