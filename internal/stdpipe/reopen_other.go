//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package stdpipe

import "os"

// reopen cannot open a pipe anew here (no /proc/self/fd whose open gives
// a new description of it): ok is false, and the pipe is polled.
func reopen(*os.File, int) (_ *os.File, ok bool) { return nil, false }
