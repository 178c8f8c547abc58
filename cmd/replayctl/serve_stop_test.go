//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testbuf"
	"github.com/replayctl/replayctl/serve"
)

// bigText is the size of the answer the stuck clients never read: more
// than the loopback socket buffers of both ends hold.
const bigText = 12 << 20

// stopBound bounds how long serve may take to exit once signalled with a
// client that reads nothing: its stop grace is a few seconds; without a
// bound it would wait for the client for ever.
const stopBound = 20 * time.Second

// answerBound bounds how long a test waits for serve to answer a
// request: a failure deadline, not a timing assertion.
const answerBound = 30 * time.Second

// answerClient is the HTTP client of the tests' raw clients.
var answerClient = &http.Client{Timeout: answerBound}

// fakeUpstream is a Streamable HTTP MCP server on loopback, for what the
// real ones do not do: it answers initialize (with a session id), takes
// notifications (202), and has answer answer every other request.
func fakeUpstream(t *testing.T, answer func(w http.ResponseWriter, m rpcIn)) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var m rpcIn
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		switch {
		case m.ID == nil:
			w.WriteHeader(http.StatusAccepted)
		case m.Method == "initialize":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Mcp-Session-Id", "fake-1")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}}`, m.ID)
		default:
			answer(w, m)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// bigAnswer answers a request with a text of bigText bytes, marked so
// that a test can find it in a tape.
func bigAnswer(w http.ResponseWriter, m rpcIn) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"big-answer-%s"}]}}`, m.ID, strings.Repeat("x", bigText))
}

// httpRawClient is a client of serve's Streamable HTTP endpoint written by
// hand, so that it can stop reading.
type httpRawClient struct {
	t       *testing.T
	url     string
	session string
}

// initialize opens a session as the handshake tape's client did.
func (c *httpRawClient) initialize() {
	c.t.Helper()
	resp := c.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"result"`)) {
		c.t.Fatalf("initialize: HTTP %d: %s", resp.StatusCode, body)
	}
	c.session = resp.Header.Get("Mcp-Session-Id")
	resp = c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// post sends one message and returns the answer, unread.
func (c *httpRawClient) post(msg string) *http.Response {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.url, strings.NewReader(msg))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	resp, err := answerClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp
}

// stuck sends msg on a connection of its own, reads the answer's status
// line and headers (serve is then writing the answer) and nothing more:
// serve's write of the rest stays blocked until the connection goes.
func (c *httpRawClient) stuck(msg string) {
	c.t.Helper()
	u, err := url.Parse(c.url)
	if err != nil {
		c.t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { conn.Close() })
	_ = conn.(*net.TCPConn).SetReadBuffer(4 << 10)
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2025-11-25\r\nMcp-Session-Id: %s\r\nContent-Length: %d\r\n\r\n%s",
		u.Path, u.Host, c.session, len(msg), msg)
	_ = conn.SetReadDeadline(time.Now().Add(serveWait))
	br := bufio.NewReaderSize(conn, 1<<10)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			c.t.Fatalf("the answer's headers: %v", err)
		}
		if line == "\r\n" {
			return
		}
	}
}

// bigCall is the request the stuck clients make.
const bigCall = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"big","arguments":{}}}`

// signalAndWait sends sig to serve and returns its exit status and stderr,
// failing the test when it runs past stopBound.
func (p *servingProcess) signalAndWait(t *testing.T, sig syscall.Signal) (int, string) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.done:
		p.done <- err // for Cleanup
		return p.cmd.ProcessState.ExitCode(), p.stderr.String()
	case <-time.After(stopBound):
		t.Fatalf("serve still running %s after %s; stderr:\n%s", stopBound, sig, clip(p.stderr.String(), 3000))
		return 0, ""
	}
}

// TestServeStopsWithAnswerUnread: a client holding a 12 MB answer unread
// does not keep serve from stopping: SIGINT ends serve --mode new (its
// journal, which holds the answer, merged into the tape), then the replay
// of that tape, and serve --mode record, each within stopBound.
func TestServeStopsWithAnswerUnread(t *testing.T) {
	upstream := fakeUpstream(t, bigAnswer)
	path := handshakeTape(t)
	big := []string{"--max-message", "67108864", "--max-line", "67108864"}

	p := startServe(t, append([]string{path, "--mode", "new", "--upstream", upstream}, big...)...)
	c := &httpRawClient{t: t, url: p.url}
	c.initialize()
	c.stuck(bigCall)
	code, stderr := p.signalAndWait(t, syscall.SIGINT)
	if code != 0 {
		t.Errorf("serve --mode new: exit %d, want 0; stderr:\n%s", code, clip(stderr, 3000))
	}
	if _, err := os.Stat(serve.Journal(path)); err == nil {
		t.Errorf("serve --mode new left its journal unmerged; stderr:\n%s", clip(stderr, 3000))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("big-answer-")) {
		t.Fatalf("the tape lacks the forwarded answer (%d bytes); stderr:\n%s", len(data), clip(stderr, 3000))
	}

	q := startServe(t, append([]string{path}, big...)...)
	c = &httpRawClient{t: t, url: q.url}
	c.initialize()
	c.stuck(bigCall)
	if code, stderr := q.signalAndWait(t, syscall.SIGINT); code != 0 {
		t.Errorf("serve (replay): exit %d, want 0; stderr:\n%s", code, clip(stderr, 3000))
	}

	rec := filepath.Join(t.TempDir(), "rec.jsonl")
	r := startServe(t, append([]string{rec, "--mode", "record", "--upstream", upstream}, big...)...)
	c = &httpRawClient{t: t, url: r.url}
	c.initialize()
	c.stuck(bigCall)
	if code, stderr := r.signalAndWait(t, syscall.SIGINT); code != 0 {
		t.Errorf("serve --mode record: exit %d, want 0; stderr:\n%s", code, clip(stderr, 3000))
	}
}

// TestServeSecondSignalForces: a second SIGINT while serve --mode new
// stops (here it waits --stop-timeout, a minute, for an upstream that
// ignores the end of its input and SIGTERM) ends it at once: exit 130,
// saying so; the journal was merged into the tape first, before the
// wait.
func TestServeSecondSignalForces(t *testing.T) {
	path := handshakeTape(t)
	upstream := fakeStdioCommand(t, "stubborn")
	p := startServe(t, append([]string{path, "--mode", "new", "--stop-timeout", "1m", "--"}, upstream...)...)
	c := &httpRawClient{t: t, url: p.url}
	c.initialize()
	resp := c.post(bigCall)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(body, []byte("fake-answer")) {
		t.Fatalf("the forwarded call: HTTP %d: %s", resp.StatusCode, body)
	}
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	// The journal is merged before the upstream is waited for; a second
	// signal is heeded once serve has said so.
	deadline := time.Now().Add(serveWait)
	for s := p.stderr.String(); !strings.Contains(s, "forwarded to the upstream and added to") || !strings.Contains(s, "a second Ctrl-C"); s = p.stderr.String() {
		if time.Now().After(deadline) {
			t.Fatalf("serve did not merge its journal; stderr:\n%s", clip(p.stderr.String(), 3000))
		}
		select {
		case err := <-p.done:
			p.done <- err
			t.Fatalf("serve exited (%v) on the first signal, though its upstream ignores it; stderr:\n%s", err, clip(p.stderr.String(), 3000))
		case <-time.After(20 * time.Millisecond):
		}
	}
	code, stderr := p.signalAndWait(t, syscall.SIGINT)
	if code != exitInterrupted || !strings.Contains(stderr, "stopped at once") || !strings.Contains(stderr, "the journal is merged") {
		t.Errorf("exit %d, want 130 saying it stopped at once, the journal merged; stderr:\n%s", code, clip(stderr, 3000))
	}
	if _, err := os.Stat(serve.Journal(path)); err == nil {
		t.Errorf("the journal is left unmerged")
	}
	if data, err := os.ReadFile(path); err != nil || !bytes.Contains(data, []byte("fake-answer")) {
		t.Errorf("the tape lacks the forwarded answer (%v):\n%s", err, clip(string(data), 3000))
	}
}

// TestServeStdioStopsWithAnswerUnread: over stdio too, a client that
// reads none of a 12 MB answer does not keep serve from stopping at
// SIGINT.
func TestServeStdioStopsWithAnswerUnread(t *testing.T) {
	path := handshakeTape(t)
	answer := fmt.Sprintf(`{"type":"message","seq":3,"t_us":30,"session":"s1","dir":"c2s","msg":%s}
{"type":"message","seq":4,"t_us":40,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"%s"}]}}}
`, bigCall, strings.Repeat("x", bigText))
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(answer); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "serve", "--max-line", "67108864", path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe() // read up to the first answer, then never again
	if err != nil {
		t.Fatal(err)
	}
	var stderr testbuf.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	fmt.Fprintf(stdin, "%s\n%s\n", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
		t.Fatalf("the initialize answer: %v; stderr:\n%s", err, stderr.String())
	}
	fmt.Fprintf(stdin, "%s\n", bigCall) // its answer is never read
	// Serve is writing the answer once it has read the request: stdin
	// takes the next line only after serve has taken the call (a pipe
	// holds 64 KiB, so fill it past that).
	if _, err := io.WriteString(stdin, strings.Repeat(" ", 1<<20)); err != nil {
		t.Fatalf("serve stopped reading: %v", err)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
		done <- nil
		if code := cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("serve: exit %d, want 0; stderr:\n%s", code, clip(stderr.String(), 3000))
		}
	case <-time.After(stopBound):
		t.Fatalf("serve still running %s after SIGINT; stderr:\n%s", stopBound, clip(stderr.String(), 3000))
	}
}
