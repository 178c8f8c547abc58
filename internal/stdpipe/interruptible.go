package stdpipe

import (
	"io"
	"net"
	"os"
	"time"
)

// Interruptible reports whether a read of r in progress is known to end
// when r is closed, or to end by itself: r is an *os.File Go's poller
// serves (Ends' copy of a pipe or socket, where it has one) or a regular
// file, an io.Pipe's reader, a net.Conn, or a reader of Ends that polls
// its descriptor (a pipe, a socket or a terminal). A terminal as a
// process inherits it is not: its read holds on until a line or EOF
// comes, closed or not. Of any other io.Closer the contract of Close
// says nothing about a read in progress: false.
func Interruptible(r io.Reader) bool {
	switch r := r.(type) {
	case *os.File:
		// Only a file the poller serves has deadlines.
		if r.SetReadDeadline(time.Time{}) == nil {
			return true
		}
		st, err := r.Stat()
		return err == nil && st.Mode().IsRegular()
	case *io.PipeReader, net.Conn, closeInterrupts:
		return true
	}
	return false
}

// closeInterrupts is a reader of this package whose Close ends a Read in
// progress.
type closeInterrupts interface {
	io.ReadCloser
	closeInterruptsRead()
}
