package main

import (
	"bufio"
	"bytes"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const initializeLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

// TestRecordNothingLeavesNoTape: a recording in which the server never
// answered leaves no tape (README: the tape is created once the protocol
// version is known) and exits 3 saying so, so that the next record needs
// no --force. Over HTTP an upstream that cannot be reached is refused at
// start; over stdio a server that exits at once (false) records nothing.
func TestRecordNothingLeavesNoTape(t *testing.T) {
	dir := t.TempDir()
	t.Run("http upstream down", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0") // a port with no one behind it
		if err != nil {
			t.Fatal(err)
		}
		down := "http://" + l.Addr().String() + "/mcp"
		l.Close()
		path := filepath.Join(dir, "down.jsonl")
		cmd := exec.Command(binary, "record", "-o", path, "--listen", "127.0.0.1:0", "--upstream", down)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var text bytes.Buffer
		lines := make(chan string)
		go func() {
			defer close(lines)
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				lines <- sc.Text()
			}
		}()
		timeout := time.After(time.Minute)
	read:
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					break read
				}
				text.WriteString(line + "\n")
				if m := recordingLine.FindStringSubmatch(line); m != nil {
					// It listens: one client's initialize, then Ctrl-C.
					if resp, err := http.Post(m[1], "application/json", strings.NewReader(initializeLine)); err == nil {
						resp.Body.Close()
					}
					_ = cmd.Process.Signal(syscall.SIGINT)
				}
			case <-timeout:
				_ = cmd.Process.Kill()
				for range lines {
				}
				_ = cmd.Wait()
				t.Fatalf("record still running after a minute:\n%s", text.String())
			}
		}
		_ = cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != exitTarget || !strings.Contains(text.String(), "cannot be reached") {
			t.Errorf("exit %d, stderr %q; want 3 saying the upstream cannot be reached", code, text.String())
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%s: %v; want no tape", path, err)
		}
	})
	t.Run("stdio server exits at once", func(t *testing.T) {
		path := filepath.Join(dir, "ns2.jsonl")
		res := replayctlIn(t, initializeLine+"\n", "record", "-o", path, "--", "false")
		if res.code != exitTarget || !strings.Contains(res.stderr, "no tape") {
			t.Errorf("exit %d, stderr %q; want 3 saying no tape was written", res.code, res.stderr)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%s: %v; want no tape", path, err)
		}
	})
}
