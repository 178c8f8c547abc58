package transport

import "golang.org/x/sys/unix"

// pipeBytes is how many bytes the pipe of fd (either end) holds unread.
func pipeBytes(fd int) (int, error) { return unix.IoctlGetInt(fd, unix.TIOCINQ) }
