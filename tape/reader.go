package tape

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
)

// Format is a tape file format, as detected from the content.
type Format string

// The formats Open reads.
const (
	FormatNative Format = FormatName    // replayctl JSON Lines
	FormatVCR    Format = "agent-vcr"   // Agent VCR cassette (.vcr)
	FormatHAR    Format = "har"         // HTTP Archive 1.2 of Streamable HTTP traffic
	FormatLog    Format = "jsonrpc-log" // one JSON-RPC message per line
	// The files of other MCP recorders.
	FormatCassette Format = "mcp-cassette" // mcp-cassette's JSON recording
	FormatRecorder Format = "mcp-recorder" // mcp-recorder's JSON cassette
	FormatMCPVCR   Format = "mcp-vcr"      // mcp-vcr's YAML transcript
	FormatPcap     Format = "pcap"         // a packet capture (pcap or pcapng) of Streamable HTTP traffic
)

// imported reports whether the tape was imported (every format but the
// native one): its messages come from r.imp.
func (r *Reader) imported() bool { return r.format != FormatNative }

const (
	defaultMaxLine = 8 << 20   // WithMaxLine's default
	bufferSize     = 256 << 10 // longer lines are assembled in Reader.long
	indexEvery     = 1024      // messages between two Seek index entries
)

type options struct {
	maxLine int
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

// Reader reads a tape message by message. A native tape is streamed from
// the file: memory does not grow with the tape. A JSON-RPC log is read
// from the file too, once when opened and again as Next goes (seeking back
// reads it again from its start). A HAR file or an Agent VCR cassette is
// streamed into a spill file when opened (Close removes it).
//
// A Reader is two readers behind one front: the native reader
// (nativeState, native.go) and the reader of what an Importer read
// (importState, import.go); format says which one its methods use.
//
// A Reader is not safe for concurrent use.
type Reader struct {
	path     string
	format   Format
	header   Header
	opts     options
	src      io.ReadSeeker
	closer   io.Closer // nil when the caller owns src
	end      *End
	warnings []string

	nativeState
	importState
}

// nativeState is the native reader's: where it stands in the file.
type nativeState struct {
	br          *bufio.Reader
	long        []byte // a line longer than br's buffer, assembled
	env         envelope
	slab        slab // where Msg copies come from
	pos         position
	dataStart   position // just after the header line
	pending     *Message // read by SeekSeq, returned by the next Next
	seekMsg     Message  // what pending points to
	err         error    // sticky until a SeekSeq repositions the reader
	index       []indexEntry
	endLine     int64
	eofDone     bool // end-of-tape warnings have been given
	tornDropped bool // a torn last line was dropped
	session     string
	// where the lines of messages lie: the one readMessage read last, the
	// one SeekSeq left pending, and the one Next returned last (LineSpan)
	readSpan, seekSpan, lastSpan lineSpan
}

// importState is the imported reader's: the messages an Importer read
// (Agent VCR, HAR, JSON-RPC logs, …) and the next one Next returns.
type importState struct {
	imp  importSource
	next int
}

// position is where the native reader stands: the next line to read.
type position struct {
	off     int64 // byte offset of the next line
	line    int64 // lines read so far
	ord     int64 // messages read so far
	lastSeq int64 // seq of the last message read, -1 before the first
	pastEnd bool  // the end line has been read
}

// Open opens the tape at path, detecting its format from the content: a
// native header line, or an Agent VCR JSON document (one with
// "format_version" and "session"). Errors about the content are *Error.
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
	r := &Reader{path: path, src: src, opts: options{maxLine: defaultMaxLine}}
	for _, o := range opts {
		o(&r.opts)
	}
	r.pos.lastSeq = -1
	r.br = bufio.NewReaderSize(src, bufferSize)
	if b, _ := r.br.Peek(3); string(b) == "\xef\xbb\xbf" { // UTF-8 byte order mark
		r.br.Discard(3)
		r.pos.off = 3
	}
	if err := r.detect(); err != nil {
		return nil, err
	}
	return r, nil
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
	if r.imp != nil {
		r.imp.close()
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
func (r *Reader) Next() (Message, error) {
	if r.imported() {
		return r.nextImported()
	}
	if r.pending != nil {
		m := *r.pending
		r.pending = nil
		r.lastSpan = r.seekSpan
		return m, nil
	}
	if r.err != nil {
		return Message{}, r.err
	}
	m, err := r.readMessage()
	if err != nil && err != io.EOF {
		r.err = err
	}
	if err == nil {
		r.lastSpan = r.readSpan
	}
	return m, err
}

// cloneMessage copies the byte slices of an in-memory message so that the
// caller may modify what it gets.
func cloneMessage(m Message) Message {
	m.Msg = append([]byte(nil), m.Msg...)
	return m
}

// errAt fills in where a line error happened.
func (r *Reader) errAt(e *Error, line int64) *Error {
	e.Path, e.Line = r.path, line
	return e
}
