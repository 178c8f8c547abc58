//go:build race

package transport

import "syscall"

// sysRead is read(2) of p through syscall.Read when the race detector
// is on: syscall's calls tell the detector what a socket carries — the
// buffer written, and that what its writer did before happens before
// what its reader does after (between goroutines of one program: an
// in-process server and its replay) — which a raw call would not.
func sysRead(fd uintptr, p []byte) (int, syscall.Errno) {
	n, err := syscall.Read(int(fd), p)
	return n, errno(err)
}

// sysWrite is write(2) of p through syscall.Write (see sysRead).
func sysWrite(fd uintptr, p []byte) (int, syscall.Errno) {
	n, err := syscall.Write(int(fd), p)
	return n, errno(err)
}

// errno is err, a syscall.Errno or nil (syscall's calls return no
// other), as an Errno.
func errno(err error) syscall.Errno {
	if err == nil {
		return 0
	}
	if e, ok := err.(syscall.Errno); ok {
		return e
	}
	return syscall.EIO
}
