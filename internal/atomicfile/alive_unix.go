//go:build unix

package atomicfile

import (
	"errors"
	"syscall"
)

// alive reports whether process pid may be running: signal 0 reaches it,
// or it exists and belongs to another user.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
