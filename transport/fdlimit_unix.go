//go:build unix

package transport

import "syscall"

// ConnRoom is how many client connections the process's file descriptor
// limit leaves room for: half of what remains of it after 64 for the
// process's own files (a recording proxy opens one upstream connection
// per client connection). 0 when the limit cannot be read.
func ConnRoom() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<30 {
		return 0
	}
	return max(int(rl.Cur)-64, 2) / 2
}
