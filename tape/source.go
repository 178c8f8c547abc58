package tape

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// Source is where a tape's bytes come from: a file (File) or bytes held
// in memory (Bytes). A replay opens its source more than once (to read it,
// to scan it, for the mock to index it); each Open starts from the first
// byte.
type Source interface {
	// Name names the tape in errors, warnings and reports.
	Name() string
	// Open returns a fresh reader of the tape from its first byte.
	Open() (io.ReadSeekCloser, error)
}

// File is a tape in a file: its path.
type File string

// Name is the path.
func (f File) Name() string { return string(f) }

// Open opens the file.
func (f File) Open() (io.ReadSeekCloser, error) { return os.Open(string(f)) }

// Bytes is a tape held in memory under a name, e.g. one a test builds.
// The bytes are not copied: do not change them while a replay reads them.
func Bytes(name string, b []byte) Source { return memSource{name, b} }

type memSource struct {
	name string
	b    []byte
}

func (m memSource) Name() string { return m.name }

func (m memSource) Open() (io.ReadSeekCloser, error) {
	return nopCloser{bytes.NewReader(m.b)}, nil
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

// OpenSource opens a tape from src, detecting its format as Open does.
func OpenSource(src Source, opts ...Option) (*Reader, error) {
	name := src.Name()
	f, err := src.Open()
	if err != nil {
		return nil, &Error{Path: name, Seq: -1, Msg: fmt.Sprintf("cannot open it (%v): check the path", unwrapPath(err)), Err: err}
	}
	r, err := newReader(name, f, opts)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}
