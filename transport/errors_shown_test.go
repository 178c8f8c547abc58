package transport

import (
	"errors"
	"net"
	"net/url"
	"strings"
	"syscall"
	"testing"
)

// TestHTTPErrorShownBody: an HTTPError keeps the start of the body as it
// came (Body, which the engine reads as a JSON-RPC answer), and its
// message shows a web page by its title, anything else folded and cut.
func TestHTTPErrorShownBody(t *testing.T) {
	page := "<!DOCTYPE html>\n<html><head><title> Not Found </title></head>\n<body>" + strings.Repeat("<p>x</p>\n", 300) + "</body></html>"
	long := `{"jsonrpc": "2.0",` + "\n  " + `"id": 1, "error": {"code": -32600, "message": "` + strings.Repeat("m", 300) + `"}}`
	for _, tc := range []struct {
		media, body string
		want        string
		maxLen      int
	}{
		{"text/html", page, `: a web page ("Not Found"), not MCP: is this URL the MCP endpoint (often …/mcp)?`, 200},
		{"", "<html><body>oops</body></html>", `: a web page, not MCP: is this URL`, 200},
		{"application/json", long, `: {"jsonrpc": "2.0", "id": 1,`, 300},
		{"text/plain", "busy", ": busy", 100},
	} {
		e := &HTTPError{Method: "POST", URL: "http://127.0.0.1:1/x", Status: 404, Body: tc.body, mediaType: tc.media}
		if e.Body != tc.body {
			t.Errorf("Body changed")
		}
		msg := e.Error()
		if !strings.Contains(msg, tc.want) || len(msg) > tc.maxLen {
			t.Errorf("got %q (%d bytes), want it to contain %q, at most %d bytes", msg, len(msg), tc.want, tc.maxLen)
		}
	}
}

// TestRequestFailed: a request that got no answer names the method and
// URL once, matches ErrTarget and the url.Error, and asks whether the
// server runs when the connection was refused.
func TestRequestFailed(t *testing.T) {
	refused := &url.Error{Op: "Post", URL: "http://127.0.0.1:1/mcp", Err: &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}}
	other := &url.Error{Op: "Post", URL: "http://127.0.0.1:1/mcp", Err: errors.New("tls: bad certificate")}
	for _, tc := range []struct {
		err       error
		hint      bool
		wantCause string
	}{
		{refused, true, "connection refused"},
		{other, false, "tls: bad certificate"},
	} {
		err := requestFailed("POST", "http://127.0.0.1:1/mcp", tc.err)
		msg := err.Error()
		var ue *url.Error
		if !errors.Is(err, ErrTarget) || !errors.As(err, &ue) {
			t.Errorf("%v: does not match ErrTarget and *url.Error", err)
		}
		if strings.Count(msg, "127.0.0.1:1/mcp") != 1 || !strings.Contains(msg, tc.wantCause) ||
			strings.Contains(msg, "is the server running?") != tc.hint {
			t.Errorf("got %q; want the URL once, %q, hint %v", msg, tc.wantCause, tc.hint)
		}
	}
}
