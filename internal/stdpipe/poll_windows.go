package stdpipe

import (
	"io"
	"os"

	"golang.org/x/sys/windows"
)

// readEnd returns a copy of f (a new handle, not inherited by a process
// started later), so that closing it leaves f open; f itself when it
// cannot be copied. No copy ends a read in progress at Close here (no
// poll(2) to wait with).
func readEnd(f *os.File) io.Reader { return handleCopy(f) }

// writeEnd returns a copy of f, as readEnd.
func writeEnd(f *os.File) io.Writer { return handleCopy(f) }

// handleCopy returns a new handle of f's, with the same access and not
// inheritable, as an *os.File, or f when it cannot be made. The handle is
// taken through f.SyscallConn, never f.Fd (which would take it off Go's
// I/O completion port).
func handleCopy(f *os.File) *os.File {
	rc, err := f.SyscallConn()
	if err != nil {
		return f
	}
	var dup windows.Handle
	var dupErr error
	if err := rc.Control(func(h uintptr) {
		self := windows.CurrentProcess()
		dupErr = windows.DuplicateHandle(self, windows.Handle(h), self, &dup, 0, false, windows.DUPLICATE_SAME_ACCESS)
	}); err != nil || dupErr != nil {
		return f
	}
	return os.NewFile(uintptr(dup), f.Name())
}
