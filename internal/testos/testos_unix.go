//go:build unix

package testos

import (
	"errors"
	"syscall"
	"testing"
	"time"
)

// Kill sends the process pid SIGKILL.
func Kill(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }

// Gone reports whether no process pid exists (kill -0 says ESRCH), and
// what kill -0 said.
func Gone(_ testing.TB, pid int) (bool, error) {
	err := syscall.Kill(pid, 0)
	return errors.Is(err, syscall.ESRCH), err
}

// Mkfifo makes a named pipe at path, failing t if it cannot.
func Mkfifo(t testing.TB, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

// CPUTime is the CPU time (user and system) this process has used, 0
// when the system does not say.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
