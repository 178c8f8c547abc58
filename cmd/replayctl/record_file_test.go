package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testbuf"
	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
)

// TestRecordFromAFile: `record -- SERVER < requests.jsonl` sends every
// message of the file and records the answer to every request in it, also
// from a server that, as the go-sdk's does, drops the requests it is
// still working on when its stdin ends: at the end of a file (no client
// waits on the answers) record closes the server's stdin only once
// every request is answered. It ends cleanly (exit 0, the tape whole),
// and leaves the file as it was.
func TestRecordFromAFile(t *testing.T) {
	dir := t.TempDir()
	requests := strings.Join([]string{
		initializeLine,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"ping"}`,
	}, "\n") + "\n"
	in := filepath.Join(dir, "requests.jsonl")
	if err := os.WriteFile(in, []byte(requests), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	path := filepath.Join(dir, "t.jsonl")
	// tools/call is answered after 300ms: the file has long ended then.
	cmd := exec.Command(binary, append([]string{"record", "-o", path, "--"}, testserver.Volatile(t, "-delay", "300ms")...)...)
	stdout, stderr := &testbuf.Buffer{}, &testbuf.Buffer{}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = f, stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute): // a hang's bound
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("record still running after 2 minutes; stderr:\n%s", stderr)
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit %d, want 0; stderr:\n%s", code, stderr)
	}
	_, msgs := loadWholeTape(t, path)
	answered := map[string]bool{}
	for _, m := range msgs {
		if rpc, err := m.RPC(); err == nil && m.Dir == tape.S2C && jsonrpc.IsResponseKind(rpc.Kind) {
			answered[string(rpc.ID)] = true
		}
	}
	for _, id := range []string{"1", "2", "3", "4"} {
		if !answered[id] {
			t.Errorf("request %s has no answer on the tape (%d messages); stderr:\n%s", id, len(msgs), stderr)
		}
	}
	for _, id := range []string{`"id":1`, `"id":2`, `"id":3`, `"id":4`} {
		if !strings.Contains(stdout.String(), id) {
			t.Errorf("stdout has no answer with %s:\n%s", id, stdout)
		}
	}
	if b, err := os.ReadFile(in); err != nil || string(b) != requests {
		t.Errorf("the requests file changed (%v)", err)
	}
}
