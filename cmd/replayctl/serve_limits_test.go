package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testserver"
)

// The limits of serve and record against hostile clients (issue 22):
// unfinished bodies, trickling bodies, connection floods, huge batches,
// huge method names, endless misses, one upstream per session.

// mcpPost POSTs body to url with session sid ("" for none) and returns
// the status, the session id of the answer and its body.
func mcpPost(ctx context.Context, hc *http.Client, u, sid, body string) (int, string, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(body))
	if err != nil {
		return 0, "", nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), b, err
}

// openSession initializes a session at u and returns its id.
func openSession(t *testing.T, u string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), serveWait)
	defer cancel()
	status, sid, b, err := mcpPost(ctx, http.DefaultClient, u, "", initializeBody)
	if err != nil || status != http.StatusOK || sid == "" {
		t.Fatalf("initialize: status %d, session %q, err %v: %s", status, sid, err, clip(string(b), 500))
	}
	return sid
}

// holdBodies opens n connections to the server at u, each announcing a
// POST body of announced bytes and sending only sent of them, and keeps
// them open. It returns when every connection has sent its part (or
// been answered or cut), and a function that closes them all and says
// how many the server ended by itself (answered or closed) by then.
func holdBodies(t *testing.T, u string, n int, announced, sent int64) (stop func() int) {
	t.Helper()
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n",
		pu.RequestURI(), pu.Host, announced)
	part := bytes.Repeat([]byte(" "), int(sent))
	conns := make([]net.Conn, 0, n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ended := 0
	for range n {
		c, err := net.DialTimeout("tcp", pu.Host, serveWait)
		if err != nil {
			t.Fatalf("dial %s: %v", pu.Host, err)
		}
		conns = append(conns, c)
		wg.Go(func() {
			_ = c.SetWriteDeadline(time.Now().Add(serveWait))
			if _, err := c.Write([]byte(head)); err != nil {
				return
			}
			_, _ = c.Write(part) // the server may answer (503) and close before all of it
			_ = c.SetWriteDeadline(time.Time{})
		})
	}
	wg.Wait()
	var readers sync.WaitGroup
	for _, c := range conns {
		readers.Go(func() { // the server's answer, or its close, or ours
			_, _ = io.Copy(io.Discard, c)
			mu.Lock()
			ended++
			mu.Unlock()
		})
	}
	return func() int {
		mu.Lock()
		got := ended
		mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
		readers.Wait()
		return got
	}
}

// TestServeUnfinishedBodiesBounded: 100 connections each announcing a
// 15 MB body and sending 4 MB of it cost serve far less than the 400 MB
// they sent: the in-flight body budget (64 MiB by default) refuses the
// rest with 503, and nothing is allocated for what was only announced.
func TestServeUnfinishedBodiesBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("400 MB through loopback")
	}
	p := startServe(t, recordedTape(t, "2025-11-25"))
	stop := holdBodies(t, p.url, 100, 15_000_000, 4<<20)
	ended := stop()
	t.Logf("%d of 100 connections answered or cut by serve while held", ended)
	rss := peakRSS(p.cmd.Process.Pid) // while it runs: see rss_linux_test.go
	code, stderr := p.stop(t)
	if code != 0 {
		t.Errorf("serve: exit %d:\n%s", code, stderr)
	}
	t.Logf("serve: peak RSS %d MB", rss>>20)
	if rss > 200<<20 {
		t.Errorf("serve: peak RSS %d MB, want under 200 MB (the in-flight body budget is 64 MiB)", rss>>20)
	}
}

// TestRecordUnfinishedBodiesBounded: the same against record --listen.
func TestRecordUnfinishedBodiesBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("400 MB through loopback")
	}
	upstream := testserver.GoSDKHTTP(t)
	out := filepath.Join(t.TempDir(), "rec.jsonl")
	p := startListening(t, "record", "-o", out, "--listen", "127.0.0.1:0", "--upstream", upstream)
	stop := holdBodies(t, p.url, 100, 15_000_000, 4<<20)
	ended := stop()
	t.Logf("%d of 100 connections answered or cut by record while held", ended)
	rss := peakRSS(p.cmd.Process.Pid) // while it runs: see rss_linux_test.go
	code, stderr := p.stop(t)
	if code != 0 {
		t.Errorf("record: exit %d:\n%s", code, stderr)
	}
	t.Logf("record: peak RSS %d MB", rss>>20)
	if rss > 200<<20 {
		t.Errorf("record: peak RSS %d MB, want under 200 MB (the in-flight body budget is 64 MiB)", rss>>20)
	}
}

// trickle sends a POST whose body comes one byte at a time, a byte each
// time the server has not answered within tick, and returns the status
// the server answered with, or 0 when it held the body past bound.
func trickle(t *testing.T, u string, bound time.Duration) int {
	t.Helper()
	pu, _ := url.Parse(u)
	c, err := net.DialTimeout("tcp", pu.Host, serveWait)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n", pu.RequestURI(), pu.Host)
	answered := make(chan int, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			answered <- -1
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	deadline := time.After(bound)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case s := <-answered:
			return s
		case <-deadline:
			return 0
		case <-tick.C:
			_, _ = c.Write([]byte(" "))
		}
	}
}

// TestTricklingBodyIsCut: a body trickling in a byte at a time is cut
// with 408 once --body-timeout (10 s by default; 2 s here, to keep the
// test short) has passed, by serve and by record.
func TestTricklingBodyIsCut(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the body read timeout")
	}
	upstream := testserver.GoSDKHTTP(t)
	out := filepath.Join(t.TempDir(), "rec.jsonl")
	for _, tc := range []struct {
		name string
		p    func() *servingProcess
	}{
		{"serve", func() *servingProcess { return startServe(t, "--body-timeout", "2s", recordedTape(t, "2025-11-25")) }},
		{"record", func() *servingProcess {
			return startListening(t, "record", "-o", out, "--listen", "127.0.0.1:0", "--upstream", upstream, "--body-timeout", "2s")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p()
			if got := trickle(t, p.url, 30*time.Second); got != http.StatusRequestTimeout {
				t.Errorf("a trickling body: status %d, want 408 (0: still held after 30 s)", got)
			}
			p.stop(t)
		})
	}
}

// TestConnectionFloodLeavesRoomForClients: with 128 file descriptors,
// 200 connections that never finish their request body do not lock a
// client out: the connection limit stays under the descriptors, and a
// new connection pushes out the one that has waited on its client the
// longest.
func TestConnectionFloodLeavesRoomForClients(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	recorded := recordedTape(t, "2025-11-25")
	p := startCmd(t, exec.Command("sh", "-c", `ulimit -n 128 && exec "$0" "$@"`, binary, "serve", "--listen", "127.0.0.1:0", recorded))
	stop := holdBodies(t, p.url, 200, 15_000_000, 1000)
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	status, _, b, err := mcpPost(ctx, &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}, p.url, "", initializeBody)
	if err != nil || status != http.StatusOK {
		t.Errorf("a client after 200 stuck connections: status %d, err %v: %s", status, err, clip(string(b), 300))
	}
	p.stop(t)
}

// TestHugeBatchGetsOneError: a POST batch of 100,000 requests is answered
// with one JSON-RPC error naming the batch limit, not 100,000 answers.
func TestHugeBatchGetsOneError(t *testing.T) {
	p := startServe(t, recordedTape(t, "2025-11-25"))
	sid := openSession(t, p.url)
	var b strings.Builder
	b.WriteByte('[')
	for i := range 100_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"nope"}}`, i+10)
	}
	b.WriteByte(']')
	ctx, cancel := context.WithTimeout(context.Background(), 2*serveWait)
	defer cancel()
	status, _, body, err := mcpPost(ctx, http.DefaultClient, p.url, sid, b.String())
	if err != nil {
		t.Fatal(err)
	}
	var one struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &one) != nil || one.Error == nil || !strings.Contains(one.Error.Message, "1000") {
		t.Errorf("a batch of 100,000: status %d, %d bytes: %s; want one JSON-RPC error naming the limit of 1000", status, len(body), clip(string(body), 300))
	}
	code, stderr := p.stop(t)
	if code != 0 || len(stderr) > 64<<10 {
		t.Errorf("serve: exit %d, %d bytes on stderr, want 0 and under 64 KiB", code, len(stderr))
	}
}

// TestHugeMethodNameBounded: a 1 MB method name gives a short error and a
// short stderr: echoed client values are cut to 256 bytes.
func TestHugeMethodNameBounded(t *testing.T) {
	p := startServe(t, recordedTape(t, "2025-11-25"))
	sid := openSession(t, p.url)
	method := strings.Repeat("m", 1<<20)
	ctx, cancel := context.WithTimeout(context.Background(), serveWait)
	defer cancel()
	_, _, body, err := mcpPost(ctx, http.DefaultClient, p.url, sid, `{"jsonrpc":"2.0","id":7,"method":"`+method+`","params":{}}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(body) > 16<<10 || !bytes.Contains(body, []byte("(1048576 bytes)")) {
		t.Errorf("the answer to a 1 MB method name: %d bytes, want under 16 KiB, the name cut and its length said: %s", len(body), clip(string(body), 400))
	}
	_, stderr := p.stop(t)
	if len(stderr) > 16<<10 {
		t.Errorf("serve's stderr: %d bytes, want under 16 KiB: %s", len(stderr), clip(stderr, 400))
	}
}

// TestMissesKeptThenCounted: of 1,500 misses serve keeps and lists the
// first 1,000 and counts the rest; --strict still counts them all.
func TestMissesKeptThenCounted(t *testing.T) {
	p := startServe(t, "--strict", recordedTape(t, "2025-11-25"))
	sid := openSession(t, p.url)
	ctx, cancel := context.WithTimeout(context.Background(), 2*serveWait)
	defer cancel()
	for k := range 3 {
		var b strings.Builder
		b.WriteByte('[')
		for i := range 500 {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"nope/%d","params":{}}`, k*1000+i+10, i)
		}
		b.WriteByte(']')
		if status, _, body, err := mcpPost(ctx, http.DefaultClient, p.url, sid, b.String()); err != nil || status != http.StatusOK {
			t.Fatalf("batch %d: status %d, err %v: %s", k, status, err, clip(string(body), 300))
		}
	}
	code, stderr := p.stop(t)
	if code != 1 {
		t.Errorf("exit %d, want 1 (--strict, 1500 misses)", code)
	}
	listed := strings.Count(stderr, "  miss: ")
	if !strings.Contains(stderr, "served: 1500 misses") || listed != 1000 || !strings.Contains(stderr, "500 more") {
		t.Errorf("stderr: %d misses listed, want the first 1000 and \"500 more\" counted:\n%s", listed, clip(stderr, 2000))
	}
}

// TestServeSizeFlagsTakeUnits: serve's --max-message and --max-line read
// sizes as record's do.
func TestServeSizeFlagsTakeUnits(t *testing.T) {
	p := startServe(t, "--max-message", "64MiB", "--max-line", "16MiB", recordedTape(t, "2025-11-25"))
	openSession(t, p.url)
	if code, stderr := p.stop(t); code != 0 {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
}

// TestServeNewCapsUpstreams: serve --mode new -- CMD runs at most
// --max-upstreams server processes (8 by default) however many client
// sessions miss, and stops one idle for --upstream-idle-timeout.
func TestServeNewCapsUpstreams(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	dir := t.TempDir()
	tp := filepath.Join(dir, "tape.jsonl")
	b, err := os.ReadFile(recordedTape(t, "2025-11-25"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	events := filepath.Join(dir, "events")
	script := `echo start >> "$0"; "$@"; echo stop >> "$0"`
	args := append([]string{tp, "--mode", "new", "--upstream-idle-timeout", "2s", "--", "sh", "-c", script, events}, testserver.Crashy(t)...)
	p := startServe(t, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*serveWait)
	defer cancel()
	for i := range 12 {
		sid := openSession(t, p.url)
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"not-recorded-%d"}}`, i)
		status, _, ans, err := mcpPost(ctx, http.DefaultClient, p.url, sid, body)
		if err != nil || status != http.StatusOK || !bytes.Contains(ans, []byte(`"ok":true`)) {
			t.Fatalf("session %d: a forwarded miss: status %d, err %v: %s", i, status, err, clip(string(ans), 300))
		}
	}
	live, most, started := 0, 0, 0
	for line := range strings.Lines(readFile(t, events)) {
		switch strings.TrimSpace(line) {
		case "start":
			live++
			started++
		case "stop":
			live--
		}
		most = max(most, live)
	}
	if started != 12 || most > 8 {
		t.Errorf("%d upstream processes started, at most %d at once; want 12, at most 8", started, most)
	}
	// Every session is now idle: each upstream stops after 2 s of it.
	for deadline := time.Now().Add(serveWait); ; {
		if n := strings.Count(readFile(t, events), "stop"); n == started {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("%d of %d upstream processes stopped while idle, want all", n, started)
		}
		waitABit()
	}
	p.stop(t)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// waitABit paces a loop polling for a condition another process makes
// true (a file's contents): it is not a wait for that condition.
func waitABit() { time.Sleep(50 * time.Millisecond) }

// startListening starts the binary with args and waits for the URL it
// prints (as startServe).
func startListening(t *testing.T, args ...string) *servingProcess {
	t.Helper()
	return startCmd(t, exec.Command(binary, args...))
}

// TestLimitFlagsRefused: a limit that is no limit exits 2 naming the flag.
func TestLimitFlagsRefused(t *testing.T) {
	tp := "examples/go-sdk-2025.jsonl"
	for _, args := range [][]string{
		{"serve", tp, "--max-batch", "0"},
		{"serve", tp, "--max-misses", "-1"},
		{"serve", tp, "--max-upstreams", "0"},
		{"serve", tp, "--upstream-idle-timeout", "0s"},
		{"serve", tp, "--upstream-timeout", "0s"},
		{"serve", tp, "--body-timeout", "0s"},
		{"serve", tp, "--max-conns", "0"},
		{"serve", tp, "--body-budget", "lots"},
		{"record", "-o", filepath.Join(t.TempDir(), "t.jsonl"), "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:1/", "--body-timeout", "-1s"},
	} {
		res := replayctl(t, args...)
		flag := args[len(args)-2]
		if res.code != 2 || !strings.Contains(res.stderr, flag) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %s", args, res.code, res.stderr, flag)
		}
	}
}
