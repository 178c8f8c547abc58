package main

import (
	"fmt"
	"path/filepath"
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
	pid := waitPID(t, p, pidFile)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, 10*time.Second, func() bool { return !alive(pid) },
		fmt.Sprintf("server pid %d to end after its run was killed", pid))
}
