package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestServeStdioAnswersPipelinedInitializeFirst: a client that writes
// initialize and its next requests at once (a script, a pipe) gets the
// initialize answer first, as from a server that handles the handshake
// before what follows it, even when the tape recorded the handshake as
// slow (--timing recorded: 254ms against a few for tools/list and ping).
// serve answered it last.
func TestServeStdioAnswersPipelinedInitializeFirst(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"replayctl-test","version":"1.0.0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":1,"method":"tools/list"}
{"jsonrpc":"2.0","id":2,"method":"ping"}
`
	res := replayctlIn(t, in, "serve", "--timing", "recorded", "examples/everything.jsonl")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(res.stdout), "\n") {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		if m.ID != nil {
			ids = append(ids, string(m.ID))
		}
	}
	// tools/list and ping go on at once after the handshake: either order.
	if len(ids) != 3 || ids[0] != "0" {
		t.Errorf("answers to ids %v, want 0 (initialize) first, then 1 and 2:\n%s", ids, res.stdout)
	}
}
