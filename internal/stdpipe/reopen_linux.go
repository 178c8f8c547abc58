package stdpipe

import (
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// reopen opens the pipe f is an end of anew, through /proc/self/fd: a new
// open file description of the same pipe, with access (O_RDONLY,
// O_WRONLY), in non-blocking mode and close-on-exec, which Go's poller
// serves. f's own description, which the shell or the client that started
// this process may share, is left as it was. ok is false when it cannot
// (no /proc, a pipe another user made, the write end of a pipe whose
// readers are all gone: ENXIO), or when what opened is not f's pipe.
func reopen(f *os.File, access int) (_ *os.File, ok bool) {
	var g *os.File
	var was, is syscall.Stat_t
	err := control(f, func(fd int) (err error) {
		if err := syscall.Fstat(fd, &was); err != nil {
			return err
		}
		g, err = os.OpenFile("/proc/self/fd/"+strconv.Itoa(fd), access|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
		return err
	})
	if err != nil {
		return nil, false
	}
	if control(g, func(fd int) error { return syscall.Fstat(fd, &is) }) != nil || was.Dev != is.Dev || was.Ino != is.Ino {
		g.Close()
		return nil, false
	}
	return g, true
}
