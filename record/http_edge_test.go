package record_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/record"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// edgeServer answers by the request's method name with the HTTP cases a
// recorder must keep: errors with their headers, SSE metadata, 202, a
// batch, gzip, a resumed GET stream, an event over the limit.
func edgeServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/event-stream")
			sw := transport.NewSSEWriter(w)
			_ = sw.Write(transport.SSEEvent{ID: "e8", Event: "message", Data: []byte(`{"jsonrpc":"2.0","method":"notifications/resumed"}`)})
			return
		}
		var m struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(body, &m)
		switch {
		case bytes.HasPrefix(body, []byte("[")):
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}}]`))
		case m.Method == "needs/auth":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"`)
			w.Header().Set("Set-Cookie", "session=cookie-secret")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"unauthorized"}}`))
		case m.Method == "plain/auth":
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
			http.Error(w, "no token", http.StatusUnauthorized)
		case m.Method == "forbidden":
			w.WriteHeader(http.StatusForbidden)
		case m.Method == "too/many":
			w.Header().Set("Retry-After", "3")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		case m.Method == "notifications/initialized":
			w.WriteHeader(http.StatusAccepted)
		case m.Method == "sse/meta":
			w.Header().Set("Content-Type", "text/event-stream")
			sw := transport.NewSSEWriter(w)
			_ = sw.Write(transport.SSEEvent{ID: "7", HasID: true, Event: "message", Retry: 2500, Data: []byte("{\"jsonrpc\":\"2.0\",\n\"method\":\"notifications/message\",\"params\":{}}")})
			_ = sw.Comment("keep-alive")
			_ = sw.Write(transport.SSEEvent{ID: "8", Data: []byte(`{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`)})
		case m.Method == "sse/big":
			w.Header().Set("Content-Type", "text/event-stream")
			sw := transport.NewSSEWriter(w)
			_ = sw.Write(transport.SSEEvent{Data: []byte(`{"jsonrpc":"2.0","method":"big","params":{"s":"` + strings.Repeat("x", 4096) + `"}}`)})
			_ = sw.Write(transport.SSEEvent{Data: []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)})
		case m.Method == "gzip/json":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			_, _ = zw.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"zipped":true}}`))
			_ = zw.Close()
		default:
			http.Error(w, "unknown", http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// do sends one request through the proxy and returns the status, the
// headers and the body the client got.
func do(t *testing.T, method, url, body string, hdr map[string]string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+secretToken)
	req.Header.Set("Cookie", "c="+secretToken)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}

// TestHTTPProxyEdges checks, case by case, what the client gets (the
// upstream's bytes) and what the tape holds.
func TestHTTPProxyEdges(t *testing.T) {
	up := edgeServer(t)
	dir := t.TempDir()
	path := dir + "/edges.jsonl"
	p, err := record.NewHTTP(up.URL+"/mcp", func(h tape.Header) (*tape.Writer, error) { return tape.Create(path, h) }, record.WithMaxMessage(1024))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	const sid = mcp.HeaderSessionID
	cases := []struct {
		name, method, body string
		hdr                map[string]string
		status             int
	}{
		{"401 with a JSON-RPC error", "POST", `{"jsonrpc":"2.0","id":1,"method":"needs/auth"}`, map[string]string{sid: "A"}, 401},
		{"plain-text 401", "POST", `{"jsonrpc":"2.0","id":1,"method":"plain/auth"}`, map[string]string{sid: "A"}, 401},
		{"empty 403", "POST", `{"jsonrpc":"2.0","id":1,"method":"forbidden"}`, map[string]string{sid: "A"}, 403},
		{"plain-text 404", "POST", `{"jsonrpc":"2.0","id":1,"method":"no/such"}`, map[string]string{sid: "A"}, 404},
		{"429 without a message", "POST", `{"jsonrpc":"2.0","id":1,"method":"too/many"}`, map[string]string{sid: "A"}, 429},
		{"202", "POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, map[string]string{sid: "A"}, 202},
		{"batch", "POST", `[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"}]`, map[string]string{sid: "A"}, 200},
		{"sse metadata", "POST", `{"jsonrpc":"2.0","id":1,"method":"sse/meta"}`, map[string]string{sid: "B", mcp.HeaderMethod: "sse/meta"}, 200},
		{"sse event over the limit", "POST", `{"jsonrpc":"2.0","id":1,"method":"sse/big"}`, map[string]string{sid: "B"}, 200},
		{"gzip", "POST", `{"jsonrpc":"2.0","id":1,"method":"gzip/json"}`, map[string]string{sid: "B", "Accept-Encoding": "gzip"}, 200},
		{"resumed GET", "GET", "", map[string]string{sid: "B", "Last-Event-ID": "e7"}, 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, h, got := do(t, c.method, srv.URL+"/mcp", c.body, c.hdr)
			wst, wh, want := do(t, c.method, up.URL+"/mcp", c.body, c.hdr)
			if st != c.status || wst != c.status || !bytes.Equal(got, want) {
				t.Errorf("through the proxy: %d %q; direct: %d %q; want status %d and the same bytes", st, got, wst, want, c.status)
			}
			for _, k := range []string{"Content-Type", "Www-Authenticate", "Retry-After", "Content-Encoding"} {
				if h.Get(k) != wh.Get(k) {
					t.Errorf("header %s: %q through the proxy, %q direct", k, h.Get(k), wh.Get(k))
				}
			}
		})
	}
	srv.Close()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if p.Dropped() != 1 {
		t.Errorf("%d messages not recorded, want 1 (the event over the limit)", p.Dropped())
	}
	raw, _ := io.ReadAll(must(t, path))
	for _, secret := range []string{secretToken, "cookie-secret"} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("%q is on the tape", secret)
		}
	}
	h, msgs := readTape(t, path)
	if h.ProtocolVersion != "" || h.Server.URL != up.URL+"/mcp" || h.Transport != record.TransportStreamableHTTP {
		t.Errorf("header %+v", h)
	}
	type want struct {
		session, dir, part string
		status             int
		header, value      string
		sse                *tape.SSEMeta
		extra              string
	}
	wants := []want{
		// A client message carries the status of its POST's answer, and
		// the answer headers that say why it was refused, next to its
		// request headers: kept whether the answer has a JSON-RPC body or
		// not, and on the tape before any message of the answer.
		{"s1", "c2s", `"needs/auth"`, 401, "Mcp-Session-Id", "A", nil, ""},
		{"s1", "s2c", `"unauthorized"`, 401, "Www-Authenticate", `Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"`, nil, ""},
		{"s1", "c2s", `"plain/auth"`, 401, "Www-Authenticate", `Bearer realm="mcp"`, nil, ""},
		{"s1", "c2s", `"forbidden"`, 403, "Mcp-Session-Id", "A", nil, ""},
		{"s1", "c2s", `"no/such"`, 404, "Content-Type", "application/json", nil, ""},
		{"s1", "c2s", `"too/many"`, 429, "Retry-After", "3", nil, ""},
		{"s1", "c2s", `"notifications/initialized"`, 202, "", "", nil, ""},
		{"s1", "c2s", `[{"jsonrpc":"2.0","id":1,"method":"a"}`, 200, "", "", nil, ""},
		{"s1", "s2c", `[{"jsonrpc":"2.0","id":1,"result":{}}`, 200, "Content-Type", "application/json", nil, ""},
		{"s2", "c2s", `"sse/meta"`, 200, "Mcp-Method", "sse/meta", nil, ""},
		{"s2", "s2c", `"notifications/message"`, 200, "Content-Type", "text/event-stream", &tape.SSEMeta{ID: "7", Event: "message", Retry: 2500}, ""},
		{"s2", "s2c", `"ok":true`, 200, "", "", &tape.SSEMeta{ID: "8"}, ""},
		{"s2", "c2s", `"sse/big"`, 200, "", "", nil, ""},
		// The event over the limit is left off; the answer after it in
		// its stream is not.
		{"s2", "s2c", `"result":{}`, 200, "Content-Type", "text/event-stream", nil, ""},
		{"s2", "c2s", `"gzip/json"`, 200, "", "", nil, ""},
		{"s2", "s2c", `"zipped":true`, 200, "", "", nil, ""},
		{"s2", "s2c", `"notifications/resumed"`, 200, "", "", &tape.SSEMeta{ID: "e8", Event: "message"}, `"e7"`},
	}
	if len(msgs) != len(wants) {
		for _, m := range msgs {
			t.Logf("%s %s %s", m.Session, m.Dir, m.Msg)
		}
		t.Fatalf("%d messages on the tape, want %d", len(msgs), len(wants))
	}
	for i, w := range wants {
		m := msgs[i]
		ok := m.Session == w.session && string(m.Dir) == w.dir && bytes.Contains(m.Msg, []byte(w.part))
		if m.HTTP == nil || m.HTTP.Status != w.status {
			ok = false
		}
		if w.header != "" && (m.HTTP == nil || len(m.HTTP.Headers[w.header]) != 1 || m.HTTP.Headers[w.header][0] != w.value) {
			ok = false
		}
		if (w.sse == nil) != (m.SSE == nil) || (w.sse != nil && *w.sse != *m.SSE) {
			ok = false
		}
		if w.extra != "" && string(m.Extra["last_event_id"]) != w.extra {
			ok = false
		}
		if m.HTTP != nil {
			for k := range m.HTTP.Headers {
				if tape.Sensitive(k) {
					ok = false
				}
			}
		}
		if !ok {
			t.Errorf("seq %d: %s %s %s http %+v sse %+v extra %s; want %+v", m.Seq, m.Session, m.Dir, m.Msg, m.HTTP, m.SSE, m.Extra, w)
		}
	}
}

// TestHTTPProxyUpstreamDown answers 502 with a JSON-RPC error naming the
// upstream, to the request's id.
func TestHTTPProxyUpstreamDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	upstream := "http://" + l.Addr().String() + "/mcp"
	l.Close() // nothing listens there now
	p, err := record.NewHTTP(upstream, func(h tape.Header) (*tape.Writer, error) { return tape.NewWriter(io.Discard, h) })
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	defer p.Close()
	st, h, body := do(t, "POST", srv.URL+"/mcp", `{"jsonrpc":"2.0","id":"q7","method":"tools/list"}`, nil)
	var m struct {
		ID    string `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &m); err != nil || st != http.StatusBadGateway || h.Get("Content-Type") != "application/json" ||
		m.ID != "q7" || m.Error.Code != record.CodeUpstreamUnreachable || !strings.Contains(m.Error.Message, upstream) {
		t.Errorf("got %d %s %q (%v), want 502 with a JSON-RPC error to q7 naming %s", st, h.Get("Content-Type"), body, err, upstream)
	}
}

func TestNewHTTPBadUpstream(t *testing.T) {
	for _, u := range []string{"", "localhost:8080", "ftp://x/y", "http://"} {
		if _, err := record.NewHTTP(u, nil); err == nil || !strings.Contains(err.Error(), "not an http") {
			t.Errorf("NewHTTP(%q): %v, want an error saying it is not an http URL", u, err)
		}
	}
}

func must(t *testing.T, path string) io.Reader {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(b)
}

// TestHTTPProxyStopped: Stop ends an open stream, and a request after it
// is answered 503 at once.
func TestHTTPProxyStopped(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_ = transport.NewSSEWriter(w).Write(transport.SSEEvent{Data: []byte(`{"jsonrpc":"2.0","method":"notifications/ready"}`)})
		<-r.Context().Done() // a stream the server never ends
	}))
	defer up.Close()
	p, err := record.NewHTTP(up.URL+"/mcp", func(h tape.Header) (*tape.Writer, error) { return tape.NewWriter(io.Discard, h) })
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	defer p.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/mcp", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sr := transport.NewSSEReader(resp.Body)
	if _, err := sr.Next(); err != nil {
		t.Fatal(err)
	}
	p.Stop()
	if _, err := sr.Next(); err == nil || ctx.Err() != nil {
		t.Errorf("the stream after Stop: %v (test context: %v), want it ended", err, ctx.Err())
	}
	st, _, body := do(t, "POST", srv.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"x"}`, nil)
	if st != http.StatusServiceUnavailable || !strings.Contains(string(body), "stopping") {
		t.Errorf("after Stop: %d %q, want 503 saying it is stopping", st, body)
	}
	http.DefaultClient.CloseIdleConnections()
}
