package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestRecordKill9TakesTheServer: a server that ignores its stdin's end
// and SIGTERM dies with record when record is killed (kill -9: no orderly
// stop), rather than running on as an orphan.
func TestRecordKill9TakesTheServer(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "server.pid")
	// The shell ignores SIGTERM, writes its pid, and becomes sleep, which
	// keeps the ignored SIGTERM and reads and writes nothing.
	script := fmt.Sprintf(`trap "" TERM; echo $$ > %s.tmp && mv %s.tmp %s; exec sleep 3600`, pidFile, pidFile, pidFile)
	p := startProc(t, binary, "record", "-o", filepath.Join(dir, "t.jsonl"), "--", "sh", "-c", script)
	pid := waitPID(t, p, pidFile)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Not p.wait: the server holds record's stderr, and so its Wait.
	pollUntil(t, 10*time.Second, func() bool { return !alive(pid) },
		fmt.Sprintf("the server (pid %d) to end after record was killed", pid))
}

// waitPID waits (at most 30s) for the file at path to hold a pid, written
// whole by the server or shard p started, and returns it; it fails the
// test at once when p exits first.
func waitPID(t *testing.T, p *proc, path string) int {
	t.Helper()
	logStderrOnFailure(t, p)
	var pid int
	pollUntil(t, 30*time.Second, func() bool {
		if b, err := os.ReadFile(path); err == nil {
			if pid, err = strconv.Atoi(string(bytes.TrimSpace(b))); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			return true
		}
		select {
		case <-p.done:
			t.Fatalf("the process exited (%d) before its server wrote its pid", p.code)
		default:
		}
		return false
	}, "the server to write its pid to "+path)
	return pid
}

// logStderrOnFailure logs p's stderr at the end of t, if t failed.
func logStderrOnFailure(t *testing.T, p *proc) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("stderr:\n%s", p.stderr)
		}
	})
}

// alive reports whether the process pid runs: it exists and is not a
// zombie waiting to be reaped.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) state …: comm may hold spaces, the state follows its ')'.
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}
