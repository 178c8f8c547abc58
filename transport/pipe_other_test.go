//go:build unix && !linux

package transport

import "golang.org/x/sys/unix"

// fionread is FIONREAD of macOS and the BSDs, _IOR('f', 127, int).
const fionread = 0x4004667f

// pipeBytes is how many bytes the pipe of fd (either end) holds unread.
func pipeBytes(fd int) (int, error) { return unix.IoctlGetInt(fd, fionread) }
