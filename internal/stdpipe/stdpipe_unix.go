//go:build unix

package stdpipe

import (
	"os"
	"os/signal"
	"syscall"
)

// Pollable returns a copy of f (a new descriptor of the same pipe or
// socket) in non-blocking mode, which Go's poller then serves: closing it
// interrupts a read or write in progress, as the proxy's stop needs.
// Anything else (a terminal, a file) comes back as it is: making a
// terminal non-blocking would upset the shell that shares it.
func Pollable(f *os.File) *os.File {
	st, err := f.Stat()
	if err != nil || st.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return f
	}
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return f
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return f
	}
	return os.NewFile(uintptr(fd), f.Name())
}

// IgnoreSIGPIPE makes a write to a client that went away an error (EPIPE)
// instead of a death by SIGPIPE, which would leave the tape without its
// end line. The server does not inherit it (a handler, not SIG_IGN).
func IgnoreSIGPIPE() (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGPIPE)
	return func() { signal.Stop(ch) }
}
