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

// pingUpstream is an HTTP/1.1 MCP server on loopback that reads each
// request on each connection it accepts and asks do what becomes of it
// (conn: the connection's number, from 1 in the order accepted; n: the
// request's on it, from 0; id: its JSON-RPC id): answered
// {"result":{}} with its id, the connection kept alive, or, when do
// says cut, the connection closed unanswered after writing partial (the
// first bytes of an answer, or none). do is called on the connection's
// goroutine and may block. It returns the endpoint and how many
// connections it accepted so far.
func pingUpstream(t *testing.T, do func(conn, n, id int) (cut bool, partial string)) (string, func() int) {
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
	serve := func(c net.Conn, conn int) {
		defer wg.Done()
		defer c.Close()
		br := bufio.NewReader(c)
		for n := 0; ; n++ {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			body, _ := io.ReadAll(req.Body)
			var m struct {
				ID int `json:"id"`
			}
			_ = json.Unmarshal(body, &m)
			if cut, partial := do(conn, n, m.ID); cut {
				_, _ = io.WriteString(c, partial)
				return
			}
			answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, m.ID)
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
			conn := len(conns)
			mu.Unlock()
			wg.Add(1)
			go serve(c, conn)
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

// closingUpstream is a pingUpstream that answers every request except
// the second on its first connection: that one it reads and closes the
// connection without an answer, as a Node (or uvicorn) server does when
// its keep-alive timeout (5 s) ends an idle connection just as the proxy
// sends the next request on it. It returns the endpoint and how many
// connections it accepted so far.
func closingUpstream(t *testing.T) (string, func() int) {
	t.Helper()
	return pingUpstream(t, func(conn, n, _ int) (bool, string) { return conn == 1 && n == 1, "" })
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

// closesEveryKeptAlive is a pingUpstream that answers the first request
// on each connection and closes the connection at the second, having
// read it: unanswered, or with partial, after the first bytes of an
// answer (a status line). The first hold connections have their first
// request answered only once hold of them are in, so that the proxy
// keeps hold idle connections. It returns the endpoint and how many
// times the request of each id arrived.
func closesEveryKeptAlive(t *testing.T, hold int, partial bool) (string, func(id int) int) {
	t.Helper()
	var (
		mu       sync.Mutex // guards arrived and firsts
		arrived  = map[int]int{}
		firsts   int
		allFirst = make(chan struct{})
	)
	cut := ""
	if partial {
		cut = "HTTP/1.1 200 OK\r\n"
	}
	upstream, _ := pingUpstream(t, func(_, n, id int) (bool, string) {
		mu.Lock()
		arrived[id]++
		held := n == 0 && firsts < hold
		if n == 0 {
			if firsts++; firsts == hold {
				close(allFirst)
			}
		}
		mu.Unlock()
		if n == 1 {
			return true, cut // closed, unanswered
		}
		if held {
			select {
			case <-allFirst:
			case <-t.Context().Done():
				return true, ""
			}
		}
		return false, ""
	})
	return upstream, func(id int) int {
		mu.Lock()
		defer mu.Unlock()
		return arrived[id]
	}
}

// postPing sends a ping of id through the proxy at url and returns the
// status and body of its answer.
func postPing(t *testing.T, hc *http.Client, url string, id int) (int, string) {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, bytes.NewReader([]byte(body)))
	if err != nil {
		t.Error(err)
		return 0, ""
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		t.Error(err)
		return 0, ""
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, string(got)
}

// TestHTTPProxyResendsOnce: with an upstream that closes every kept-alive
// connection, a request that failed on one is sent again once, not once
// per idle connection the proxy holds, and on a new connection, which
// answers it; and a request whose connection was closed after the first
// bytes of an answer is never sent again (the client gets 502).
func TestHTTPProxyResendsOnce(t *testing.T) {
	const idle = 4
	t.Run("closed unanswered", func(t *testing.T) {
		upstream, arrived := closesEveryKeptAlive(t, idle, false)
		srv, _, _ := startProxy(t, upstream)
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		hc := &http.Client{Transport: tr}
		// idle requests at once: the proxy then holds idle connections.
		var wg sync.WaitGroup
		for id := 1; id <= idle; id++ {
			wg.Go(func() {
				if code, _ := postPing(t, hc, srv.URL+"/mcp", id); code != http.StatusOK {
					t.Errorf("request %d: status %d, want 200", id, code)
				}
			})
		}
		wg.Wait()
		const id = 100
		code, got := postPing(t, hc, srv.URL+"/mcp", id)
		if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id); code != http.StatusOK || got != want {
			t.Errorf("got %d %s, want 200 %s", code, got, want)
		}
		if n := arrived(id); n != 2 {
			t.Errorf("the request reached the upstream %d times, want 2 (once on a kept-alive connection, once more on a new one)", n)
		}
	})
	t.Run("closed after a byte of the answer", func(t *testing.T) {
		upstream, arrived := closesEveryKeptAlive(t, 1, true)
		srv, _, _ := startProxy(t, upstream)
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		hc := &http.Client{Transport: tr}
		if code, _ := postPing(t, hc, srv.URL+"/mcp", 1); code != http.StatusOK {
			t.Fatalf("first request: status %d, want 200", code)
		}
		const id = 100
		if code, _ := postPing(t, hc, srv.URL+"/mcp", id); code != http.StatusBadGateway {
			t.Errorf("status %d, want 502: the upstream's answer was cut", code)
		}
		if n := arrived(id); n != 1 {
			t.Errorf("the request reached the upstream %d times, want 1: never sent again once an answer began", n)
		}
	})
}
