package main

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testserver"
)

// TestRecordFromAFile: `record -- SERVER < requests.jsonl` sends every
// message of the file and records the answer to every request in it, also
// from a server that, as the go-sdk's does, drops the requests it is
// still working on when its stdin ends: at the end of a file (no client
// waits on the answers) record closes the server's stdin only once
// every request is answered. It ends cleanly (exit 0, the tape whole),
// and leaves the file as it was.
func TestRecordFromAFile(t *testing.T) {
	lines := []string{
		initializeLine,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"ping"}`,
	}
	// tools/call is answered after 300ms: the file has long ended then.
	r := recordFromFile(t, lines, append([]string{"--"}, testserver.Volatile(t, "-delay", "300ms")...)...)
	stdout, stderr := r.stdout, r.stderr
	if code := r.wait(t, 2*time.Minute); code != 0 {
		t.Errorf("exit %d, want 0; stderr:\n%s", code, stderr)
	}
	answered, _ := answeredIDs(t, r.path)
	for _, id := range []string{"1", "2", "3", "4"} {
		if !answered[id] {
			t.Errorf("request %s has no answer on the tape; stderr:\n%s", id, stderr)
		}
	}
	for _, id := range []string{`"id":1`, `"id":2`, `"id":3`, `"id":4`} {
		if !strings.Contains(stdout.String(), id) {
			t.Errorf("stdout has no answer with %s:\n%s", id, stdout)
		}
	}
	if b, err := os.ReadFile(r.in); err != nil || string(b) != strings.Join(lines, "\n")+"\n" {
		t.Errorf("the requests file changed (%v)", err)
	}
}
