package main

import (
	"os"
	"path/filepath"
	"testing"
)

// handshakeTape writes a tape holding one session's initialize and
// initialized, answered as fakeUpstream answers them, and returns its
// path.
func handshakeTape(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.jsonl")
	const tapeText = `{"type":"header","format":"replayctl-tape","version":1,"protocol_version":"2025-11-25","transport":"streamable-http"}
{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}}
{"type":"message","seq":1,"t_us":10,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}}}
{"type":"message","seq":2,"t_us":20,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}
`
	if err := os.WriteFile(path, []byte(tapeText), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
