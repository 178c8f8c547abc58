package record_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testclient"
	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/record"
	"github.com/replayctl/replayctl/tape"
)

// TestHTTPProxyNoAnswer: a client message whose POST got no answer is on
// the tape all the same, without a status: one whose upstream cut the
// connection (the client gets the proxy's 502), and one whose answer
// never started when the proxy stopped. Its t_us is the time it came in.
func TestHTTPProxyNoAnswer(t *testing.T) {
	arrived := make(chan struct{}, 1)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch {
		case strings.Contains(string(body), `"cut"`):
			panic(http.ErrAbortHandler) // no status, no body: the connection is cut
		case strings.Contains(string(body), `"initialize"`):
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Mcp-Session-Id", "A")
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`)
		default: // "hang": the answer never starts
			arrived <- struct{}{}
			<-r.Context().Done()
		}
	}))
	defer up.Close()
	path := filepath.Join(t.TempDir(), "t.jsonl")
	p, err := record.NewHTTP(up.URL+"/mcp", func(h tape.Header) (*tape.Writer, error) { return tape.Create(path, h) })
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	hdr := map[string]string{"Mcp-Session-Id": "A"}
	if st, _, _ := do(t, "POST", srv.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`, nil); st != 200 {
		t.Fatalf("initialize: %d", st)
	}
	if st, _, _ := do(t, "POST", srv.URL+"/mcp", `{"jsonrpc":"2.0","id":2,"method":"cut"}`, hdr); st != http.StatusBadGateway {
		t.Fatalf("cut: %d, want the proxy's 502", st)
	}
	hung := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"hang"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Mcp-Session-Id", "A")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			hung <- 0
			return
		}
		resp.Body.Close()
		hung <- resp.StatusCode
	}()
	<-arrived
	stopped := time.Now() // after the proxy saw the request: its t_us must be before
	p.Stop()
	if st := <-hung; st != http.StatusServiceUnavailable {
		t.Errorf("the hung request after Stop: %d, want 503", st)
	}
	srv.Close()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	http.DefaultClient.CloseIdleConnections()
	h, msgs := readTape(t, path)
	if h.ProtocolVersion != "2025-11-25" {
		t.Errorf("header protocol_version %q, want 2025-11-25", h.ProtocolVersion)
	}
	if len(msgs) != 4 {
		t.Fatalf("%d messages on the tape, want 4: %+v", len(msgs), msgs)
	}
	for i, want := range []struct {
		part   string
		status int
	}{{`"initialize"`, 200}, {`"result"`, 200}, {`"cut"`, 0}, {`"hang"`, 0}} {
		m := msgs[i]
		if !strings.Contains(string(m.Msg), want.part) || m.HTTP == nil || m.HTTP.Status != want.status || (m.Dir == tape.C2S && m.HTTP.Headers["Content-Type"] == nil) {
			t.Errorf("seq %d: %s %s http %+v, want %s with status %d and its request headers", m.Seq, m.Dir, m.Msg, m.HTTP, want.part, want.status)
		}
	}
	start, err := time.Parse(time.RFC3339Nano, h.CreatedAt)
	if err != nil {
		t.Fatal(err)
	}
	if hang := start.Add(time.Duration(msgs[3].TUS) * time.Microsecond); !hang.Before(stopped) {
		t.Errorf("the hung request's t_us says %v, not before the proxy stopped (%v): want the time it was seen", hang, stopped)
	}
}

// TestHTTPProxyRefusedProbeVersion: the go-sdk client, left to choose its
// protocol, probes server-everything with a 2026-07-28 server/discover,
// which is refused (HTTP 400), and falls back to initialize with
// 2025-11-25: the tape's header says 2025-11-25, the version of the
// exchange the server accepted, as a stdio recording does.
func TestHTTPProxyRefusedProbeVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real client and server")
	}
	testserver.NeedEverything(t)
	upstream := testserver.EverythingHTTP(t)
	srv, p, path := startProxy(t, upstream)
	res := testclient.RunClient(t, testclient.Go, testclient.HTTP(srv.URL+"/mcp"), testclient.Options{Clients: 1, Timeout: time.Minute})
	if res.Status != 0 || len(res.Steps) == 0 {
		t.Fatalf("client through the proxy: exit %d, %d steps\nstderr:\n%s", res.Status, len(res.Steps), res.Stderr)
	}
	srv.Close()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	h, msgs := readTape(t, path)
	if h.ProtocolVersion != "2025-11-25" {
		t.Errorf("header protocol_version %q, want 2025-11-25 (the initialize the server accepted, not the refused probe's)", h.ProtocolVersion)
	}
	if len(msgs) < 2 || !strings.Contains(string(msgs[0].Msg), `"server/discover"`) || msgs[0].HTTP == nil || msgs[0].HTTP.Status != http.StatusBadRequest {
		t.Fatalf("the tape starts %+v, want the probe with its 400", msgs[:min(len(msgs), 2)])
	}
}
