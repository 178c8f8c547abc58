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
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the server (pid %d) still runs 10s after record was killed", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitPID waits for the file at path to hold a pid, written whole by the
// server record started, and returns it.
func waitPID(t *testing.T, p *proc, path string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, err := os.ReadFile(path); err == nil {
			pid, err := strconv.Atoi(string(bytes.TrimSpace(b)))
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			return pid
		}
		select {
		case <-p.done:
			t.Fatalf("record exited (%d) before its server started\nstderr:\n%s", p.code, p.stderr)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server wrote no pid within 10s\nstderr:\n%s", p.stderr)
		}
	}
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
