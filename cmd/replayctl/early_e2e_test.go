package main

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// run starts a stdio server before it reads the tape; a cassette that
// turns out bad exits 2 with the tape's error (its file and line), and
// the server started for it is gone.
func TestRunBadCassetteStopsEarlyServer(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.vcr")
	doc := "{\"format_version\": \"1.0.0\",\n\"session\": {\"interactions\": [\n" +
		`{"direction": "client_to_server", "request": {"jsonrpc": "2.0", "id": 1, "method": "ping"}},` + "\n" +
		`{"direction": "client_to_server", "request": {"jsonrpc": "2.0", "id": 2, "method": "ping"}},` + "\n" +
		`{"direction": "client_to_server", "request": {"jsonrpc": "2.0", "id": 3, "method": "ping"}},` + "\n" +
		`{"direction": "sideways", "request": {"jsonrpc": "2.0", "id": 4, "method": "ping"}}` + "\n]}}\n"
	if err := os.WriteFile(bad, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(dir, "pid")
	res := replayctl(t, "run", bad, "--speed", "fast", "-q", "--", "sh", "-c", "echo $$ > "+pidFile+"; exec cat")
	if res.code != 2 {
		t.Fatalf("exit %d, want 2; stderr:\n%s", res.code, res.stderr)
	}
	if want := bad + " line 6: session.interactions[3].direction"; !strings.Contains(res.stderr, want) {
		t.Errorf("stderr %q, want it to name %q", res.stderr, want)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return // stopped before its shell wrote its pid: nothing left to look for
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file %q: %v", b, err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the server (pid %d) after run exited: kill -0 says %v, want no such process", pid, err)
	}
}
