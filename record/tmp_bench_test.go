package record_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testserver"
)

func BenchmarkPlainProxyAdded(b *testing.B) {
	upstream := testserver.GoSDKHTTPStateless(b)
	u, _ := url.Parse(upstream)
	rp := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) { pr.Out.URL.Scheme = u.Scheme; pr.Out.URL.Host = u.Host; pr.Out.Host = u.Host }, FlushInterval: -1,
		Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		rp.ServeHTTP(w, r)
	}))
	defer srv.Close()
	defer rp.Transport.(*http.Transport).CloseIdleConnections()
	tr := &http.Transport{MaxIdleConnsPerHost: 4}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	for range 50 {
		post(b, hc, upstream)
		post(b, hc, srv.URL+"/")
	}
	var direct, proxied []time.Duration
	for b.Loop() {
		t0 := time.Now()
		post(b, hc, upstream)
		t1 := time.Now()
		post(b, hc, srv.URL+"/")
		direct = append(direct, t1.Sub(t0))
		proxied = append(proxied, time.Since(t1))
	}
	d, pr := p50(direct), p50(proxied)
	b.ReportMetric(float64((pr - d).Microseconds()), "p50-added-µs")

}
