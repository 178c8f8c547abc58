package transport

import "syscall"

// setsockoptInt sets a socket option of the socket fd (a RawConn's).
func setsockoptInt(fd uintptr, level, opt, value int) error {
	return syscall.SetsockoptInt(syscall.Handle(fd), level, opt, value)
}
