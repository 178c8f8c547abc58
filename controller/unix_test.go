package controller

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
)

// TestServeUnix drives a controller over a real Unix socket.
func TestServeUnix(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	e := &fakeEngine{tape: newTape(10, 0), speed: scheduler.Speed{Mode: scheduler.Fast}, fails: map[int64]report.Verdict{}}
	c := New(e)
	e.c = c
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { _ = c.Run(ctx) })
	e.run(ctx, &wg)

	path := filepath.Join(t.TempDir(), "c.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	wg.Go(func() { served <- Serve(ctx, c, ln) })
	conn, err := net.Dial("unix", path)
	if err != nil {
		t.Fatalf("dial %s: %v", path, err)
	}
	defer conn.Close()
	cl := &client{t: t, conn: conn, r: bufio.NewReader(conn)}

	steps := []struct {
		line    string
		wantOK  bool
		wantErr string
		check   func(t *testing.T, r map[string]any)
	}{
		{`{"id":1,"cmd":"break","spec":"3"}`, true, "", func(t *testing.T, r map[string]any) {
			bp := r["breakpoint"].(map[string]any)
			if bp["id"] != 1.0 || bp["kind"] != "seq" {
				t.Errorf("got breakpoint %v, want id 1 kind seq", bp)
			}
		}},
		{`{"id":2,"cmd":"start"}`, true, "", nil},
		{`{"id":3,"cmd":"s","n":2}`, true, "", func(t *testing.T, r map[string]any) {
			rs, _ := r["results"].([]any)
			if len(rs) != 2 {
				t.Fatalf("got results %v, want 2", rs)
			}
			if got := rs[1].(map[string]any)["seq"]; got != 1.0 {
				t.Errorf("got second result seq %v, want 1", got)
			}
		}},
		{`{"id":"x","cmd":"continue"}`, true, "", nil},
		{`{"id":4,"cmd":"wait"}`, true, "", func(t *testing.T, r map[string]any) {
			st := r["status"].(map[string]any)
			if st["state"] != "paused" || st["seq"] != 3.0 || !strings.HasPrefix(st["reason"].(string), "breakpoint 1") {
				t.Errorf("got status %v, want paused at seq 3 by breakpoint 1", st)
			}
		}},
		{`{"id":5,"cmd":"breakpoints"}`, true, "", func(t *testing.T, r map[string]any) {
			bps := r["breakpoints"].([]any)
			if len(bps) != 1 || bps[0].(map[string]any)["hits"] != 1.0 {
				t.Errorf("got breakpoints %v, want one with 1 hit", bps)
			}
		}},
		{`{"id":6,"cmd":"bogus"}`, false, "unknown command", nil},
		{`{"id":7,"cmd":"seek"}`, false, `want "seq"`, nil},
		{`{"id":8,"cmd":"break","spec":"method =="}`, false, "column", nil},
		{`{"id":9,"cmd":"inject","session":"s1","msg":{"jsonrpc":"2.0","method":"ping"}}`, true, "", nil},
		{`{"id":10,"cmd":"seek","seq":8}`, true, "", nil},
		{`{"id":11,"cmd":"step"}`, true, "", func(t *testing.T, r map[string]any) {
			rs := r["results"].([]any)
			if len(rs) != 1 || rs[0].(map[string]any)["seq"] != 8.0 {
				t.Errorf("got results %v, want seq 8", rs)
			}
		}},
	}
	for _, s := range steps {
		t.Run(s.line, func(t *testing.T) {
			r := cl.call(s.line)
			if ok, _ := r["ok"].(bool); ok != s.wantOK {
				t.Fatalf("got ok=%v (%v), want %v", ok, r, s.wantOK)
			}
			if s.wantErr != "" && !strings.Contains(r["error"].(string), s.wantErr) {
				t.Errorf("got error %q, want one containing %q", r["error"], s.wantErr)
			}
			if s.check != nil {
				s.check(t, r)
			}
		})
	}
	// A line that is not JSON gets an error reply (no id to echo).
	cl.send("not json")
	if r := cl.next(""); r["ok"] != false || !strings.Contains(r["error"].(string), "bad command line") {
		t.Errorf("got %v, want a bad command line error", r)
	}
	if cl.events == 0 {
		t.Errorf("got no status events, want some")
	}
	// stop: the reply comes, then the server hangs up and ServeUnix returns.
	if r := cl.call(`{"id":99,"cmd":"stop"}`); r["ok"] != true {
		t.Errorf("stop: got %v, want ok", r)
	}
	for {
		if _, err := cl.r.ReadBytes('\n'); err != nil {
			break
		}
	}
	if err := <-served; err != nil {
		t.Errorf("ServeUnix: got %v, want nil after stop", err)
	}
	if got := e.injected(); got != 1 {
		t.Errorf("got %d injected messages, want 1", got)
	}
}

type client struct {
	t      *testing.T
	conn   net.Conn
	r      *bufio.Reader
	events int
}

func (c *client) send(line string) {
	c.t.Helper()
	if _, err := c.conn.Write([]byte(line + "\n")); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// call sends a command and returns its reply, counting the events before.
func (c *client) call(line string) map[string]any {
	c.t.Helper()
	var req struct{ ID json.RawMessage }
	_ = json.Unmarshal([]byte(line), &req)
	c.send(line)
	return c.next(string(req.ID))
}

// next returns the next reply (a line without "event") with that raw id.
func (c *client) next(id string) map[string]any {
	c.t.Helper()
	for {
		b, err := c.r.ReadBytes('\n')
		if err != nil {
			c.t.Fatalf("read: %v", err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			c.t.Fatalf("reply %q: %v", b, err)
		}
		if _, ok := m["event"]; ok {
			c.events++
			continue
		}
		got, _ := json.Marshal(m["id"])
		if m["id"] == nil {
			got = nil
		}
		if string(got) != id {
			c.t.Fatalf("got reply id %s, want %s", got, id)
		}
		return m
	}
}

func (e *fakeEngine) injected() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, r := range e.log {
		if r.session != "" {
			n++
		}
	}
	return n
}

func TestServeUnixBadPath(t *testing.T) {
	c := New(&fakeEngine{})
	path := filepath.Join(t.TempDir(), "no", "such", "dir", "c.sock")
	err := ServeUnix(t.Context(), c, path)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("got %v, want an error naming %s", err, path)
	}
}

// flood sends status commands on conn and never reads the replies, until
// the server stops reading too (a write waits over 200ms): by then the
// server's writer to conn is blocked.
func flood(t *testing.T, conn net.Conn) {
	t.Helper()
	line := []byte(`{"id":1,"cmd":"status"}` + "\n")
	for i := 0; ; i++ {
		conn.SetWriteDeadline(time.Now().Add(200 * time.Millisecond))
		if _, err := conn.Write(line); err != nil {
			if i < 100 {
				t.Fatalf("flood: write %d: %v", i, err)
			}
			return
		}
	}
}

// serveForTest runs a controller (no engine needed for status) and Serve
// on a fresh socket; it returns the socket's path and Serve's result.
func serveForTest(t *testing.T, ctx context.Context, wg *sync.WaitGroup, opts ...ServeOption) (*Controller, string, <-chan error) {
	t.Helper()
	c := New(&fakeEngine{})
	wg.Go(func() { _ = c.Run(ctx) })
	path := filepath.Join(t.TempDir(), "c.sock")
	ln, err := ListenUnix(path)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	wg.Go(func() { served <- Serve(ctx, c, ln, opts...) })
	return c, path, served
}

// A client that sends commands and never reads holds neither the
// controller nor the end of Serve: other clients are served meanwhile,
// and after stop Serve returns within the write timeout.
func TestServeDropsClientThatDoesNotRead(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	const writeTimeout = 300 * time.Millisecond
	c, path, served := serveForTest(t, ctx, &wg, WriteTimeout(writeTimeout))

	deaf, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer deaf.Close()
	flood(t, deaf)

	other, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	other.SetDeadline(time.Now().Add(10 * time.Second))
	cl := &client{t: t, conn: other, r: bufio.NewReader(other)}
	if r := cl.call(`{"id":1,"cmd":"status"}`); r["ok"] != true {
		t.Fatalf("status on a second connection: got %v, want ok", r)
	}

	start := time.Now()
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: got %v, want nil after stop", err)
		}
	case <-time.After(writeTimeout + 5*time.Second):
		t.Fatalf("Serve has not returned %s after stop: a client that does not read holds it", time.Since(start))
	}
	// The deaf client was hung up on: reading what was sent ends.
	deaf.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.Copy(io.Discard, deaf); err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("the deaf client's connection: %v, want it closed by the server", err)
	}
}

// When ctx is done, Serve returns at once, even with a write to a client
// blocked, a long write timeout, and the controller already stopped (stop
// acknowledged, then SIGTERM: the process must end).
func TestServeEndsWithCtxWhileAWriteIsBlocked(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	c, path, served := serveForTest(t, sctx, &wg, WriteTimeout(time.Hour))
	deaf, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer deaf.Close()
	flood(t, deaf)
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	stop()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: got %v, want nil when ctx is done", err)
		}
	case <-time.After(30 * time.Second): // a bound, not a wait: Serve returns at once, or is held by the blocked write
		t.Fatal("Serve has not returned 30s after its ctx was done: a blocked write holds it")
	}
}
