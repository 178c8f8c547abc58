//go:build linux

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/replayctl/replayctl/internal/testserver/rxstamp"
	"github.com/replayctl/replayctl/internal/testserver/slowmcp"
	"github.com/replayctl/replayctl/replay"
)

// hpongRun is an hpong serving on a port of its own, in this process.
type hpongRun struct {
	addr  string
	s     *hpong
	done  chan error
	ended bool
	log   []byte
	stats hpongStats
}

// startHpong serves until finish, or the test's end.
func startHpong(t *testing.T, expect int) *hpongRun {
	t.Helper()
	off, err := rxstamp.On() // as hpongCmd does: every request stamped
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(off)
	ln, port, err := hpongListen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s, err := newHpong(ln, expect, 0)
	if err != nil {
		t.Fatal(err)
	}
	h := &hpongRun{addr: "127.0.0.1:" + strconv.Itoa(port), s: s, done: make(chan error, 1)}
	go func() {
		st, err := s.serve()
		h.stats = st // read after done: the channel orders it
		h.done <- err
	}()
	t.Cleanup(func() { h.finish(t) })
	return h
}

// finish stops hpong (if -expect did not) and returns its log.
func (h *hpongRun) finish(t *testing.T) []byte {
	t.Helper()
	if !h.ended {
		h.s.stop()
		if err := <-h.done; err != nil {
			t.Errorf("hpong: %v", err)
		}
		h.ended, h.log = true, h.s.log
	}
	return h.log
}

// post is call i's request as the clients write it.
func post(addr, body string, extra ...string) string {
	return fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n%s", addr, strings.Join(extra, ""), len(body), body)
}

// dial connects to h with a bound on every exchange: a safety net
// should hpong not answer, not a wait for anything.
func dial(t *testing.T, h *hpongRun) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", h.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.SetDeadline(time.Now().Add(20 * time.Second)); err != nil {
		t.Fatal(err)
	}
	return c, bufio.NewReader(c)
}

// answer reads one answer from r: its status, body and head (with
// Connection, which ReadResponse takes out, put back).
func answer(t *testing.T, r *bufio.Reader) (int, string, http.Header) {
	t.Helper()
	res, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("read an answer: %v", err)
	}
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("read an answer's body: %v", err)
	}
	if res.Close {
		res.Header.Set("Connection", "close")
	}
	return res.StatusCode, string(b), res.Header
}

// wantCall checks the answer to call i.
func wantCall(t *testing.T, r *bufio.Reader, i int) {
	t.Helper()
	status, body, head := answer(t, r)
	want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"%d"}]}}`, i, i)
	if status != 200 || body != want || head.Get("Content-Type") != "application/json" {
		t.Errorf("call %d: got %d %s %q, want 200 application/json %s", i, status, head.Get("Content-Type"), body, want)
	}
}

// logCalls counts the tools/call lines of an arrival log.
func logCalls(log []byte) int { return bytes.Count(log, []byte(" tools/call ")) }

// TestHpongReplay: replayctl's library replays tailbench's tape at 10x
// against hpong, causal and --order none (which dials a connection per
// call in flight), and every answer matches the tape's.
func TestHpongReplay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := tapeCmd([]string{"-calls", "200", "-gap", "2ms", "-o", path}); err != nil {
		t.Fatal(err)
	}
	for _, order := range []replay.Ordering{replay.Causal, replay.Unordered} {
		t.Run(fmt.Sprint(order), func(t *testing.T) {
			h := startHpong(t, 0)
			rep, err := replay.Run(t.Context(), path, replay.Against(replay.HTTP("http://"+h.addr+"/mcp")),
				replay.WithSpeed(replay.Times(10)), replay.Order(order), replay.Timeout(20*time.Second))
			if rep == nil {
				t.Fatal(err)
			}
			if !rep.Passed() || rep.Validation.Failed != 0 || rep.Validation.Checked != 201 {
				t.Errorf("passed %v, %d checked, %d failed %v, errors %v: want 201 checked, none failed", rep.Passed(), rep.Validation.Checked, rep.Validation.Failed, rep.Validation.Failures, rep.Errors)
			}
			log := h.finish(t)
			if n := logCalls(log); n != 200 {
				t.Errorf("hpong logged %d tools/call, want 200:\n%s", n, log)
			}
			if !bytes.Contains(log, []byte(" initialize ")) || !bytes.Contains(log, []byte(" notifications/initialized - ")) {
				t.Errorf("hpong's log has no handshake:\n%.300s", log)
			}
		})
	}
}

// TestHpongSplit: a request written a byte at a time is answered once
// whole, whatever reads the kernel makes of it; and at the level of the
// buffer, a request cut at any byte gets no answer until its last.
func TestHpongSplit(t *testing.T) {
	h := startHpong(t, 0)
	c, r := dial(t, h)
	req := post(h.addr, call(1))
	for i := range len(req) {
		if _, err := c.Write([]byte{req[i]}); err != nil {
			t.Fatal(err)
		}
	}
	wantCall(t, r, 1)

	s := &hpong{} // its buffers only: no socket is read
	for cut := 1; cut < len(req); cut++ {
		hc := &hconn{}
		hc.in = append(hc.in, req[:cut]...)
		hc.segs = append(hc.segs, segment{end: cut, rx: 1})
		s.answer(hc, 10)
		if len(hc.out) != 0 {
			t.Fatalf("cut at %d: answered %q before the request was whole", cut, hc.out)
		}
		hc.in = append(hc.in, req[cut:]...)
		hc.segs = append(hc.segs, segment{end: len(req), rx: 2})
		s.answer(hc, 20)
		if !bytes.Contains(hc.out, []byte(`"text":"1"`)) || len(hc.in) != 0 {
			t.Fatalf("cut at %d: answered %q with %d bytes left, want the answer and none", cut, hc.out, len(hc.in))
		}
	}
	// Each arrival is stamped with the read of its first bytes.
	if want := " rx=1\n"; strings.Count(string(s.log), want) != len(req)-1 {
		t.Errorf("the log's lines are not stamped with their first read's rx:\n%.400s", s.log)
	}
}

// TestHpongPipelined: requests written together, in one write, are all
// answered in order, each logged with its id.
func TestHpongPipelined(t *testing.T) {
	h := startHpong(t, 0)
	c, r := dial(t, h)
	var all strings.Builder
	for i := 1; i <= 5; i++ {
		all.WriteString(post(h.addr, call(i)))
	}
	if _, err := io.WriteString(c, all.String()); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 5; i++ {
		wantCall(t, r, i)
	}
	log := h.finish(t)
	for i := 1; i <= 5; i++ {
		if !bytes.Contains(log, fmt.Appendf(nil, " tools/call %d rx=", i)) {
			t.Errorf("call %d is not in the log (with rx=):\n%s", i, log)
		}
	}
}

// TestHpongConnections: 40 connections at once, 10 calls each, all
// answered on their own connection, all logged.
func TestHpongConnections(t *testing.T) {
	h := startHpong(t, 0)
	const conns, calls = 40, 10
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	for k := range conns {
		wg.Go(func() {
			c, err := net.Dial("tcp", h.addr)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(20 * time.Second))
			r := bufio.NewReader(c)
			for j := range calls {
				i := k*calls + j + 1
				if _, err := io.WriteString(c, post(h.addr, call(i))); err != nil {
					errs <- err
					return
				}
				res, err := http.ReadResponse(r, nil)
				if err != nil {
					errs <- fmt.Errorf("connection %d, call %d: %w", k, i, err)
					return
				}
				b, _ := io.ReadAll(res.Body)
				if !strings.Contains(string(b), fmt.Sprintf(`"id":%d,`, i)) {
					errs <- fmt.Errorf("connection %d, call %d: answered %s", k, i, b)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := logCalls(h.finish(t)); n != conns*calls {
		t.Errorf("hpong logged %d calls, want %d", n, conns*calls)
	}
	if h.stats.conns != conns {
		t.Errorf("hpong counted %d connections, want %d", h.stats.conns, conns)
	}
}

// TestHpongClosedMidRequest: a client that goes away halfway through a
// request is dropped, nothing logged for it; the next is served.
func TestHpongClosedMidRequest(t *testing.T) {
	h := startHpong(t, 0)
	c, _ := dial(t, h)
	req := post(h.addr, call(1))
	if _, err := io.WriteString(c, req[:len(req)-10]); err != nil {
		t.Fatal(err)
	}
	c.Close()
	c2, r2 := dial(t, h)
	if _, err := io.WriteString(c2, post(h.addr, call(2))); err != nil {
		t.Fatal(err)
	}
	wantCall(t, r2, 2)
	if log := h.finish(t); logCalls(log) != 1 || !bytes.Contains(log, []byte(" tools/call 2 ")) {
		t.Errorf("got the log\n%s\nwant call 2 alone", log)
	}
}

// TestHpongRefuses: what hpong does not read gets a clear error status
// and a closed connection, and a connection open beside it is served
// before and after.
func TestHpongRefuses(t *testing.T) {
	h := startHpong(t, 0)
	good, gr := dial(t, h)
	n := 0
	call := func() {
		n++
		if _, err := io.WriteString(good, post(h.addr, call(n))); err != nil {
			t.Fatal(err)
		}
		wantCall(t, gr, n)
	}
	call()
	tests := []struct {
		name, req string
		status    int
		says      string
	}{
		{"chunked", "POST /mcp HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 411, "send a Content-Length body"},
		{"expect", "POST /mcp HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n", 417, "Expect"},
		{"HTTP/1.0", "POST /mcp HTTP/1.0\r\nContent-Length: 2\r\n\r\n{}", 505, "HTTP/1.1 only"},
		{"no request line", "hello\r\n\r\n", 400, "not an HTTP request line"},
		{"bad length", "POST /mcp HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400, "Content-Length"},
		{"two lengths", "POST /mcp HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}", 400, "Content-Length"},
		{"long body", "POST /mcp HTTP/1.1\r\nContent-Length: 9999999\r\n\r\n", 413, "1 MiB"},
		{"long head", "POST /mcp HTTP/1.1\r\nX: " + strings.Repeat("a", 9000) + "\r\n\r\n", 431, "8 KiB"},
		{"folded header", "POST /mcp HTTP/1.1\r\nX: a\r\n b\r\n\r\n", 400, "NAME: VALUE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, r := dial(t, h)
			if _, err := io.WriteString(c, tt.req); err != nil {
				t.Fatal(err)
			}
			status, body, head := answer(t, r)
			if status != tt.status || !strings.Contains(body, tt.says) || head.Get("Connection") != "close" {
				t.Errorf("got %d %q (Connection %q), want %d saying %q and Connection: close", status, body, head.Get("Connection"), tt.status, tt.says)
			}
			if rest, err := io.ReadAll(r); err != nil || len(rest) != 0 {
				t.Errorf("after the answer: %q, %v; want the connection closed", rest, err)
			}
			call()
		})
	}
	call()
	if log := h.finish(t); logCalls(log) != n {
		t.Errorf("hpong logged %d calls, want the good connection's %d:\n%s", logCalls(log), n, log)
	}
}

// TestHpongAsSlowHTTP: what is not a tools/call, hpong answers as the
// slow server does (its routes and handler, served by net/http): the
// same status, body, Content-Type and Allow, the connection kept or
// closed alike, and no body after a HEAD's head (the next answer on the
// connection is read whole).
func TestHpongAsSlowHTTP(t *testing.T) {
	h := startHpong(t, 0)
	slow := httptest.NewServer(slowmcp.Mux(slowmcp.Handler()))
	defer slow.Close()
	ping := `{"jsonrpc":"2.0","id":"p","method":"ping"}`
	for _, tt := range []struct{ name, method, req string }{
		{"GET", "GET", "GET /mcp HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"DELETE", "DELETE", "DELETE /mcp HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"HEAD", "HEAD", "HEAD /mcp HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"HEAD elsewhere", "HEAD", "HEAD /other HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"elsewhere", "POST", "POST /other HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"},
		{"no Host", "POST", "POST /mcp HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}"},
		{"no Host elsewhere", "POST", "POST /other HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}"},
		{"not JSON", "POST", post("x", "x")},
		{"notification", "POST", post("x", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)},
		{"response", "POST", post("x", `{"jsonrpc":"2.0","id":3,"result":{}}`)},
		{"initialize", "POST", post("x", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)},
		{"query", "POST", "POST /mcp?a=b HTTP/1.1\r\nHost: x\r\nContent-Length: " + strconv.Itoa(len(ping)) + "\r\n\r\n" + ping},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := exchange(t, h.addr, tt.method, tt.req+post("x", ping))
			want := exchange(t, slow.Listener.Addr().String(), tt.method, tt.req+post("x", ping))
			if got != want {
				t.Errorf("%q:\nhpong answers       %s\nthe slow server     %s", tt.req, got, want)
			}
		})
	}
	if log := h.finish(t); logCalls(log) != 0 {
		t.Errorf("hpong logged calls:\n%s", log)
	}
}

// exchange writes req (a request of method, then a ping) to addr and
// reads its answers: what of them the slow server and hpong must have
// alike, as text.
func exchange(t *testing.T, addr, method, req string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(20 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	var out strings.Builder
	for _, m := range []string{method, "POST"} {
		res, err := http.ReadResponse(r, &http.Request{Method: m})
		if err != nil {
			fmt.Fprintf(&out, "[%v]", err)
			break
		}
		b, err := io.ReadAll(res.Body)
		fmt.Fprintf(&out, "[%d %q Content-Type %q Allow %q close %v %v]", res.StatusCode, b, res.Header.Get("Content-Type"), res.Header.Get("Allow"), res.Close, err)
		if res.Close {
			if rest, err := io.ReadAll(r); len(rest) != 0 || err != nil {
				fmt.Fprintf(&out, "[then %q, %v]", rest, err)
			}
			break
		}
	}
	return out.String()
}

// TestHpongStatsRx: the bare HTTP client and the warm-up against hpong,
// as bench-tail.sh runs them; stats and split read its log, -rx too,
// and skip the warm-up.
func TestHpongStatsRx(t *testing.T) {
	h := startHpong(t, 0)
	report := filepath.Join(t.TempDir(), "bare.json")
	if err := warmCmd([]string{"-http", "-addr", h.addr, "-conns", "2", "-calls", "3"}); err != nil {
		t.Fatal(err)
	}
	if err := pingCmd([]string{"-http", "-addr", h.addr, "-calls", "20", "-gap", "1ms", "-report", report}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "hpong.log")
	if err := writeFile(path, string(h.finish(t))); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, args := range [][]string{{"-gap", "1ms", path}, {"-gap", "1ms", "-rx", path}} {
		if err := statsCmd(args, &out); err != nil {
			t.Fatal(err)
		}
	}
	if err := splitCmd([]string{"-rx", "-report", report, path}, &out); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out.String(), ": 20 calls; arrival vs schedule"); got != 2 || !strings.Contains(out.String(), "20 calls; way up") {
		t.Errorf("stats and split printed %q, want two stats and a split of 20 calls", out.String())
	}
	rx, err := arrivalsBy(path, true)
	if err != nil {
		t.Fatal(err)
	}
	at, err := arrivalsBy(path, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := range at {
		if rx[i] > at[i] {
			t.Errorf("call %d received at %d, after hpong read it at %d", i, rx[i], at[i])
		}
	}
}

// TestHpongExpect: -expect N stops hpong once N calls, the warm-up's not
// counted, were answered, and the log is written.
func TestHpongExpect(t *testing.T) {
	off, err := rxstamp.On() // as hpongCmd does
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(off)
	ln, port, err := hpongListen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s, err := newHpong(ln, 4, 0)
	if err != nil {
		unix.Close(ln)
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	path := filepath.Join(t.TempDir(), "hpong.log")
	done, stopped := make(chan error, 1), make(chan struct{})
	go func() {
		defer close(stopped)
		done <- runHpong(s, path)
	}()
	// Stopped however the test ends (a t.Fatal below included): hpong
	// serving past it would fail goleak.
	t.Cleanup(func() {
		s.stop()
		<-stopped
	})
	if err := warmCmd([]string{"-http", "-addr", addr, "-conns", "1", "-calls", "2"}); err != nil {
		t.Fatal(err)
	}
	if err := pingCmd([]string{"-http", "-addr", addr, "-calls", "4", "-gap", "1ms", "-report", filepath.Join(t.TempDir(), "r.json")}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	at, err := arrivals(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(at) != 4 {
		t.Errorf("the log holds %d calls (not the warm-up's), want 4", len(at))
	}
}

// TestHpongSIGTERM: the built command, stopped by SIGTERM as
// bench-tail.sh stops its servers, writes its log and exits 0.
func TestHpongSIGTERM(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hpong.log")
	cmd := exec.Command(os.Args[0], "hpong", "-addr", "127.0.0.1:0", "-arrivals", path)
	cmd.Env = append(os.Environ(), runMain+"=1")
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// hpong says where it listens once it does: the port is its own,
	// not one a test closed for it to take.
	stderr := bufio.NewReader(pipe)
	line, err := stderr.ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "hpong: listening on ")
	if err != nil || !ok {
		t.Fatalf("hpong said %q, %v; want where it listens", line, err)
	}
	// ping waits for hpong to listen (its -wait).
	if err := pingCmd([]string{"-http", "-addr", addr, "-calls", "3", "-gap", "1ms", "-report", filepath.Join(t.TempDir(), "r.json")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the log is there before hpong stops (%v): want it written once, at exit", err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(stderr) // all of it before Wait
	if err := cmd.Wait(); err != nil {
		t.Fatalf("hpong: %v, stderr %s", err, rest)
	}
	at, err := arrivalsBy(path, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(at) != 3 || !strings.Contains(string(rest), "1 connections, 3 requests") {
		t.Errorf("the log holds %d calls and hpong said %q, want 3 calls on 1 connection", len(at), rest)
	}
}

// TestHpongAnswerAllocs: a tools/call read, answered and logged costs
// no allocation once the connection's buffers and the log have room
// (the steady state).
func TestHpongAnswerAllocs(t *testing.T) {
	s := &hpong{log: make([]byte, 0, 1<<20)}
	req := post("127.0.0.1:1", call(7))
	hc := &hconn{in: make([]byte, 0, 4096), out: make([]byte, 0, 4096)}
	now := time.Now().UnixNano()
	n := testing.AllocsPerRun(200, func() {
		hc.in = append(hc.in[:0], req...)
		hc.segs = append(hc.segs[:0], segment{end: len(req), rx: now})
		hc.out, hc.answered = hc.out[:0], hc.answered[:0]
		s.answer(hc, now)
	})
	if n != 0 {
		t.Errorf("%v allocations per request, want 0", n)
	}
	if !bytes.HasPrefix(hc.out, []byte("HTTP/1.1 200 OK\r\n")) || logCalls(s.log) < 200 {
		t.Errorf("answered %q and logged %d calls: want 200 OK and every call", hc.out, logCalls(s.log))
	}
}

// TestHpongFor: -for D stops hpong after D, and the log is written.
func TestHpongFor(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hpong.log")
	if err := hpongCmd([]string{"-addr", "127.0.0.1:0", "-arrivals", path, "-for", "1ms"}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || len(b) != 0 {
		t.Errorf("got the log %q, %v: want it written, empty", b, err)
	}
}

// TestHpongSlowReader: answers the peer has no room for wait, the
// connection watched for room to write (EPOLLOUT), and are written
// whole, in order, as the peer reads.
func TestHpongSlowReader(t *testing.T) {
	ln, _, err := hpongListen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s, err := newHpong(ln, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.closeAll()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[1])
	if err := unix.EpollCtl(s.ep, unix.EPOLL_CTL_ADD, fds[0], &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fds[0])}); err != nil {
		t.Fatal(err)
	}
	c := &hconn{fd: fds[0]}
	s.conns = make([]*hconn, fds[0]+1)
	s.conns[fds[0]] = c
	want := make([]byte, 4<<20)
	for i := range want {
		want[i] = byte(i % 251)
	}
	c.out = append(c.out, want...)
	s.flush(c)
	if !c.writing || len(c.out) == 0 {
		t.Fatalf("4 MiB written at once (writing %v, %d left): want the socket full and the rest waiting", c.writing, len(c.out))
	}
	var got []byte
	buf := make([]byte, 64<<10)
	for len(got) < len(want) {
		n, err := unix.Read(fds[1], buf)
		if err == unix.EAGAIN {
			if !c.writing {
				t.Fatalf("%d of %d bytes read, nothing more to read and nothing waiting", len(got), len(want))
			}
			s.ready(c, unix.EPOLLOUT) // the peer read: room again
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, buf[:n]...)
	}
	if !bytes.Equal(got, want) || c.writing || len(c.out) != 0 {
		t.Errorf("read %d bytes (equal %v), writing %v, %d left: want all of it, in order, and reading again", len(got), bytes.Equal(got, want), c.writing, len(c.out))
	}
}
