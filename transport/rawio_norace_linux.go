//go:build !race

package transport

import (
	"syscall"
	"unsafe"
)

// sysRead is read(2) of p (not empty) as a raw system call: no runtime
// syscall entry (see rawIO).
func sysRead(fd uintptr, p []byte) (int, syscall.Errno) {
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(n), e
}

// sysWrite is write(2) of p (not empty) as a raw system call.
func sysWrite(fd uintptr, p []byte) (int, syscall.Errno) {
	n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(n), e
}
