package main

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testserver"
)

// TestRecordClientEndedSaysSo: a TypeScript client over stdio closes its
// input, then sends SIGTERM while record waits for the server to exit.
// record says the client ended, not "stopping (a second Ctrl-C …)" as if
// the user had pressed Ctrl-C. The server (server-everything) does not
// exit when its stdin closes; the wrapper marks when its stdin ended,
// which record closes once the client's input ended.
func TestRecordClientEndedSaysSo(t *testing.T) {
	dir := t.TempDir()
	tape, marker := filepath.Join(dir, "t.jsonl"), filepath.Join(dir, "eof")
	argv := append([]string{"record", "-o", tape, "--stop-timeout", "1m", "--", "sh", "-c", `{ cat; : > "$0"; } | exec "$@"`, marker}, testserver.Everything(t)...)
	cmd := exec.Command(binary, argv...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if _, err := stdin.Write([]byte(initializeLine + "\n")); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() { // the answer to initialize
		t.Fatalf("no answer to initialize: %v\n%s", sc.Err(), stderr.String())
	}
	stdin.Close()
	for deadline := time.Now().Add(time.Minute); ; {
		if _, err := os.Stat(marker); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) || time.Now().After(deadline) {
			t.Fatalf("the server's stdin did not end within a minute (%v): %s", err, stderr.String())
		}
		time.Sleep(5 * time.Millisecond) // polls for the condition
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() {
	}
	_ = cmd.Wait()
	out := stderr.String()
	if strings.Contains(out, "a second Ctrl-C") || !strings.Contains(out, "the client ended") {
		t.Errorf("stderr:\n%s\nwant it to say the client ended, and nothing of a second Ctrl-C", out)
	}
}
