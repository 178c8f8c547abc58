//go:build unix

package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestServeModeNewUpstreamFaults: a miss forwarded to an upstream that
// fails to answer it — over HTTP with a body that is not JSON, an event
// stream reset before the answer, or HTTP 500; over stdio with a line
// that is not JSON or by exiting — is answered at once with a JSON-RPC
// error naming the fault, listed as a miss (the summary's count and the
// forwarder's agree), and --strict exits 1.
func TestServeModeNewUpstreamFaults(t *testing.T) {
	for _, tc := range []struct {
		name     string
		upstream func(t *testing.T) []string // serve's upstream arguments
		want     string                      // in the client's error
	}{
		{"http/not JSON", func(t *testing.T) []string {
			return []string{"--upstream", fakeUpstream(t, func(w http.ResponseWriter, m rpcIn) {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, "<html>502 Bad Gateway</html>")
			})}
		}, "not JSON"},
		{"http/stream reset", func(t *testing.T) []string {
			return []string{"--upstream", fakeUpstream(t, func(w http.ResponseWriter, m rpcIn) {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\nevent: message\ndata: {\"jsonrpc\":")
				_ = http.NewResponseController(w).Flush()
				panic(http.ErrAbortHandler) // the connection is cut mid-event
			})}
		}, "event stream"},
		{"http/status 500", func(t *testing.T) []string {
			return []string{"--upstream", fakeUpstream(t, func(w http.ResponseWriter, m rpcIn) {
				http.Error(w, "upstream on fire", http.StatusInternalServerError)
			})}
		}, "HTTP 500"},
		{"stdio/not JSON", func(t *testing.T) []string {
			return append([]string{"--"}, fakeStdioCommand(t, "garbage")...)
		}, "is not JSON"},
		{"stdio/exit", func(t *testing.T) []string {
			return append([]string{"--"}, fakeStdioCommand(t, "exit")...)
		}, "exited with status 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := handshakeTape(t)
			p := startServe(t, append([]string{"--strict", path, "--mode", "new"}, tc.upstream(t)...)...)
			c := &httpRawClient{t: t, url: p.url}
			c.initialize()
			resp := c.post(bigCall)
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || !bytes.Contains(body, []byte(`"error"`)) || !strings.Contains(string(body), tc.want) {
				t.Errorf("the client got HTTP %d %q (%v); want a JSON-RPC error saying %q", resp.StatusCode, clip(string(body), 2000), err, tc.want)
			}
			code, stderr := p.stop(t)
			if code != exitFailed || !strings.Contains(stderr, "served: 1 miss,") || !strings.Contains(stderr, "1 miss could not be") {
				t.Errorf("serve --strict: exit %d, want 1 with one miss, not forwarded; stderr:\n%s", code, clip(stderr, 3000))
			}
		})
	}
}

// TestServeModeNewUpstreamBanner: a stdio upstream that writes a banner
// that is not JSON on stdout while it starts (before its answer to the
// handshake's initialize) is not taken for a fault: the miss is
// forwarded and answered.
func TestServeModeNewUpstreamBanner(t *testing.T) {
	path := handshakeTape(t)
	p := startServe(t, append([]string{"--strict", path, "--mode", "new", "--"}, fakeStdioCommand(t, "banner")...)...)
	c := &httpRawClient{t: t, url: p.url}
	c.initialize()
	resp := c.post(bigCall)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || !bytes.Contains(body, []byte("fake-answer")) {
		t.Errorf("the client got HTTP %d %q (%v); want the upstream's answer", resp.StatusCode, clip(string(body), 2000), err)
	}
	if code, stderr := p.stop(t); code != 0 {
		t.Errorf("serve --strict: exit %d, want 0; stderr:\n%s", code, clip(stderr, 3000))
	}
}

// TestServeStdioModeNewUpstreamGarbage: over stdio too, a client whose
// miss the upstream answers with a line that is not JSON gets an error
// answer while its stdin is still open.
func TestServeStdioModeNewUpstreamGarbage(t *testing.T) {
	path := handshakeTape(t)
	p := startProc(t, append([]string{binary, "serve", "--strict", path, "--mode", "new", "--"}, fakeStdioCommand(t, "garbage")...)...)
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		bigCall,
	} {
		if _, err := io.WriteString(p.stdin, m+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	p.waitOutput(p.stdout, `"id":2,"error"`, answerBound)
	if !strings.Contains(p.stdout.String(), "is not JSON") {
		t.Errorf("the error does not name the fault:\n%s", clip(p.stdout.String(), 3000))
	}
	p.stdin.Close()
	if code := p.wait(answerBound); code != exitFailed {
		t.Errorf("serve --strict: exit %d, want 1; stderr:\n%s", code, clip(p.stderr.String(), 3000))
	}
}
