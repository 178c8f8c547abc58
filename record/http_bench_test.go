package record_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/record"
	"github.com/replayctl/replayctl/tape"
)

// callBody is a stateless (2026-07-28) tools/call of test_simple_text.
const callBody = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_simple_text","arguments":{},` +
	`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}}}`

// post sends callBody to url with hc and reads the whole answer.
func post(tb testing.TB, hc *http.Client, url string) {
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(callBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(mcp.HeaderProtocolVersion, mcp.V20260728)
	req.Header.Set(mcp.HeaderMethod, "tools/call")
	req.Header.Set(mcp.HeaderName, "test_simple_text")
	resp, err := hc.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || !bytes.Contains(b, []byte("simple text")) {
		tb.Fatalf("status %d, %q, %v", resp.StatusCode, b, err)
	}
}

// BenchmarkHTTPProxyAdded measures what the recording proxy adds to a
// round trip: each iteration is one tools/call POST to the go-sdk
// conformance server (stateless) directly, and one through the proxy,
// which records both messages to a tape file. Reported: the p50 of each
// and of the difference, in microseconds. BenchmarkReverseProxyFloor is
// the same through a bare httputil.ReverseProxy that records nothing:
// what any HTTP hop costs on this machine.
func BenchmarkHTTPProxyAdded(b *testing.B) {
	upstream := testserver.GoSDKHTTPStateless(b)
	path := filepath.Join(b.TempDir(), "bench.jsonl")
	p, err := record.NewHTTP(upstream, func(h tape.Header) (*tape.Writer, error) { return tape.Create(path, h) })
	if err != nil {
		b.Fatal(err)
	}
	defer func() { p.Stop(); _ = p.Close() }()
	measureAdded(b, upstream, p)
}

func BenchmarkReverseProxyFloor(b *testing.B) {
	upstream := testserver.GoSDKHTTPStateless(b)
	u, _ := url.Parse(upstream)
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	defer tr.CloseIdleConnections()
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host, pr.Out.Host = u.Scheme, u.Host, u.Host
		},
		FlushInterval: -1,
		Transport:     tr,
	}
	// The body is read first, as the recording proxy does.
	measureAdded(b, upstream, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		rp.ServeHTTP(w, r)
	}))
}

// measureAdded times POSTs to upstream directly and through h, by turns,
// and reports the p50s.
func measureAdded(b *testing.B, upstream string, h http.Handler) {
	srv := httptest.NewServer(h)
	defer srv.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: 4}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	for range 50 { // warm both paths' connections
		post(b, hc, upstream)
		post(b, hc, srv.URL+"/")
	}
	var direct, proxied []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		post(b, hc, upstream)
		t1 := time.Now()
		post(b, hc, srv.URL+"/")
		direct = append(direct, t1.Sub(t0))
		proxied = append(proxied, time.Since(t1))
	}
	d, pr := p50(direct), p50(proxied)
	b.ReportMetric(float64(d.Microseconds()), "p50-direct-µs")
	b.ReportMetric(float64(pr.Microseconds()), "p50-proxied-µs")
	b.ReportMetric(float64((pr - d).Microseconds()), "p50-added-µs")
}

func p50(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
