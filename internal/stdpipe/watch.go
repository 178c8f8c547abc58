package stdpipe

import "io"

// Watch returns in with atEOF called each time a Read of it returns
// io.EOF (the other end closed it). The reader returned is as
// Interruptible as in, and its Close is in's (none if in has none), so
// that a proxy can still end a read of it at once: wrap what Ends
// returned, not the *os.File it was given.
func Watch(in io.Reader, atEOF func()) io.Reader {
	w := watched{r: in, atEOF: atEOF}
	if c, ok := in.(io.Closer); ok {
		if Interruptible(in) {
			return &watchedInterruptible{watchedCloser{w, c}}
		}
		return &watchedCloser{w, c}
	}
	return &w
}

type watched struct {
	r     io.Reader
	atEOF func()
}

func (w *watched) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if err == io.EOF {
		w.atEOF()
	}
	return n, err
}

type watchedCloser struct {
	watched
	c io.Closer
}

func (w *watchedCloser) Close() error { return w.c.Close() }

// watchedInterruptible is a watched reader whose Close ends a read in
// progress (Interruptible).
type watchedInterruptible struct{ watchedCloser }

func (*watchedInterruptible) closeInterruptsRead() {}
