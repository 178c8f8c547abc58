package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testserver"
)

// A cassette whose recorded server ping has "jsonrpc":2.0 (a number): the
// tape could not read that request, so run does not wait for the live
// server to ask it, and its warning names the method (not an empty one).
func TestRunUnreadServerRequest(t *testing.T) {
	testserver.NeedEverything(t)
	vcr := `{"format_version":"1.0.0","metadata":{"version":"1.0","transport":"stdio"},"session":{` +
		`"initialize_request":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}},` +
		`"initialize_response":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}},` +
		`"interactions":[` +
		`{"sequence":0,"direction":"server_to_client","request":{"jsonrpc":2.0,"id":1,"method":"ping","params":null},"response":{"jsonrpc":"2.0","id":1,"result":{}},"notifications":[]},` +
		`{"sequence":1,"direction":"client_to_server","request":{"jsonrpc":"2.0","id":2,"method":"tools/list"},"response":{"jsonrpc":"2.0","id":2,"result":{"tools":[]}},"notifications":[]}` +
		`]}}` + "\n"
	path := filepath.Join(t.TempDir(), "ask.vcr")
	if err := os.WriteFile(path, []byte(vcr), 0o644); err != nil {
		t.Fatal(err)
	}
	// --timeout bounds the wait the bug made: a wait for the ping shows
	// as the "did not ask" warning once it is over.
	args := append([]string{"run", path, "--timeout", "15s", "--"}, testserver.Everything(t)...)
	res := replayctl(t, args...)
	if strings.Contains(res.stderr, "did not ask") {
		t.Errorf("run waited for a server request the tape could not read:\n%s", res.stderr)
	}
	if !strings.Contains(res.stdout+res.stderr, "ping") {
		t.Errorf("run does not name the unread request's method (ping):\n%s%s", res.stdout, res.stderr)
	}
}
