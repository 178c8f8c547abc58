package testserver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testserver/rxstamp"
)

const (
	initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	initNote   = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	ping       = `{"jsonrpc":"2.0","id":"p","method":"ping"}`
)

func toolsCall(id int, text string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}}`, id, text)
}

func wantAnswer(id int, text string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%q}]}}`, id, text)
}

// proc is a stdio server on real pipes. Reads and writes have deadlines,
// so no test waits for it forever.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     *os.File // its stdin
	outF   *os.File // its stdout
	out    *bufio.Reader
	exited chan struct{} // closed when it has exited, with err set
	err    error
}

func startProc(t *testing.T, argv []string) *proc {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %v: %v", argv, err)
	}
	_, _ = inR.Close(), outW.Close()
	p := &proc{t: t, cmd: cmd, in: inW, outF: outR, out: bufio.NewReaderSize(outR, 1<<16), exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = p.in.Close()
		select {
		case <-p.exited:
		case <-time.After(stopTimeout):
			_ = cmd.Process.Kill()
			<-p.exited
		}
		_ = p.outF.Close()
	})
	return p
}

func (p *proc) send(lines ...string) {
	p.t.Helper()
	_ = p.in.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(p.in, strings.Join(lines, "\n")+"\n"); err != nil {
		p.t.Fatalf("write to %v: %v", p.cmd.Args, err)
	}
}

func (p *proc) recv() string {
	p.t.Helper()
	_ = p.outF.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := p.out.ReadString('\n')
	if err != nil {
		p.t.Fatalf("read from %v: got %q, %v", p.cmd.Args, line, err)
	}
	return strings.TrimSuffix(line, "\n")
}

// wait closes stdin and returns the exit error.
func (p *proc) wait() error {
	p.t.Helper()
	_ = p.in.Close()
	select {
	case <-p.exited:
		return p.err
	case <-time.After(10 * time.Second):
		p.t.Fatalf("%v did not exit 10s after the end of its stdin", p.cmd.Args)
		return nil
	}
}

func TestSlowStdio(t *testing.T) {
	const delay = 200 * time.Millisecond
	p := startProc(t, Slow(t, "-delay", delay.String()))
	p.send(initialize)
	if got := p.recv(); !strings.Contains(got, `"protocolVersion":"2025-03-26"`) || !strings.Contains(got, `"name":"slow"`) {
		t.Errorf("initialize: got %s, want the version asked for and serverInfo slow", got)
	}
	p.send(initNote)
	began := time.Now()
	p.send(toolsCall(2, "hello"))
	if got, want := p.recv(), wantAnswer(2, "hello"); got != want {
		t.Errorf("tools/call: got %s, want %s", got, want)
	}
	if took := time.Since(began); took < delay {
		t.Errorf("tools/call answered after %s, want at least -delay %s", took, delay)
	}
	p.send(ping)
	if got, want := p.recv(), `{"jsonrpc":"2.0","id":"p","result":{}}`; got != want {
		t.Errorf("ping: got %s, want %s", got, want)
	}
	if err := p.wait(); err != nil {
		t.Errorf("exit at the end of stdin: got %v, want status 0", err)
	}
}

func TestSlowStdioConcurrent(t *testing.T) {
	const delay, calls = 200 * time.Millisecond, 20
	// -gate holds every tools/call until all of them have arrived: a
	// server that answered one call before reading the next would never
	// answer (recv's deadline fails the test), so no bound on the time.
	arrivals := filepath.Join(t.TempDir(), "arrivals")
	p := startProc(t, Slow(t, "-delay", delay.String(), "-arrivals", arrivals, "-gate", strconv.Itoa(calls)))
	var lines []string
	for i := range calls {
		lines = append(lines, toolsCall(i, "c"))
	}
	began := time.Now()
	p.send(lines...)
	seen := map[string]bool{}
	for range calls {
		seen[p.recv()] = true
	}
	took := time.Since(began)
	for i := range calls {
		if !seen[wantAnswer(i, "c")] {
			t.Errorf("no answer to tools/call %d", i)
		}
	}
	if took < delay {
		t.Errorf("%d calls answered after %s, want at least -delay %s", calls, took, delay)
	}
}

func TestSlowStart(t *testing.T) {
	const startDelay = 300 * time.Millisecond
	began := time.Now()
	p := startProc(t, Slow(t, "-start", startDelay.String()))
	p.send(initialize)
	p.recv()
	if took := time.Since(began); took < startDelay {
		t.Errorf("initialize answered %s after start, want at least -start %s", took, startDelay)
	}
}

func TestSlowArrivals(t *testing.T) {
	const delay = time.Second // the answers sent after tools/call come first
	path := filepath.Join(t.TempDir(), "arrivals")
	if err := os.WriteFile(path, []byte("earlier line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startProc(t, Slow(t, "-delay", delay.String(), "-arrivals", path))
	p.send(initialize, initNote, toolsCall(2, "x"), ping, `{"jsonrpc":"2.0","id":"srv-9","result":{}}`, "not json")
	if got := p.recv(); !strings.Contains(got, `"id":1`) {
		t.Fatalf("got %s, want the initialize answer first", got)
	}
	for _, want := range []string{`"id":"p"`, `"code":-32700`} {
		if got := p.recv(); !strings.Contains(got, want) {
			t.Fatalf("got %s, want an answer with %s before the delayed tools/call", got, want)
		}
	}
	// The tools/call is still delayed, and its arrival is already logged.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	want := []string{"initialize 1", "notifications/initialized -", "tools/call 2", `ping "p"`, `response "srv-9"`, "invalid -"}
	if len(lines) != len(want)+1 || lines[0] != "earlier line" {
		t.Fatalf("got arrivals\n%s\nwant the earlier line, then %d lines", b, len(want))
	}
	var last int64
	for i, line := range lines[1:] {
		var ns int64
		var rest string
		if _, err := fmt.Sscanf(line, "%d", &ns); err != nil {
			t.Errorf("line %q: %v", line, err)
		}
		rest = line[strings.IndexByte(line, ' ')+1:]
		if rest != want[i] {
			t.Errorf("line %d: got %q, want <ns> %s", i+1, line, want[i])
		}
		if ns < last || ns < time.Now().Add(-time.Minute).UnixNano() {
			t.Errorf("line %d: got time %d after %d, want recent and in order", i+1, ns, last)
		}
		last = ns
	}
	if got := p.recv(); got != wantAnswer(2, "x") {
		t.Errorf("got %s, want the delayed tools/call answer", got)
	}
}

func TestSlowHangNoRead(t *testing.T) {
	p := startProc(t, Slow(t, "-hang", "noread"))
	p.send(initialize)
	if got := p.recv(); !strings.Contains(got, `"serverInfo"`) {
		t.Fatalf("got %s, want the initialize answer", got)
	}
	for i := 1; i <= 2000; i++ {
		got := p.recv()
		want := fmt.Sprintf(`{"jsonrpc":"2.0","id":"srv-%d","method":"sampling/createMessage"`, i)
		if !strings.HasPrefix(got, want) || len(got) < 900 {
			t.Fatalf("line %d: got %.80s… (%d bytes), want %s… of about 1 KB", i, got, len(got), want)
		}
	}
	// Nobody reads stdin: a megabyte cannot be written.
	_ = p.in.SetWriteDeadline(time.Now().Add(500 * time.Millisecond))
	chunk := bytes.Repeat([]byte(ping+"\n"), 1<<20/len(ping))
	if n, err := p.in.Write(chunk); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("write of %d bytes: got %d written, %v; want it to block until the deadline", len(chunk), n, err)
	}
	_ = p.cmd.Process.Kill()
}

// TestSlowHangSilent: -hang silent answers every request but tools/call,
// and exits 0 at the end of its input all the same.
func TestSlowHangSilent(t *testing.T) {
	p := startProc(t, Slow(t, "-hang", "silent"))
	p.send(initialize)
	if got := p.recv(); !strings.Contains(got, `"serverInfo"`) {
		t.Fatalf("got %s, want the initialize answer", got)
	}
	p.send(initNote, toolsCall(2, "hello"), ping)
	if got, want := p.recv(), `{"jsonrpc":"2.0","id":"p","result":{}}`; got != want {
		t.Errorf("got %s, want the ping's answer %s (and none to tools/call)", got, want)
	}
	if err := p.wait(); err != nil {
		t.Errorf("exit at the end of stdin: got %v, want status 0", err)
	}
	if rest, _ := io.ReadAll(p.out); len(rest) > 0 {
		t.Errorf("after the ping's answer: %q, want nothing (tools/call is never answered)", rest)
	}
}

// TestSlowCancel: with -cancel, a delayed answer whose request the client
// cancels is never written, and the server does not wait for it at the
// end of its input (here an hour).
func TestSlowCancel(t *testing.T) {
	p := startProc(t, Slow(t, "-cancel", "-delay", "1h"))
	p.send(initialize)
	if got := p.recv(); !strings.Contains(got, `"serverInfo"`) {
		t.Fatalf("got %s, want the initialize answer", got)
	}
	p.send(toolsCall(2, "hello"), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`, ping)
	if got, want := p.recv(), `{"jsonrpc":"2.0","id":"p","result":{}}`; got != want {
		t.Errorf("got %s, want the ping's answer %s", got, want)
	}
	if err := p.wait(); err != nil {
		t.Errorf("exit at the end of stdin: got %v, want status 0", err)
	}
	if rest, _ := io.ReadAll(p.out); len(rest) > 0 {
		t.Errorf("after the ping's answer: %q, want nothing (the call was cancelled)", rest)
	}
}

func TestSlowHangNeedsItsTransport(t *testing.T) {
	for _, args := range [][]string{{"-hang", "headers"}, {"-hang", "429"}, {"-hang", "forever"}, {"-hang", "silent", "-http", "127.0.0.1:0"}} {
		out, err := exec.Command(Slow(t)[0], args...).CombinedOutput()
		if ee, ok := errors.AsType[*exec.ExitError](err); !ok || ee.ExitCode() != 2 {
			t.Errorf("%v: got %v (%s), want exit status 2 and a message", args, err, out)
		}
	}
}

// httpPost posts body to url and returns the answer's status, body and
// how long it took.
func httpPost(t *testing.T, ctx context.Context, client *http.Client, url, body string) (*http.Response, string, time.Duration, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	began := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", time.Since(began), err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, string(b), time.Since(began), err
}

// newClient is a client whose connections are closed when the test ends.
func newClient(t *testing.T) *http.Client {
	tr := &http.Transport{MaxIdleConnsPerHost: 100}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

func TestSlowHTTP(t *testing.T) {
	const delay = 200 * time.Millisecond
	url := SlowHTTP(t, "-delay", delay.String())
	client := newClient(t)
	resp, body, _, err := httpPost(t, t.Context(), client, url, initialize)
	if err != nil || resp.StatusCode != 200 || !strings.Contains(body, `"protocolVersion":"2025-03-26"`) {
		t.Fatalf("initialize: got %v, %s, %v; want 200 and the version asked for", resp, body, err)
	}
	if ct, id := resp.Header.Get("Content-Type"), resp.Header.Get("Mcp-Session-Id"); ct != "application/json" || id != "" {
		t.Errorf("initialize: got Content-Type %q, Mcp-Session-Id %q; want application/json and none", ct, id)
	}
	if resp, body, _, err := httpPost(t, t.Context(), client, url, initNote); err != nil || resp.StatusCode != 202 || body != "" {
		t.Errorf("notification: got %v, %q, %v; want 202 and no body", resp, body, err)
	}
	resp, body, took, err := httpPost(t, t.Context(), client, url, toolsCall(2, "hi"))
	if err != nil || resp.StatusCode != 200 || body != wantAnswer(2, "hi") {
		t.Errorf("tools/call: got %v, %s, %v; want 200 and %s", resp, body, err, wantAnswer(2, "hi"))
	}
	if took < delay {
		t.Errorf("tools/call answered after %s, want at least -delay %s", took, delay)
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	if resp, err := client.Do(req); err != nil || resp.StatusCode != 405 {
		t.Errorf("GET: got %v, %v; want 405", resp, err)
	} else {
		_ = resp.Body.Close()
	}
}

func TestSlowHTTPConcurrent(t *testing.T) {
	const delay, calls = 200 * time.Millisecond, 50
	// -gate holds every tools/call until all of them have arrived: only
	// a server that has all 50 in hand at once answers them (a queued
	// one would hang until the context's bound, a guard against hanging
	// only), so no bound on the time.
	arrivals := filepath.Join(t.TempDir(), "arrivals")
	url := SlowHTTP(t, "-delay", delay.String(), "-arrivals", arrivals, "-gate", strconv.Itoa(calls))
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	client := newClient(t)
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	began := time.Now()
	for i := range calls {
		wg.Go(func() {
			resp, body, _, err := httpPost(t, ctx, client, url, toolsCall(i, "c"))
			if err == nil && (resp.StatusCode != 200 || body != wantAnswer(i, "c")) {
				err = fmt.Errorf("got %d %s, want 200 %s", resp.StatusCode, body, wantAnswer(i, "c"))
			}
			errs <- err
		})
	}
	wg.Wait()
	took := time.Since(began)
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("tools/call: %v", err)
		}
	}
	if took < delay {
		t.Errorf("%d concurrent calls took %s, want at least -delay %s", calls, took, delay)
	}
}

// httpArrivals is what postArrivals posts, as the arrivals file names it
// after each line's time.
var httpArrivals = []string{"initialize 1", "notifications/initialized -", "tools/call 2"}

// postArrivals starts the slow server over HTTP with -arrivals (and
// args), posts it initialize, notifications/initialized and a tools/call
// in turn, each answered before the next, and returns the arrivals file's
// lines (without their newlines) and the client's clock before each post
// (Unix ns).
func postArrivals(t *testing.T, args ...string) (lines []string, before []int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "arrivals")
	url := SlowHTTP(t, append([]string{"-arrivals", path}, args...)...)
	client := newClient(t)
	for _, body := range []string{initialize, initNote, toolsCall(2, "a")} {
		before = append(before, time.Now().UnixNano())
		if _, _, _, err := httpPost(t, t.Context(), client, url, body); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		lines = append(lines, strings.TrimSuffix(line, "\n"))
	}
	return lines, before
}

func TestSlowHTTPArrivals(t *testing.T) {
	lines, _ := postArrivals(t)
	var got []string
	for _, line := range lines {
		_, rest, _ := strings.Cut(line, " ")
		got = append(got, rest)
	}
	if fmt.Sprint(got) != fmt.Sprint(httpArrivals) {
		t.Errorf("got arrivals %q, want %q", got, httpArrivals)
	}
}

// TestSlowHTTPArrivalsRx: with -rx each arrival line ends in the
// kernel's receive time of its request, which lies between the client's
// clock before it posted and the handler's time on the same line.
func TestSlowHTTPArrivalsRx(t *testing.T) {
	if !rxstamp.Supported {
		t.Skip("no receive stamps on this platform")
	}
	lines, before := postArrivals(t, "-rx")
	if len(lines) != len(before) {
		t.Fatalf("got arrivals %q, want one line for each of the %d posts", lines, len(before))
	}
	var got []string
	for i, line := range lines {
		f := strings.Fields(line)
		if len(f) != 4 || !strings.HasPrefix(f[3], "rx=") {
			t.Fatalf("line %q: want 4 fields, the last rx=<unix ns>", line)
		}
		read, err1 := strconv.ParseInt(f[0], 10, 64)
		rx, err2 := strconv.ParseInt(f[3][len("rx="):], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("line %q: %v %v", line, err1, err2)
		}
		if rx < before[i] || rx > read {
			t.Errorf("line %q: received at %d, want between the post at %d and the handler's %d", line, rx, before[i], read)
		}
		got = append(got, f[1]+" "+f[2])
	}
	if fmt.Sprint(got) != fmt.Sprint(httpArrivals) {
		t.Errorf("got arrivals %q, want %q", got, httpArrivals)
	}
}

// TestSlowRxNeedsHTTPAndArrivals: -rx alone is refused with status 2.
func TestSlowRxNeedsHTTPAndArrivals(t *testing.T) {
	for _, args := range [][]string{{"-rx"}, {"-rx", "-http", "127.0.0.1:0"}} {
		argv := Slow(t, args...)
		cmd := exec.Command(argv[0], argv[1:]...)
		out, err := cmd.CombinedOutput()
		if ee, ok := errors.AsType[*exec.ExitError](err); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "-rx: want -http ADDR and -arrivals FILE") {
			t.Errorf("slow %v: got %v, %q, want exit 2 and what -rx needs", args, err, out)
		}
	}
}

func TestSlowHTTPHang(t *testing.T) {
	t.Run("headers", func(t *testing.T) {
		url := SlowHTTP(t, "-hang", "headers")
		client := newClient(t)
		ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
		defer cancel()
		resp, _, _, err := httpPost(t, ctx, client, url, toolsCall(2, "h"))
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("tools/call: got %v, %v; want no headers until the client gives up", resp, err)
		}
		if resp, _, _, err := httpPost(t, t.Context(), client, url, ping); err != nil || resp.StatusCode != 200 {
			t.Errorf("ping after: got %v, %v; want 200 (only tools/call hangs)", resp, err)
		}
	})
	t.Run("429", func(t *testing.T) {
		url := SlowHTTP(t, "-hang", "429")
		resp, _, _, err := httpPost(t, t.Context(), newClient(t), url, toolsCall(2, "h"))
		if err != nil || resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "100000" {
			t.Errorf("tools/call: got %v, %v; want 429 with Retry-After: 100000", resp, err)
		}
	})
}

func TestSlowHandler(t *testing.T) {
	const delay = 100 * time.Millisecond
	srv := httptest.NewServer(SlowHandler(delay))
	t.Cleanup(srv.Close)
	client := srv.Client()
	t.Cleanup(client.CloseIdleConnections)
	resp, body, took, err := httpPost(t, t.Context(), client, srv.URL+"/mcp", toolsCall(3, "in process"))
	if err != nil || resp.StatusCode != 200 || body != wantAnswer(3, "in process") {
		t.Errorf("tools/call: got %v, %s, %v; want 200 and %s", resp, body, err, wantAnswer(3, "in process"))
	}
	if took < delay {
		t.Errorf("answered after %s, want at least %s", took, delay)
	}
}
