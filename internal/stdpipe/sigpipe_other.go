//go:build !unix

package stdpipe

// IgnoreSIGPIPE does nothing here: there is no SIGPIPE.
func IgnoreSIGPIPE() (stop func()) { return func() {} }
