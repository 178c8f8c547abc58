package stdpipe

import (
	"io"
	"os"
	"time"
)

// Interruptible reports whether a read of r in progress ends when r is
// closed, or ends by itself: r is an io.Closer, and when it is an
// *os.File, one Go's poller serves (a Pollable pipe or socket) or a
// regular file. A terminal is not: its read holds on until a line or
// EOF comes, closed or not.
func Interruptible(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		_, ok := r.(io.Closer)
		return ok
	}
	// Only a file the poller serves has deadlines.
	if f.SetReadDeadline(time.Time{}) == nil {
		return true
	}
	st, err := f.Stat()
	return err == nil && st.Mode().IsRegular()
}
