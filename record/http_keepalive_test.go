package record_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
)

// closingUpstream is an HTTP/1.1 MCP server on loopback that answers
// every POST {"result":{}} with its id, keeping the connection alive,
// except the second request on its first connection: that one it reads
// and closes the connection without an answer, as a Node (or uvicorn)
// server does when its keep-alive timeout (5 s) ends an idle connection
// just as the proxy sends the next request on it. It returns the
// endpoint and how many connections it accepted so far.
func closingUpstream(t *testing.T) (string, func() int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex // guards conns
		conns []net.Conn
		wg    sync.WaitGroup
	)
	serve := func(c net.Conn, first bool) {
		defer wg.Done()
		defer c.Close()
		br := bufio.NewReader(c)
		for n := 0; ; n++ {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			body, _ := io.ReadAll(req.Body)
			if first && n == 1 {
				return // closed unanswered
			}
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal(body, &m)
			answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
			if _, err := fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(answer), answer); err != nil {
				return
			}
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			first := len(conns) == 1
			mu.Unlock()
			wg.Add(1)
			go serve(c, first)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return "http://" + ln.Addr().String() + "/mcp", func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(conns)
	}
}

// TestHTTPProxyUpstreamClosesKeptAlive: the upstream closes a kept-alive
// connection unanswered as the proxy sends a client's POST on it (the
// race of a Node server's 5 s keep-alive timeout with the proxy's reuse
// of its idle connection, which cut a legacy SSE client's roots/list
// answer under load in TestHTTPProxyEverything: the go-sdk client then
// closes its session). The proxy sends the request again on a new
// connection: the client gets the upstream's answer, not 502.
func TestHTTPProxyUpstreamClosesKeptAlive(t *testing.T) {
	upstream, accepted := closingUpstream(t)
	srv, _, _ := startProxy(t, upstream)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	for id := 1; id <= 3; id++ {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id)
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+"/mcp", bytes.NewReader([]byte(body)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id)
		if resp.StatusCode != http.StatusOK || string(got) != want {
			t.Fatalf("request %d: got %d %s, want 200 %s (upstream connections: %d)", id, resp.StatusCode, got, want, accepted())
		}
	}
	if n := accepted(); n != 2 {
		t.Errorf("the upstream accepted %d connections, want 2 (the one it closed, the one the request was sent again on)", n)
	}
}
