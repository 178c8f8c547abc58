//go:build unix

package stdpipe

import (
	"os"
	"os/signal"
	"syscall"
)

// IgnoreSIGPIPE makes a write to a client that went away an error (EPIPE)
// instead of a death by SIGPIPE, which would leave the tape without its
// end line. The server does not inherit it (a handler, not SIG_IGN).
func IgnoreSIGPIPE() (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGPIPE)
	return func() { signal.Stop(ch) }
}
