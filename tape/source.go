package tape

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/replayctl/replayctl/internal/english"
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

// folderError is the error of a tape path that names a folder.
func folderError(path string) error {
	return &Error{Path: path, Seq: -1, Msg: "it is a folder, not a tape: give a tape file"}
}

// MaxInMemory is the most Load reads of a tape that is not a regular file
// (a pipe, a FIFO): 256 MiB.
const MaxInMemory = 256 << 20

// Load returns the tape at path as a Source that a replay can open as
// often as it needs to. A regular file is File(path), read from the disk
// each time. Anything else — a pipe, a FIFO, /dev/stdin, a process
// substitution such as <(cat t.jsonl) — can be read only once, so Load
// reads it whole now, into memory (Bytes), up to MaxInMemory: a longer one
// is an *Error wrapping ErrTooLarge that names the limit. Load blocks until
// the writer of a pipe closes it.
func Load(path string) (Source, error) {
	return load(path, MaxInMemory)
}

func load(path string, limit int64) (Source, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, &Error{Path: path, Seq: -1, Msg: fmt.Sprintf("cannot open it (%v): check the path", unwrapPath(err)), Err: err}
	}
	if fi.Mode().IsRegular() {
		return File(path), nil
	}
	if fi.IsDir() {
		return nil, folderError(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{Path: path, Seq: -1, Msg: fmt.Sprintf("cannot open it (%v): check the path", unwrapPath(err)), Err: err}
	}
	defer f.Close()
	return readSource(path, f, limit)
}

// ReadSource reads a tape whole from r into memory (Bytes) under name, up
// to MaxInMemory, for a tape that can be read only once, such as a
// process's stdin; a longer one is an *Error wrapping ErrTooLarge. It
// blocks until r ends.
func ReadSource(name string, r io.Reader) (Source, error) {
	return readSource(name, r, MaxInMemory)
}

func readSource(name string, r io.Reader, limit int64) (Source, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, &Error{Path: name, Seq: -1, Msg: fmt.Sprintf("cannot read it (%v)", unwrapPath(err)), Err: err}
	}
	if int64(len(b)) > limit {
		return nil, &Error{Path: name, Seq: -1, Err: ErrTooLarge, Msg: fmt.Sprintf(
			"it is not a regular file (a pipe?), so it is read into memory, and it is longer than the limit of %s: save it to a file and give that", sizeName(limit))}
	}
	return Bytes(name, b), nil
}

// sizeName says n bytes in the largest whole unit: "256 MiB", "10 bytes",
// "1 byte".
func sizeName(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return english.Count(n, "byte")
}

// OpenSource opens a tape from src, detecting its format as Open does. A
// Shared src decodes an imported tape once for all its readers.
func OpenSource(src Source, opts ...Option) (*Reader, error) {
	if s, ok := src.(*Shared); ok {
		return s.open(opts)
	}
	return openSource(src, opts)
}

func openSource(src Source, opts []Option) (*Reader, error) {
	name := src.Name()
	f, err := src.Open()
	if err != nil {
		return nil, &Error{Path: name, Seq: -1, Msg: fmt.Sprintf("cannot open it (%v): check the path", unwrapPath(err)), Err: err}
	}
	// A folder opens (os.Open), and fails at its first read.
	if st, ok := f.(interface{ Stat() (os.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.IsDir() {
			f.Close()
			return nil, folderError(name)
		}
	}
	r, err := newReader(name, f, opts)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}
