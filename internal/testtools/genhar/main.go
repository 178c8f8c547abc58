// Command genhar records the HTTP traffic of a real MCP session as a HAR
// 1.2 file, the way a browser's network panel or a proxy captures it: the
// official Go SDK client (github.com/modelcontextprotocol/go-sdk) runs the
// session of testtape.ScriptAll against a Streamable HTTP server, through
// an http.RoundTripper that writes each exchange as an entry (request
// headers and body, status, response headers and body, times). It also
// makes one request that is not MCP (a GET of the endpoint as a browser
// would, Accept: text/html), and sends an Authorization header that the
// importer must never keep. It writes the HAR itself, without package
// tape, so that tape's importer is tested against an independent writer.
//
// The fixtures under tape/testdata were made with the go-sdk conformance
// server (the one pinned by the tool directive in go.mod):
//
//	go tool everything-server -http 127.0.0.1:8931 &
//	go run ./internal/testtools/genhar -url http://127.0.0.1:8931/ -version 2025-11-25 -o tape/testdata/gosdk-2025.har
//	go tool everything-server -http 127.0.0.1:8932 -stateless &
//	go run ./internal/testtools/genhar -url http://127.0.0.1:8932/ -base64 -o tape/testdata/gosdk-2026.har
package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replayctl/replayctl/internal/testtape"
)

func main() {
	var (
		url     = flag.String("url", "", "Streamable HTTP endpoint of the server (required)")
		version = flag.String("version", "", `protocol version the client asks for ("": its newest, 2026-07-28)`)
		b64     = flag.Bool("base64", false, "store response bodies base64-encoded, as some recorders do")
		out     = flag.String("o", "", "output HAR file (required)")
	)
	flag.Parse()
	if *url == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "genhar: want -url URL -o FILE")
		os.Exit(2)
	}
	if err := run(*url, *version, *b64, *out); err != nil {
		fmt.Fprintln(os.Stderr, "genhar:", err)
		os.Exit(1)
	}
}

func run(url, version string, b64 bool, out string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rec := &recorder{next: http.DefaultTransport, base64: b64}
	hc := &http.Client{Transport: rec}

	// A request that is not MCP: the endpoint opened as a page.
	if req, err := http.NewRequestWithContext(ctx, "GET", url, nil); err == nil {
		req.Header.Set("Accept", "text/html")
		if resp, err := hc.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}

	c := mcp.NewClient(&mcp.Implementation{Name: "genhar", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: testtape.ElicitContent}, nil
		},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "fake", Content: &mcp.TextContent{Text: testtape.SampleText}}, nil
		},
	})
	c.AddRoots(testtape.Roots...)
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, opts)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	if err := testtape.ScriptAll(ctx, cs); err != nil {
		cs.Close()
		return fmt.Errorf("script: %w", err)
	}
	if err := cs.Close(); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	rec.wait()
	return rec.write(out)
}

// recorder is an http.RoundTripper that keeps every exchange as a HAR
// entry, written when the response body has been read to its end or
// closed.
type recorder struct {
	next   http.RoundTripper
	base64 bool

	mu      sync.Mutex // guards entries and wg's use
	entries []entry
	wg      sync.WaitGroup
}

type nv struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type entry struct {
	StartedDateTime string         `json:"startedDateTime"`
	Time            float64        `json:"time"`
	Request         map[string]any `json:"request"`
	Response        map[string]any `json:"response"`
	Cache           struct{}       `json:"cache"`
	Timings         map[string]any `json:"timings"`
	Connection      string         `json:"connection,omitempty"`
	start           time.Time
}

func headers(h http.Header) []nv {
	out := []nv{}
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range h[k] {
			out = append(out, nv{k, v})
		}
	}
	return out
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer genhar-secret-token")
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	start := time.Now()
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	headersAt := time.Now()
	e := entry{StartedDateTime: start.UTC().Format("2006-01-02T15:04:05.000000Z"), start: start}
	e.Request = map[string]any{
		"method": req.Method, "url": req.URL.String(), "httpVersion": "HTTP/1.1",
		"cookies": []nv{}, "headers": headers(req.Header), "queryString": []nv{},
		"headersSize": -1, "bodySize": len(body),
	}
	if req.Method == "POST" {
		e.Request["postData"] = map[string]any{"mimeType": req.Header.Get("Content-Type"), "text": string(body)}
	}
	r.mu.Lock()
	r.wg.Add(1)
	r.mu.Unlock()
	resp.Body = &tee{rc: resp.Body, done: func(b []byte) {
		end := time.Now()
		content := map[string]any{"size": len(b), "mimeType": resp.Header.Get("Content-Type"), "text": string(b)}
		if r.base64 && len(b) > 0 {
			content["text"], content["encoding"] = base64.StdEncoding.EncodeToString(b), "base64"
		}
		e.Response = map[string]any{
			"status": resp.StatusCode, "statusText": http.StatusText(resp.StatusCode), "httpVersion": "HTTP/1.1",
			"cookies": []nv{}, "headers": headers(resp.Header), "content": content, "redirectURL": "",
			"headersSize": -1, "bodySize": len(b),
		}
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		e.Time = ms(end.Sub(start))
		e.Timings = map[string]any{"blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 0,
			"wait": ms(headersAt.Sub(start)), "receive": ms(end.Sub(headersAt))}
		r.mu.Lock()
		r.entries = append(r.entries, e)
		r.mu.Unlock()
		r.wg.Done()
	}}
	return resp, nil
}

func (r *recorder) wait() {
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		fmt.Fprintln(os.Stderr, "genhar: some response bodies were never closed; writing what is complete")
	}
}

func (r *recorder) write(path string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	sort.SliceStable(r.entries, func(i, j int) bool { return r.entries[i].start.Before(r.entries[j].start) })
	doc := map[string]any{"log": map[string]any{
		"version": "1.2",
		"creator": map[string]string{"name": "genhar (replayctl internal/testtools)", "version": "1"},
		"pages":   []any{},
		"entries": r.entries,
	}}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// tee keeps what is read of a body and reports it once, at EOF or Close.
type tee struct {
	rc   io.ReadCloser
	buf  bytes.Buffer
	once sync.Once
	done func([]byte)
}

func (t *tee) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	t.buf.Write(p[:n])
	if err != nil {
		t.finish()
	}
	return n, err
}

func (t *tee) Close() error {
	err := t.rc.Close()
	t.finish()
	return err
}

func (t *tee) finish() { t.once.Do(func() { t.done(t.buf.Bytes()) }) }
