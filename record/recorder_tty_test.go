//go:build linux || darwin

package record_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"go.uber.org/goleak"

	"github.com/replayctl/replayctl/record"
)

// TestRecorderStdioTerminalClient: a stdio recording whose client is a
// terminal (as the process's stdin is one: a descriptor in blocking
// mode) that sends nothing, cancelled, returns once its proxy is over
// (the read of the terminal interrupted), with how the server ended, and
// leaves no goroutine running.
func TestRecorderStdioTerminalClient(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	fd, err := syscall.Dup(int(tty.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		t.Fatal(err)
	}
	term := os.NewFile(uintptr(fd), "tty")
	defer term.Close()

	dir := t.TempDir()
	started := filepath.Join(dir, "started")
	r, err := record.New(filepath.Join(dir, "rec.jsonl"),
		record.Command("sh", "-c", `touch "$0"; exec cat`, started),
		record.Client(term, &discard{}), record.StopTimeout(time.Second),
		record.WithStdio(record.StdioStderr(&discard{})))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := startRun(ctx, r)
	waitForFile(t, started, done)
	cancel()
	o := <-done
	if !errors.Is(o.err, context.Canceled) {
		t.Errorf("got error %v, want context.Canceled", o.err)
	}
	if !o.res.Stdio.Started {
		t.Errorf("got stdio result %+v, want the proxy's (started)", o.res.Stdio)
	}
	goleak.VerifyNone(t, leaks)
}
