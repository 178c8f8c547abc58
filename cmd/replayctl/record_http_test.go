package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/internal/testtape"
	mcpwire "github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/tape"
)

// clientThrough runs one go-sdk client session (ScriptAll, 2025-11-25)
// through url, with credentials the tape must not keep.
func clientThrough(ctx context.Context, url, name string) error {
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: authTransport{tr}}
	cs, err := testtape.NewClient(name).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc},
		&mcp.ClientSessionOptions{ProtocolVersion: mcpwire.V20251125})
	if err != nil {
		return err
	}
	if err := testtape.ScriptAll(ctx, cs); err != nil {
		cs.Close()
		return err
	}
	return cs.Close()
}

const recordSecret = "cli-secret-token-5d1e"

type authTransport struct{ rt http.RoundTripper }

func (a authTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+recordSecret)
	return a.rt.RoundTrip(r)
}

// TestRecordHTTP records three concurrent go-sdk clients through the
// binary, stops it with SIGINT, and replays the tape with `run`.
func TestRecordHTTP(t *testing.T) {
	upstream := testserver.GoSDKHTTP(t)
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	rec := startHTTPRecorder(t, upstream, path, "--tag", "by=test")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	errs := make(chan error, 3)
	for i := range 3 {
		go func() { errs <- clientThrough(ctx, rec.url, fmt.Sprintf("cli-%d", i)) }()
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	rec.stop(t)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), recordSecret) {
		t.Fatal("the Authorization header's token is on the tape")
	}
	if !strings.Contains(string(raw), `{"type":"end"`) {
		t.Fatalf("no end line after SIGINT:\n%s", raw)
	}
	r, err := tape.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if h := r.Header(); h.ProtocolVersion != mcpwire.V20251125 || h.Transport != "streamable-http" || h.Tags["by"] != "test" || h.Server == nil || h.Server.URL != upstream {
		t.Errorf("header %+v", h)
	}
	r.Close()
	res := replayctl(t, "run", path, "--target", upstream, "--speed", "fast", "-o", "json")
	if res.code != 0 {
		t.Fatalf("run: exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	if rep := decodeReport(t, res.stdout); rep.Summary.Sessions != 3 || rep.Validation.Failed != 0 || rep.Validation.Checked < 3*14 {
		t.Errorf("replay: %d sessions, %d checked, %d failed; want 3 sessions, ≥ 42 checked, 0 failed", rep.Summary.Sessions, rep.Validation.Checked, rep.Validation.Failed)
	}
}

// TestRecordHTTPKill9: a recorder killed with SIGKILL while a client is
// in the middle of its session leaves a tape that loads, every whole
// line kept.
func TestRecordHTTPKill9(t *testing.T) {
	upstream := testserver.GoSDKHTTP(t)
	path := filepath.Join(t.TempDir(), "killed.jsonl")
	rec := startHTTPRecorder(t, upstream, path, "--tag", "by=test")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := clientThrough(ctx, rec.url, "before"); err != nil {
		t.Fatal(err)
	}
	// A second client connects (its GET stream is open) and is left there.
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	cs, err := testtape.NewClient("during").Connect(ctx, &mcp.StreamableClientTransport{Endpoint: rec.url, HTTPClient: &http.Client{Transport: tr}},
		&mcp.ClientSessionOptions{ProtocolVersion: mcpwire.V20251125})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := rec.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-rec.done
	_ = rec.cmd.Wait()
	_ = cs.Close() // fails: the proxy is gone
	r, err := tape.Open(path)
	if err != nil {
		t.Fatalf("the tape of a killed recorder does not load: %v", err)
	}
	defer r.Close()
	var n int
	sessions := map[string]bool{}
	for {
		m, err := r.Next()
		if err != nil {
			break
		}
		n++
		sessions[m.Session] = true
	}
	if n < 30 || len(sessions) != 2 {
		t.Errorf("%d messages in %d sessions, want the whole first session and the start of the second", n, len(sessions))
	}
}

func TestRecordHTTPUsage(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"record", "-o", dir + "/a.jsonl", "--upstream", "http://127.0.0.1:1/mcp"}, "needs --listen"},
		{[]string{"record", "-o", dir + "/a.jsonl", "--listen", "127.0.0.1:0"}, "needs --upstream"},
		{[]string{"record", "-o", dir + "/a.jsonl", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:1/mcp", "--", "node", "s.js"}, "give one or the other"},
		{[]string{"record", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:1/mcp"}, "-o TAPE is required"},
		{[]string{"record", "-o", dir + "/a.jsonl", "--listen", "127.0.0.1:0", "--upstream", "127.0.0.1:1"}, "not an http:// or https:// URL"},
		{[]string{"record", "-o", dir + "/a.jsonl", "--listen", "256.0.0.1:0", "--upstream", "http://127.0.0.1:1/mcp"}, "--listen 256.0.0.1:0"},
		{[]string{"record", "-o", dir + "/no/such/dir/a.jsonl", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:1/mcp"}, "does not exist"},
	}
	for _, tc := range tests {
		res := replayctl(t, tc.args...)
		if res.code != 2 || !strings.Contains(res.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args[1:], res.code, res.stderr, tc.want)
		}
	}
}

// TestRecordHTTPForceRefusedKeepsTheTape: record --force over an
// existing tape that is refused before recording anything (a bad
// --upstream, a --listen address in use) exits 2 and leaves the
// existing tape as it was: --force replaces a tape with a recording, not
// with nothing.
func TestRecordHTTPForceRefusedKeepsTheTape(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	old := []byte(`{"type":"header","format":"replayctl-tape","version":1,"transport":"streamable-http"}` + "\n")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"bad upstream", []string{"--listen", "127.0.0.1:0", "--upstream", "127.0.0.1:1"}, "not an http:// or https:// URL"},
		{"listen in use", []string{"--listen", busy.Addr().String(), "--upstream", "http://127.0.0.1:1/mcp"}, "--listen"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "old.jsonl")
			if err := os.WriteFile(path, old, 0o644); err != nil {
				t.Fatal(err)
			}
			res := replayctl(t, append([]string{"record", "-o", path, "--force"}, tc.args...)...)
			if res.code != 2 || !strings.Contains(res.stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", res.code, res.stderr, tc.want)
			}
			if got, err := os.ReadFile(path); err != nil || string(got) != string(old) {
				t.Errorf("the existing tape is now %q (%v); want it unchanged", got, err)
			}
		})
	}
}

// TestRecordHTTPForceReplacesTheTape: record --force over a longer
// existing tape, stopped with nothing recorded, leaves a tape of its own
// (header and end line), nothing of the old one after it.
func TestRecordHTTPForceReplacesTheTape(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.jsonl")
	old := `{"type":"header","format":"replayctl-tape","version":1,"transport":"stdio"}` + "\n" +
		`{"type":"message","seq":0,"t_us":0,"session":"old","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"padding":"` + strings.Repeat("x", 4096) + `"}}}` + "\n"
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	// An upstream that is up: one that cannot be reached and answers
	// nothing leaves no tape at all (TestRecordListenUpstreamDownLeavesNoTape).
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
	}))
	defer upstream.Close()
	cmd := exec.Command(binary, "record", "-o", path, "--force", "--listen", "127.0.0.1:0", "--upstream", upstream.URL+"/mcp")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), "recording ") {
		t.Fatalf("first stderr line %q, want \"recording …\"", sc.Text())
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	for sc.Scan() {
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("record stopped by SIGINT: %v", err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got), "xxxxxxxx") || strings.ContainsRune(string(got), 0) || !strings.Contains(string(got), `"streamable-http"`) {
		t.Errorf("the tape after --force is %q; want the new recording's header and end line only", clip(string(got), 300))
	}
}

// TestRecordHTTPSSEEventOverLimit: an SSE event over --max-message (a
// 2 MiB log notification, over 1 MiB) is relayed to the client and left
// off the tape with a warning, and the rest of its stream, the final
// answer included, is still recorded.
func TestRecordHTTPSSEEventOverLimit(t *testing.T) {
	big := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + strings.Repeat("x", 2<<20) + `"}}`
	final := `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"the final answer"}]}}`
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch {
		case bytes.Contains(body, []byte(`"initialize"`)):
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"big","version":"1"}}}`)
		case bytes.Contains(body, []byte(`"tools/call"`)):
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: message\ndata: %s\n\nevent: message\ndata: %s\n\n", big, final)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer upstream.Close()
	path := filepath.Join(t.TempDir(), "t.jsonl")
	rec := startHTTPRecorder(t, upstream.URL+"/mcp", path, "--max-message", "1MiB")
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"big","arguments":{}}}`,
	} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, rec.url, strings.NewReader(msg))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %s: %d, %v", msg[:40], resp.StatusCode, err)
		}
		if strings.Contains(msg, "tools/call") && (!bytes.Contains(got, []byte(big)) || !bytes.Contains(got, []byte(final))) {
			t.Fatalf("the client got %d bytes, want the whole stream: the big event and the final answer", len(got))
		}
	}
	rec.stop(t)
	_, msgs, _, _ := readAll(t, path)
	var answered, bigOnTape bool
	for _, m := range msgs {
		answered = answered || m.Dir == tape.S2C && bytes.Contains(m.Msg, []byte("the final answer"))
		bigOnTape = bigOnTape || bytes.Contains(m.Msg, []byte("notifications/message"))
	}
	if !answered || bigOnTape {
		t.Errorf("tape: final answer recorded %v (want true), the event over the limit recorded %v (want false)", answered, bigOnTape)
	}
	if !strings.Contains(rec.rest(), "over the message limit") {
		t.Errorf("record's stderr has no warning about the event over the limit:\n%s", rec.rest())
	}
}
