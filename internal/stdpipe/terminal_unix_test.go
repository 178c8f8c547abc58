//go:build unix

package stdpipe

import (
	"os"
	"syscall"
	"testing"

	"github.com/creack/pty"
)

// terminal is a pseudo-terminal's end as a process inherits its stdin (a
// descriptor in blocking mode, which the poller does not serve), and the
// end that writes to it; nil when the system has no pseudo-terminal.
func terminal(t *testing.T) (term, ptmx *os.File) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Logf("no pseudo-terminal: %v", err)
		return nil, nil
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	fd, err := syscall.Dup(int(tty.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fd), "tty")
	t.Cleanup(func() { f.Close() })
	return f, ptmx
}
