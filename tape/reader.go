package tape

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// Format is a tape file format, as detected from the content.
type Format string

// FormatNative is replayctl's JSON Lines. Each foreign format names its
// Format in its importer's file (FormatVCR, FormatHAR, …).
const FormatNative Format = FormatName

const (
	defaultMaxLine = 8 << 20   // WithMaxLine's default
	bufferSize     = 256 << 10 // longer lines are assembled in Reader.long
	indexEvery     = 1024      // messages between two Seek index entries
)

// DefaultMaxDocument is WithMaxDocument's default: the longest JSON
// document on one line (an Agent VCR cassette, a HAR file written
// without line breaks) a Reader accepts.
const DefaultMaxDocument = 64 << 20

type options struct {
	maxLine int
	maxDoc  int    // the longest first line that is a JSON document
	only    []byte // WithSession: the session name as a JSON string
}

// Option configures a Reader.
type Option func(*options)

// WithSession makes Next return only the messages of one recorded
// session. Lines of other sessions are skipped without being decoded
// (their errors go unseen: read the tape unfiltered to check it), so a
// reader that serves one session of a large tape stays cheap. A filtered
// reader cannot SeekSeq.
func WithSession(name string) Option {
	return func(o *options) {
		b, _ := json.Marshal(name) // a string always marshals
		o.only = b
	}
}

// WithMaxLine sets the longest line, in bytes without the newline, that the
// reader accepts (default 8 MiB). A longer line is refused with an error
// that names it. n ≤ 0 keeps the default.
func WithMaxLine(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.maxLine = n
		}
	}
}

// WithMaxDocument sets the longest JSON document written on one line (an
// Agent VCR cassette, a HAR file) that the reader accepts, in bytes
// without the newline (default DefaultMaxDocument, 64 MiB). Such a
// document is not held to WithMaxLine, the limit of one line of a JSONL
// tape or log; a document on several lines is read as a stream and is
// not held to either. n ≤ 0 keeps the default.
func WithMaxDocument(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.maxDoc = n
		}
	}
}

// Reader reads a tape message by message. A native tape is streamed from
// the file: memory does not grow with the tape. A JSON-RPC log is read
// from the file too, once when opened and again as Next goes (seeking back
// reads it again from its start). A HAR file or an Agent VCR cassette is
// streamed into a spill file when opened (Close removes it).
//
// A Reader is a front over one of two readers, its body: the native
// reader of a replayctl tape (nativeReader, native.go), or the reader of
// the messages an Importer read from a foreign format (importedReader,
// import.go). Opening decides which (detect.go); the front holds what
// both have: the name, the options, the header, the end and the warnings.
//
// A Reader is not safe for concurrent use.
type Reader struct {
	path     string
	format   Format
	header   Header
	opts     options
	closer   io.Closer // nil when the caller owns the source
	end      *End
	warnings []string
	body     body
}

// body is what a Reader reads messages from. Its methods are the
// Reader's of the same name; each body applies the session filter
// (WithSession) as it reads, and the front refuses to seek a filtered
// reader.
type body interface {
	next() (Message, error)
	seekSeq(seq int64) error
	rewind() error
	lineSpan() (off int64, n int, ok bool)
	close()
}

var (
	_ body = (*nativeReader)(nil)
	_ body = (*importedReader)(nil)
)

// Open opens the tape at path, detecting its format from the content: a
// native header line, or a file a registered Importer claims (in the
// order detect.go says). Errors about the content are *Error.
func Open(path string, opts ...Option) (*Reader, error) {
	return OpenSource(File(path), opts...)
}

// NewReader reads a tape from src; name is used in errors and warnings.
// Close does not close src.
func NewReader(name string, src io.ReadSeeker, opts ...Option) (*Reader, error) {
	return newReader(name, src, opts)
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func newReader(path string, src io.ReadSeeker, opts []Option) (*Reader, error) {
	r := newFront(path, opts)
	nr := newNativeReader(r, src)
	if err := r.detect(nr); err != nil {
		return nil, err
	}
	return r, nil
}

// newFront returns a Reader without a body yet.
func newFront(path string, opts []Option) *Reader {
	r := &Reader{path: path, opts: options{maxLine: defaultMaxLine, maxDoc: DefaultMaxDocument}}
	for _, o := range opts {
		o(&r.opts)
	}
	return r
}

// Format is the tape's format as detected.
func (r *Reader) Format() Format { return r.format }

// Header is the tape's header; for an imported tape, one synthesized from
// what the file says.
func (r *Reader) Header() Header { return r.header }

// Path is the name the reader was opened with.
func (r *Reader) Path() string { return r.path }

// End is the tape's end record once Next has returned io.EOF, or nil if the
// tape had none (it was cut short). Imported tapes have a synthesized one.
func (r *Reader) End() *End { return r.end }

// Warnings lists what the reader tolerated so far, one sentence each, e.g. a
// torn last line it dropped or a missing end line.
func (r *Reader) Warnings() []string { return r.warnings }

// Close releases the file. It does not close a source given to NewReader.
func (r *Reader) Close() error {
	if r.body != nil {
		r.body.close()
	}
	if r.closer == nil {
		return nil
	}
	c := r.closer
	r.closer = nil
	return c.Close()
}

// Next returns the next message in seq order, or io.EOF after the last one.
// Its Msg and Extra are the caller's to keep and are never reused by the
// reader (small Msg copies share 32 KiB blocks, so a kept message keeps its
// block alive; copy it to keep a few messages out of a long tape). Bad input is an *Error, and
// Next keeps returning it until a SeekSeq moves the reader.
func (r *Reader) Next() (Message, error) { return r.body.next() }

func (r *Reader) warnf(format string, args ...any) {
	r.warnings = append(r.warnings, fmt.Sprintf(format, args...))
}

// errAt fills in where a line error happened.
func (r *Reader) errAt(e *Error, line int64) *Error {
	e.Path, e.Line = r.path, line
	return e
}
