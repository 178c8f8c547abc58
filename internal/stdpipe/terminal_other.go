//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package stdpipe

import (
	"io"
	"os"
)

// terminalReader has no poll(2) to wait with here: ok is false.
func terminalReader(*os.File) (r io.ReadCloser, ok bool) { return nil, false }
