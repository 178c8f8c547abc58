package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
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
	c := startRecord(t, append([]string{"-o", tape, "--stop-timeout", "1m", "--", "sh", "-c", `{ cat; : > "$0"; } | exec "$@"`, marker}, testserver.Everything(t)...)...)
	c.call(t, initializeLine)
	c.in.Close()
	pollUntil(t, time.Minute, func() bool { return exists(t, marker) }, "the server's stdin to end")
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, c.out)
	_ = c.cmd.Wait()
	out := c.stderr.String()
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
