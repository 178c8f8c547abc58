//go:build !unix

package stdpipe

import "os"

// Pollable returns f: this system has no poller to hand it to.
func Pollable(f *os.File) *os.File { return f }

// IgnoreSIGPIPE does nothing here: there is no SIGPIPE.
func IgnoreSIGPIPE() (stop func()) { return func() {} }
