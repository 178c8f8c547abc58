//go:build unix

package filelock

import (
	"errors"
	"os"
	"syscall"
)

// ErrLocked is Lock's error when another process holds the lock.
var ErrLocked = errors.New("held by another process")

// Lock takes an exclusive lock on the file at path (created if need
// be), without waiting: ErrLocked when another process holds it. The lock
// goes with the process: release, or an exit (even kill -9), frees it. The
// file stays: removing it would let two processes lock two files of one
// name.
func Lock(path string) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, err
	}
	return func() { _ = f.Close() }, nil
}
