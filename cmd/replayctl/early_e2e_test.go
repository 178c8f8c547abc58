package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testos"
)

// run starts a stdio server before it reads the tape; a cassette that
// turns out bad exits 2 with the tape's error (its file and line), and
// the server started for it is gone. That the server started, and its
// pid, the test reads from run's own debug line "server started" (logged
// once the process runs, before the tape is read), so the check does not
// hang on how far the server got before it was killed.
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
	res := replayctl(t, "run", bad, "--speed", "fast", "-q", "--log-level", "debug", "--", "cat")
	if res.code != 2 {
		t.Fatalf("exit %d, want 2; stderr:\n%s", res.code, res.stderr)
	}
	if want := bad + " line 6: session.interactions[3].direction"; !strings.Contains(res.stderr, want) {
		t.Errorf("stderr %q, want it to name %q", res.stderr, want)
	}
	m := serverStarted.FindStringSubmatch(res.stderr)
	if m == nil {
		t.Fatalf("stderr %q, want the debug line of the server started before the tape was read", res.stderr)
	}
	pid, err := strconv.Atoi(m[1])
	if err != nil {
		t.Fatalf("pid %q: %v", m[1], err)
	}
	if gone, err := testos.Gone(t, pid); !gone {
		t.Errorf("the server (pid %d) after run exited: kill -0 says %v, want no such process", pid, err)
	}
}

// serverStarted is run's debug line of a stdio server it started; its
// pid is the submatch.
var serverStarted = regexp.MustCompile(`DBG server started command=cat pid=(\d+) `)
