//go:build !unix

package testos

import (
	"os"
	"testing"
)

// Kill ends the process pid at once (TerminateProcess on Windows).
func Kill(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// Gone skips t: there is no kill -0 here to tell that a process id is
// free (a Windows process object outlives its process while a handle to
// it is open).
func Gone(t testing.TB, pid int) (bool, error) {
	t.Helper()
	t.Skipf("cannot tell whether pid %d is gone: no kill -0 on this system", pid)
	return false, nil
}

// Mkfifo skips t: this system has no named pipes made by mkfifo.
func Mkfifo(t testing.TB, path string) {
	t.Helper()
	t.Skipf("cannot make the named pipe %s: no mkfifo on this system", path)
}
