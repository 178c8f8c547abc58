package record_test

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/record"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// TestHTTPProxyLegacyAbsoluteEndpoint: a legacy server that announces its
// endpoint as an absolute URL has it rewritten to the proxy's origin
// (the only bytes the proxy changes); the client's posts there are
// recorded in the stream's session, and the answers that come on the
// stream too.
func TestHTTPProxyLegacyAbsoluteEndpoint(t *testing.T) {
	posted := make(chan []byte, 1)
	var upURL string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/sse":
			w.Header().Set("Content-Type", "text/event-stream")
			sw := transport.NewSSEWriter(w)
			_ = sw.Write(transport.SSEEvent{Event: "endpoint", Data: []byte(upURL + "/message?sessionId=abc")})
			select {
			case b := <-posted:
				_ = sw.Write(transport.SSEEvent{Event: "message", Data: []byte(`{"jsonrpc":"2.0","id":1,"result":{"echo":` + string(b) + `}}`)})
			case <-r.Context().Done():
			}
		case r.Method == http.MethodPost && r.URL.Path == "/message" && r.URL.Query().Get("sessionId") == "abc":
			b, _ := io.ReadAll(r.Body)
			w.WriteHeader(http.StatusAccepted)
			posted <- b
		default:
			http.NotFound(w, r)
		}
	}))
	defer up.Close()
	upURL = up.URL
	path := filepath.Join(t.TempDir(), "legacy.jsonl")
	p, err := record.NewHTTP(up.URL+"/sse", func(h tape.Header) (*tape.Writer, error) { return tape.Create(path, h) })
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/sse")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	sr := transport.NewSSEReader(br)
	ev, err := sr.Next()
	want := srv.URL + "/message?sessionId=abc"
	if err != nil || ev.Event != "endpoint" || string(ev.Data) != want {
		t.Fatalf("endpoint event %+v (%v), want data %s", ev, err, want)
	}
	pr, err := http.Post(string(ev.Data), "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil || pr.StatusCode != http.StatusAccepted {
		t.Fatalf("post to the endpoint: %v %v", pr, err)
	}
	pr.Body.Close()
	ev, err = sr.Next()
	if err != nil || !strings.Contains(string(ev.Data), `"echo":{"jsonrpc"`) {
		t.Fatalf("answer event %+v, %v", ev, err)
	}
	resp.Body.Close()
	http.DefaultClient.CloseIdleConnections()
	srv.Close()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	h, msgs := readTape(t, path)
	if h.Transport != record.TransportLegacySSE {
		t.Errorf("transport %q, want %q", h.Transport, record.TransportLegacySSE)
	}
	if len(msgs) != 2 || msgs[0].Dir != tape.C2S || msgs[1].Dir != tape.S2C || msgs[0].Session != "s1" || msgs[1].Session != "s1" ||
		msgs[1].SSE == nil || msgs[1].SSE.Event != "message" {
		t.Fatalf("tape: %+v", msgs)
	}
}
