package main

import (
	"strings"
	"testing"
)

// TestServeInitializeVersionMiss: a client of a newer revision than the
// recorded one (the TypeScript SDK's 2025-11-25 against a 2025-06-18
// tape) misses at initialize; the miss says "an initialize request" and
// how to have the recorded revision answered (--volatile
// initialize:params.protocolVersion, as MCP's version negotiation lets a
// server answer with the version it supports), which then works; the
// closing line counts in English ("1 miss, 0 faults injected").
func TestServeInitializeVersionMiss(t *testing.T) {
	const init = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n"
	res := replayctlIn(t, init, "serve", "examples/everything.jsonl")
	for _, want := range []string{"an initialize request", "--volatile initialize:params.protocolVersion", "served: 1 miss, 0 faults injected"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("serve, a 2025-11-25 initialize: got stderr %q, want it to say %q", res.stderr, want)
		}
	}
	res = replayctlIn(t, init, "serve", "examples/everything.jsonl", "--volatile", "initialize:params.protocolVersion")
	if !strings.Contains(res.stdout, `{"result":{"protocolVersion":"2025-06-18"`) || !strings.Contains(res.stderr, "served: 0 misses") {
		t.Errorf("serve --volatile initialize:params.protocolVersion: got stdout %q, stderr %q, want the recorded 2025-06-18 answer and no miss", res.stdout, res.stderr)
	}
}

// TestServeMissingTapeSaidOnce: "serve x: tape x: cannot open it" named
// the tape twice; it is named once.
func TestServeMissingTapeSaidOnce(t *testing.T) {
	res := replayctl(t, "serve", "nope.jsonl")
	if res.code != 2 || strings.Count(res.stderr, "nope.jsonl") != 1 || !strings.Contains(res.stderr, "cannot open it") {
		t.Errorf("serve nope.jsonl: got exit %d, stderr %q, want exit 2 and the tape named once", res.code, res.stderr)
	}
}
