package stdpipe

import (
	"io"
	"os"
)

// Ends returns a client's ends for a relay or a server. Each end that is
// an *os.File becomes a copy of its own (a new descriptor, close-on-exec,
// so that a process the caller starts does not inherit it), and closing
// the copy leaves the caller's file open. A pipe, a socket or a terminal
// is read through a copy whose Close ends a read in progress, and a pipe
// or a socket written through one whose Close ends a write in progress
// (where the system has poll(2)), all without setting O_NONBLOCK on the
// open file description they share with the shell or the client that
// started this process, which would then find its own reads and writes
// failing with EAGAIN. On Windows, the copy is a new handle, not
// inheritable, whose Close does not end a read in progress; on the
// systems that are neither Unix nor Windows, the files themselves come
// back, and closing the ends closes them. Other readers and writers come
// back as they are.
func Ends(in io.Reader, out io.Writer) (io.Reader, io.Writer) {
	if f, ok := in.(*os.File); ok {
		in = readEnd(f)
	}
	if f, ok := out.(*os.File); ok {
		out = writeEnd(f)
	}
	return in, out
}
