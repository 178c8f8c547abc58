package transport

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// sendPartial opens a connection to addr, sends a POST to path
// announcing a body of announced bytes and sends sent of them; it
// returns the connection, still open.
func sendPartial(t *testing.T, addr, path string, announced, sent int) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n", path, addr, announced)
	_, _ = c.Write(bytes.Repeat([]byte(" "), sent))
	return c
}

// statusOf reads the status of the answer on c; 0 when the server closed
// the connection without one.
func statusOf(c net.Conn) int {
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestUnfinishedBodiesWithinBudget: 100 connections each announcing a
// 15 MB body and sending 256 KiB of it never make the Mux hold more than
// its budget: the bodies that would go over it are answered 503 with
// Retry-After, and what an announced length does not bring is never
// allocated. Then, once the clients are gone, nothing is held.
func TestUnfinishedBodiesWithinBudget(t *testing.T) {
	const budget = 4 << 20
	mux := NewMux(&fakeServer{}, BodyBudget(budget), ServerMaxMessage(1<<20), BodyReadTimeout(time.Minute))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	defer mux.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")

	conns := make([]net.Conn, 100)
	for i := range conns {
		conns[i] = sendPartial(t, addr, "/mcp", 15_000_000, 256<<10)
	}
	// A held body costs at least its 256 KiB: at most budget/256 KiB
	// are held, so at least the others must be refused. (The test
	// closes no connection before it has counted them.)
	refused := make(chan bool, len(conns))
	for _, c := range conns {
		go func() {
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				// The server closed the connection on the rest of the
				// body unread: a reset may come before its 503.
				refused <- true
				return
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
				t.Errorf("a body refused: status %d, Retry-After %q, want 503 and a Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
			}
			refused <- true
		}()
	}
	want := len(conns) - budget/(256<<10)
	n503, got := 0, 0
	for n503 < want {
		select {
		case r := <-refused:
			got++
			if r {
				n503++
			}
		case <-time.After(30 * time.Second):
			now, peak := mux.BodiesHeld()
			t.Fatalf("%d bodies refused, want at least %d (held %d, peak %d)", n503, want, now, peak)
		}
	}
	for _, c := range conns {
		c.Close()
	}
	for ; got < len(conns); got++ {
		<-refused
	}
	_, peak := mux.BodiesHeld()
	t.Logf("peak held %d KiB of a %d KiB budget; %d of 100 refused", peak>>10, budget>>10, n503)
	if peak > budget {
		t.Errorf("peak held %d bytes, over the budget of %d", peak, budget)
	}
	stopped := waitFor(func() bool { now, _ := mux.BodiesHeld(); return now == 0 })
	if !stopped {
		now, _ := mux.BodiesHeld()
		t.Errorf("%d bytes still held once every client is gone, want 0", now)
	}
}

// waitFor polls cond (a gauge other goroutines move) until it holds, for
// at most 10 s.
func waitFor(cond func() bool) bool {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// TestTricklingBodyCut: a body arriving a byte at a time is answered 408
// once the body read timeout has passed, and a body that arrives in time
// is served.
func TestTricklingBodyCut(t *testing.T) {
	mux := NewMux(&fakeServer{}, BodyReadTimeout(300*time.Millisecond))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	defer mux.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	c := sendPartial(t, addr, "/mcp", 1000, 1)
	defer c.Close()
	answered := make(chan int, 1)
	go func() { answered <- statusOf(c) }()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for got := 0; got == 0; {
		select {
		case got = <-answered:
			if got != http.StatusRequestTimeout {
				t.Fatalf("a trickling body: status %d, want 408", got)
			}
		case <-tick.C:
			_, _ = c.Write([]byte(" "))
		case <-time.After(30 * time.Second):
			t.Fatal("a trickling body still held after 30 s")
		}
	}
	resp, err := http.Post(srv.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a body in time: status %d, want 200", resp.StatusCode)
	}
}

// TestBatchOverLimit: a batch over MaxBatch gets one JSON-RPC error and
// opens nothing; one at the limit is handled.
func TestBatchOverLimit(t *testing.T) {
	fake := &fakeServer{}
	mux := NewMux(fake, MaxBatch(3))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	defer mux.Close()
	batch := func(n int) string {
		var b strings.Builder
		b.WriteByte('[')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, i+1)
		}
		return b.String() + "]"
	}
	req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(batch(4)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !bytes.Contains(body, []byte("a batch of 4 messages; the limit is 3")) || fake.opened.Load() != 0 {
		t.Errorf("a batch of 4 over a limit of 3: status %d, %s, %d sessions opened; want 400, one error, none", resp.StatusCode, body, fake.opened.Load())
	}
}

// TestConnLimiterClosesTheLongestWaiting: at the cap, a new connection
// takes the place of the one that has waited on its client longest (a
// request never finished); the client then gets its answer.
func TestConnLimiterClosesTheLongestWaiting(t *testing.T) {
	mux := NewMux(&fakeServer{})
	defer mux.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	lim := NewConnLimiter(4, zerolog.Nop())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lim.Listen(srv, ln)) }()
	defer func() { srv.Close(); <-served }()
	addr := ln.Addr().String()

	var stuck []net.Conn
	for range 10 {
		c := sendPartial(t, addr, "/mcp", 1000, 10)
		stuck = append(stuck, c)
	}
	defer func() {
		for _, c := range stuck {
			c.Close()
		}
	}()
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}
	resp, err := hc.Post("http://"+addr+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`))
	if err != nil {
		t.Fatalf("a client after 10 stuck connections at a cap of 4: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status %d, want 200", resp.StatusCode)
	}
	if ev, open := lim.Evicted(), lim.Open(); ev < 7 || open > 4 {
		t.Errorf("%d connections closed for new ones, %d open; want at least 7 and at most 4", ev, open)
	}
	// The first stuck ones were closed by the server.
	var wg sync.WaitGroup
	wg.Go(func() {
		_ = stuck[0].SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := stuck[0].Read(make([]byte, 1)); err == nil {
			t.Errorf("the longest-waiting connection is still open")
		}
	})
	wg.Wait()
}

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"tools/call", "tools/call"},
		{strings.Repeat("a", ClipLimit), strings.Repeat("a", ClipLimit)},
		{strings.Repeat("a", 1<<20), strings.Repeat("a", ClipLimit) + "… (1048576 bytes)"},
		{strings.Repeat("a", ClipLimit-1) + "é", strings.Repeat("a", ClipLimit-1) + "… (257 bytes)"},
	} {
		if got := Clip(tc.in); got != tc.want {
			t.Errorf("Clip(%d bytes) = %.40q… (%d bytes), want %.40q (%d bytes)", len(tc.in), got, len(got), tc.want, len(tc.want))
		}
	}
}
