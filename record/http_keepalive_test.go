package record_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"testing"
	"time"
)

// pingUpstream is an HTTP/1.1 MCP server on loopback that reads each
// request on each connection it accepts and asks do what becomes of it
// (conn: the connection's number, from 1 in the order accepted; n: the
// request's on it, from 0; id: its JSON-RPC id): answered
// {"result":{}} with its id, the connection kept alive, or, when do
// says cut, the connection closed unanswered after writing partial (the
// first bytes of an answer, or none). do is called on the connection's
// goroutine and may block. It returns the endpoint and how many
// connections it accepted so far. ended, when not nil, is sent the number
// of each connection as it ends (the proxy closed it, or do cut it).
func pingUpstream(t *testing.T, do func(conn, n, id int) (cut bool, partial string), ended chan<- int) (string, func() int) {
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
		if ended != nil {
			defer func() {
				select {
				case ended <- conn:
				default: // not read: a buffer as long as the test's connections
				}
			}()
		}
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
// sends the next request on it. It returns the endpoint, how many
// connections it accepted so far, and the numbers of those that ended.
func closingUpstream(t *testing.T) (string, func() int, <-chan int) {
	t.Helper()
	ended := make(chan int, 64)
	upstream, accepted := pingUpstream(t, func(conn, n, _ int) (bool, string) { return conn == 1 && n == 1, "" }, ended)
	return upstream, accepted, ended
}

// watchedProxy is startProxy's proxy with its upstream connections
// watched: pooled is sent a value each time its transport gives one back
// to its idle pool (httptrace's PutIdleConn, in the context of the
// requests it serves, which its upstream requests inherit).
//
// Go's transport gives a connection back as the proxy reads the end of
// its answer, before the client has that answer, but only when its writer
// goroutine has said the request went out whole, within 50 ms of the
// answer's end (net/http's maxWriteWaitBeforeConnReuse); under load it may
// say so later, and the connection is closed instead. A test of what the
// proxy does with a kept-alive connection first waits until the one it
// needs is pooled or closed (pooledOrEnded) and starts again when it was
// closed: the proxy's next request would go on a new connection.
func watchedProxy(t *testing.T, upstream string) (url string, pooled <-chan struct{}) {
	t.Helper()
	ch := make(chan struct{}, 64)
	trace := &httptrace.ClientTrace{PutIdleConn: func(err error) {
		if err == nil {
			select {
			case ch <- struct{}{}:
			default: // not read: a buffer as long as the test's requests
			}
		}
	}}
	srv, _, _ := startProxyFrom(t, upstream, httptrace.WithClientTrace(context.Background(), trace))
	return srv.URL + "/mcp", ch
}

// pooledOrEnded waits until n upstream connections are each either back
// in the proxy's pool or ended, and returns how many are in the pool; it
// fails t if they are not after a minute (a hang's bound: t's Context is
// done only once t has returned).
func pooledOrEnded(t *testing.T, n int, pooled <-chan struct{}, ended <-chan int) int {
	t.Helper()
	bound := time.NewTimer(time.Minute)
	defer bound.Stop()
	kept, closed := 0, 0
	for range n {
		select {
		case <-pooled:
			kept++
		case <-ended:
			closed++
		case <-bound.C:
			t.Fatalf("after a minute, %d of the proxy's %d upstream connections were neither back in its pool nor closed (%d pooled, %d closed)", n-kept-closed, n, kept, closed)
		}
	}
	return kept
}

// attempts is the most times a test sets up its proxy anew because the
// proxy's transport closed the connections it needed kept alive (see
// watchedProxy).
const attempts = 10

// TestHTTPProxyUpstreamClosesKeptAlive: the upstream closes a kept-alive
// connection unanswered as the proxy sends a client's POST on it (the
// race of a Node server's 5 s keep-alive timeout with the proxy's reuse
// of its idle connection, which cut a legacy SSE client's roots/list
// answer under load in TestHTTPProxyEverything: the go-sdk client then
// closes its session). The proxy sends the request again on a new
// connection: the client gets the upstream's answer, not 502.
func TestHTTPProxyUpstreamClosesKeptAlive(t *testing.T) {
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	for try := 1; try <= attempts; try++ {
		upstream, accepted, ended := closingUpstream(t)
		url, pooled := watchedProxy(t, upstream)
		ping := func(id int) {
			t.Helper()
			want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id)
			if code, got := postPing(t, hc, url, id); code != http.StatusOK || got != want {
				t.Fatalf("request %d: got %d %s, want 200 %s (upstream connections: %d)", id, code, got, want, accepted())
			}
		}
		ping(1)
		if pooledOrEnded(t, 1, pooled, ended) == 0 {
			t.Logf("try %d: the proxy closed its connection after the first answer; again", try)
			continue
		}
		ping(2) // on the kept-alive connection, which the upstream closes
		// Counted before request 3, which may go on a connection of its
		// own: the proxy may not have kept the one request 2 went on.
		if n := accepted(); n != 2 {
			t.Errorf("the upstream accepted %d connections, want 2 (the one it closed, the one the request was sent again on)", n)
		}
		ping(3)
		return
	}
	t.Fatalf("in %d tries the proxy never kept its connection to the upstream alive", attempts)
}

// closesEveryKeptAlive is a pingUpstream that answers the first request
// on each connection and closes the connection at the second, having
// read it: unanswered, or with partial, after the first bytes of an
// answer (a status line). The first hold connections have their first
// request answered only once hold of them are in, so that the proxy
// keeps hold idle connections. It returns the endpoint, how many times
// the request of each id arrived, and the numbers of the connections
// that ended.
func closesEveryKeptAlive(t *testing.T, hold int, partial bool) (string, func(id int) int, <-chan int) {
	t.Helper()
	ended := make(chan int, 64)
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
	}, ended)
	return upstream, func(id int) int {
		mu.Lock()
		defer mu.Unlock()
		return arrived[id]
	}, ended
}

// keptAlive sets up closesEveryKeptAlive(hold, partial) and a proxy to
// it (watchedProxy) and sends hold pings at once through the proxy, each
// answered on an upstream connection of its own. It returns the proxy's
// endpoint and arrived once at least want of those connections are in the
// proxy's pool, setting up anew (attempts at most) when fewer were kept.
func keptAlive(t *testing.T, hc *http.Client, hold, want int, partial bool) (string, func(id int) int) {
	t.Helper()
	for try := 1; try <= attempts; try++ {
		upstream, arrived, ended := closesEveryKeptAlive(t, hold, partial)
		url, pooled := watchedProxy(t, upstream)
		var wg sync.WaitGroup
		for id := 1; id <= hold; id++ {
			wg.Go(func() {
				if code, _ := postPing(t, hc, url, id); code != http.StatusOK {
					t.Errorf("request %d: status %d, want 200", id, code)
				}
			})
		}
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
		kept := pooledOrEnded(t, hold, pooled, ended)
		if kept >= want {
			return url, arrived
		}
		t.Logf("try %d: the proxy kept %d of its %d upstream connections, want %d; again", try, kept, hold, want)
	}
	t.Fatalf("in %d tries the proxy never kept %d of its %d upstream connections alive", attempts, want, hold)
	return "", nil
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
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		hc := &http.Client{Transport: tr}
		// The proxy holds idle connections (2 at least), each of which
		// the upstream closes at its next request.
		url, arrived := keptAlive(t, hc, idle, 2, false)
		const id = 100
		code, got := postPing(t, hc, url, id)
		if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id); code != http.StatusOK || got != want {
			t.Errorf("got %d %s, want 200 %s", code, got, want)
		}
		if n := arrived(id); n != 2 {
			t.Errorf("the request reached the upstream %d times, want 2 (once on a kept-alive connection, once more on a new one)", n)
		}
	})
	t.Run("closed after a byte of the answer", func(t *testing.T) {
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		hc := &http.Client{Transport: tr}
		url, arrived := keptAlive(t, hc, 1, 1, true)
		const id = 100
		if code, _ := postPing(t, hc, url, id); code != http.StatusBadGateway {
			t.Errorf("status %d, want 502: the upstream's answer was cut", code)
		}
		if n := arrived(id); n != 1 {
			t.Errorf("the request reached the upstream %d times, want 1: never sent again once an answer began", n)
		}
	})
}
