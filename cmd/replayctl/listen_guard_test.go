package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/replayctl/replayctl/internal/testserver"
)

// The DNS rebinding protection of every listener (issue 22): a page on
// evil.example whose name an attacker rebinds to 127.0.0.1 sends its
// requests with Host: evil.example (and its own Origin); a listener on
// loopback must refuse them, and the recording proxy must not relay them
// to a server that would have refused them itself.

const foreignHost = "evil.example"

// initializeBody is a 2025-11-25 initialize request.
const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"rebinding-probe","version":"1"}}}`

// probe sends method to rawURL with the Host header host ("": the URL's)
// and Origin origin ("": none), a POST carrying initializeBody, and
// returns the status and (the start of) the body. A GET's stream is not
// read beyond its status.
func probe(t *testing.T, method, rawURL, host, origin string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), serveWait)
	defer cancel()
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader(initializeBody)
	}
	req, err := http.NewRequestWithContext(ctx, method, rawURL, body)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatalf("%s %s (Host %q, Origin %q): %v", method, rawURL, host, origin, err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") == "text/event-stream" {
		return resp.StatusCode, ""
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, string(b)
}

// TestRecordProxyRefusesForeignHost: the go-sdk server answers a request
// with a foreign Host 403 itself; through the recording proxy (record
// --listen, and serve --mode record) it must be 403 as well, while the
// proxy's own loopback names still get through.
func TestRecordProxyRefusesForeignHost(t *testing.T) {
	upstream := testserver.GoSDKHTTP(t)
	if code, body := probe(t, http.MethodPost, upstream, foreignHost, ""); code != http.StatusForbidden {
		t.Fatalf("the go-sdk server itself answered Host %s with %d %s, want 403: the test's premise is gone", foreignHost, code, body)
	}
	proxies := map[string]func(t *testing.T) string{
		"record": func(t *testing.T) string {
			return startHTTPRecorder(t, upstream, filepath.Join(t.TempDir(), "rec.jsonl")).url
		},
		"serve-mode-record": func(t *testing.T) string {
			return startServe(t, "--mode", "record", "--upstream", upstream, filepath.Join(t.TempDir(), "rec.jsonl")).url
		},
	}
	for name, start := range proxies {
		t.Run(name, func(t *testing.T) {
			proxy := start(t)
			u, err := url.Parse(proxy)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				host, origin string
				want         int
			}{
				{foreignHost, "", http.StatusForbidden},
				{foreignHost, "http://" + foreignHost, http.StatusForbidden},
				{"localhost:" + u.Port(), "", http.StatusOK},
				{u.Host, "http://" + u.Host, http.StatusOK},
				{u.Host, "http://" + foreignHost, http.StatusForbidden},
			} {
				if code, body := probe(t, http.MethodPost, proxy, c.host, c.origin); code != c.want {
					t.Errorf("POST initialize with Host %q, Origin %q through %s: %d %s, want %d", c.host, c.origin, name, code, body, c.want)
				}
			}
		})
	}
}

// TestRecordProxyRelaysOnlyTheMCPEndpoint: the recording proxy relays
// the upstream URL's path, nothing else: GET /private.txt is answered
// 404 by the proxy, and never reaches the upstream.
func TestRecordProxyRelaysOnlyTheMCPEndpoint(t *testing.T) {
	var mu sync.Mutex
	var paths []string // what reached the upstream, guarded by mu
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		if r.URL.Path == "/private.txt" {
			_, _ = io.WriteString(w, "the upstream's private file")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"paths","version":"1"}}}`)
	}))
	t.Cleanup(upstream.Close)
	rec := startHTTPRecorder(t, upstream.URL+"/mcp", filepath.Join(t.TempDir(), "rec.jsonl"))
	base := strings.TrimSuffix(rec.url, "/mcp")
	for _, path := range []string{"/private.txt", "/", "/mcp/../private.txt", "/mcpx", "/sse"} {
		if code, body := probe(t, http.MethodGet, base+path, "", ""); code != http.StatusNotFound {
			t.Errorf("GET %s through the proxy: %d %q, want 404", path, code, body)
		}
	}
	if code, body := probe(t, http.MethodPost, rec.url, "", ""); code != http.StatusOK {
		t.Errorf("POST /mcp through the proxy: %d %q, want 200 (the MCP endpoint is relayed)", code, body)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(paths) != 1 || paths[0] != "/mcp" {
		t.Errorf("the upstream was asked for %q, want only [/mcp]", paths)
	}
}

// TestServeRefusesForeignHost: serve's listeners (Streamable HTTP at
// /mcp, legacy HTTP+SSE at /sse), in replay mode and in --mode new,
// refuse a foreign Host even without an Origin header, and answer their
// own loopback names.
func TestServeRefusesForeignHost(t *testing.T) {
	recorded := recordedTape(t, "2025-11-25")
	modes := map[string]func(t *testing.T) []string{
		"replay": func(t *testing.T) []string { return []string{recorded} },
		"new": func(t *testing.T) []string {
			return []string{"--mode", "new", "--upstream", testserver.GoSDKHTTP(t), copyTape(t, recorded)}
		},
	}
	for name, args := range modes {
		t.Run(name, func(t *testing.T) {
			p := startServe(t, args(t)...)
			u, err := url.Parse(p.url)
			if err != nil {
				t.Fatal(err)
			}
			sse := "http://" + u.Host + "/sse"
			for _, c := range []struct {
				method, url, host, origin string
				want                      int
			}{
				{http.MethodGet, sse, foreignHost, "", http.StatusForbidden},
				{http.MethodPost, p.url, foreignHost, "", http.StatusForbidden},
				{http.MethodPost, p.url, foreignHost + ":" + u.Port(), "http://" + foreignHost, http.StatusForbidden},
				{http.MethodGet, sse, "localhost:" + u.Port(), "", http.StatusOK},
				{http.MethodPost, p.url, "[::1]:" + u.Port(), "http://localhost:6274", http.StatusOK},
			} {
				if code, body := probe(t, c.method, c.url, c.host, c.origin); code != c.want {
					t.Errorf("%s %s with Host %q, Origin %q: %d %s, want %d", c.method, c.url, c.host, c.origin, code, body, c.want)
				}
			}
		})
	}
}

// copyTape copies the tape at path into the test's own folder (serve
// --mode new writes to its tape).
func copyTape(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "tape.jsonl")
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDNSRebindingConformance runs the MCP conformance suite's
// dns-rebinding-protection scenario against the go-sdk server directly
// and through the recording proxy: the outcome must be the same, every
// check passing.
func TestDNSRebindingConformance(t *testing.T) {
	upstream := testserver.GoSDKHTTP(t)
	rec := startHTTPRecorder(t, upstream, filepath.Join(t.TempDir(), "rec.jsonl"))
	direct := testserver.Conformance(t, upstream, "dns-rebinding-protection")
	proxied := testserver.Conformance(t, rec.url, "dns-rebinding-protection")
	outcome := func(checks []testserver.ConformanceCheck) map[string]string {
		m := map[string]string{}
		for _, c := range checks {
			m[c.ID] = c.Status
		}
		return m
	}
	want, got := outcome(direct), outcome(proxied)
	for _, c := range direct {
		if c.Status != "SUCCESS" {
			t.Errorf("directly, check %s: %s %s %s", c.ID, c.Status, c.ErrorMessage, c.Details)
		}
	}
	for _, c := range proxied {
		if c.Status != want[c.ID] {
			t.Errorf("through record --listen, check %s: %s (%s %s), directly %s", c.ID, c.Status, c.ErrorMessage, c.Details, want[c.ID])
		}
	}
	if len(got) != len(want) || len(want) < 2 {
		t.Errorf("checks through the proxy %v, directly %v", got, want)
	}
}

// TestAllowFlags: --allow-host and --allow-origin let named hosts and
// browser origins through, in every mode that listens; other names are
// still refused.
func TestAllowFlags(t *testing.T) {
	upstream := testserver.GoSDKHTTP(t)
	recorded := recordedTape(t, "2025-11-25")
	allow := []string{"--allow-host", "mcp.test", "--allow-origin", "http://app.test:3000"}
	listeners := map[string]func(t *testing.T) string{
		"record": func(t *testing.T) string {
			return startHTTPRecorder(t, upstream, filepath.Join(t.TempDir(), "rec.jsonl"), allow...).url
		},
		"serve-mode-record": func(t *testing.T) string {
			return startServe(t, append(allow, "--mode", "record", "--upstream", upstream, filepath.Join(t.TempDir(), "rec.jsonl"))...).url
		},
		"serve": func(t *testing.T) string { return startServe(t, append(allow, recorded)...).url },
	}
	for name, start := range listeners {
		t.Run(name, func(t *testing.T) {
			endpoint := start(t)
			for _, c := range []struct {
				host, origin string
				want         int
			}{
				{"mcp.test", "http://app.test:3000", http.StatusOK},
				{"MCP.test:8080", "", http.StatusOK},
				{"other.test", "", http.StatusForbidden},
				{"mcp.test", "http://app.test:3001", http.StatusForbidden},
			} {
				if code, body := probe(t, http.MethodPost, endpoint, c.host, c.origin); code != c.want {
					t.Errorf("POST initialize with Host %q, Origin %q: %d %s, want %d", c.host, c.origin, code, body, c.want)
				}
			}
		})
	}
}

// TestAllowFlagsRefusedOverStdio: a stdio recording has no listener to
// open to other names.
func TestAllowFlagsRefusedOverStdio(t *testing.T) {
	res := replayctl(t, "record", "-o", filepath.Join(t.TempDir(), "t.jsonl"), "--allow-host", "mcp.test", "--", "true")
	if res.code != 2 || !strings.Contains(res.stderr, "--allow-host is for the HTTP mode") {
		t.Errorf("record --allow-host over stdio: exit %d, stderr %q; want 2 and a word on --allow-host", res.code, res.stderr)
	}
}

// TestBeyondLoopbackWarning: a listener that other machines can reach
// says so, and how to narrow it; a loopback one says nothing.
func TestBeyondLoopbackWarning(t *testing.T) {
	for _, c := range []struct {
		addr net.Addr
		warn bool
	}{
		{&net.TCPAddr{IP: net.IPv4zero, Port: 8080}, true},
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 8080}, true},
		{&net.TCPAddr{IP: net.ParseIP("192.0.2.10"), Port: 8080}, true},
		{&net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 8080}, false},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 8080}, false},
	} {
		w := beyondLoopbackWarning(c.addr)
		switch {
		case c.warn && (!strings.HasPrefix(w, "warning: listening on "+c.addr.String()) || !strings.Contains(w, "--allow-host") || !strings.Contains(w, "127.0.0.1")):
			t.Errorf("%s: warning %q, want one naming the address, --allow-host and 127.0.0.1", c.addr, w)
		case !c.warn && w != "":
			t.Errorf("%s: warning %q, want none on loopback", c.addr, w)
		}
	}
}
