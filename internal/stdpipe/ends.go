package stdpipe

import (
	"io"
	"os"
)

// Ends returns a client's ends for a relay or a server: each that is an
// *os.File through Pollable (a pipe or a socket: a copy in non-blocking
// mode, which closing interrupts), an in that is a terminal through a
// reader that waits for its lines with poll(2) and whose Close interrupts
// a read in progress too (where the system has poll), the others as
// they are.
func Ends(in io.Reader, out io.Writer) (io.Reader, io.Writer) {
	if f, ok := in.(*os.File); ok {
		if t, ok := terminalReader(f); ok {
			in = t
		} else {
			in = Pollable(f)
		}
	}
	if f, ok := out.(*os.File); ok {
		out = Pollable(f)
	}
	return in, out
}
