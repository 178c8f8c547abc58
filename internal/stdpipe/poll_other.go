//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package stdpipe

import (
	"io"
	"os"
)

// readEnd returns f: this system has no poll(2) to wait with, and no
// copy is made (nor can be: no dup), so that closing the end closes f.
func readEnd(f *os.File) io.Reader { return f }

// writeEnd returns f, as readEnd.
func writeEnd(f *os.File) io.Writer { return f }
