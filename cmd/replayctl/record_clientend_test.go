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
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("stderr:\n%s", stderr.String())
		}
	}()
	if _, err := stdin.Write([]byte(initializeLine + "\n")); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() { // the answer to initialize
		t.Fatalf("no answer to initialize: %v\n%s", sc.Err(), stderr.String())
	}
	stdin.Close()
	pollUntil(t, time.Minute, func() bool { return exists(t, marker) }, "the server's stdin to end")
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

// exists reports whether there is a file at path; a Stat error other
// than its absence fails the test.
func exists(t *testing.T, path string) bool {
	t.Helper()
	_, err := os.Stat(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("stat %s: %v", path, err)
	}
	return err == nil
}
