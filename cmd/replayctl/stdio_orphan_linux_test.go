package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStdioServerDiesWithTheRun: the stdio server a run starts stops when
// the run is killed (kill -9: no orderly stop), even one that does not
// stop at the end of its stdin (here sleep), as record's server and
// --local-shards' shards do, rather than living on as an orphan.
func TestStdioServerDiesWithTheRun(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "server.pid")
	p := startProc(t, binary, "run", "examples/quickstart.jsonl", "--speed", "0.01x", "--timeout", "120s",
		"--", "sh", "-c", `echo $$ > "$0.tmp" && mv "$0.tmp" "$0" && exec sleep 600`, pidFile)
	var pid int
	for deadline := time.Now().Add(30 * time.Second); pid == 0; {
		if b, err := os.ReadFile(pidFile); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		if pid != 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not start within 30s\nstderr:\n%s", p.stderr)
		}
		select {
		case <-p.done:
			t.Fatalf("run exited (%d) before its server started\nstderr:\n%s", p.code, p.stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); alive(pid); {
		if time.Now().After(deadline) {
			t.Fatalf("server pid %d still runs 10s after its run was killed", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
