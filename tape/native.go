package tape

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/replayctl/replayctl/internal/jsonscan"
	"io"
	"io/fs"
	"slices"
	"unicode/utf8"
)

// nativeReader reads a replayctl tape as it streams from its file: a
// Reader's body for FormatNative. Detection reads the first line through
// it before the format is known (detect.go).
type nativeReader struct {
	r   *Reader // the front: the name and options it reads by, the end and warnings it fills in
	src io.ReadSeeker
	br  *bufio.Reader

	long        []byte // a line longer than br's buffer, assembled
	detecting   bool   // detect is reading the first line: limit
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

// position is where the native reader stands: the next line to read.
type position struct {
	off     int64 // byte offset of the next line
	line    int64 // lines read so far
	ord     int64 // messages read so far
	lastSeq int64 // seq of the last message read, -1 before the first
	pastEnd bool  // the end line has been read
}

// newNativeReader starts reading src for r, past a UTF-8 byte order mark.
func newNativeReader(r *Reader, src io.ReadSeeker) *nativeReader {
	nr := &nativeReader{r: r, src: src, br: bufio.NewReaderSize(src, bufferSize)}
	nr.pos.lastSeq = -1
	if b, _ := nr.br.Peek(3); string(b) == "\xef\xbb\xbf" { // UTF-8 byte order mark
		nr.br.Discard(3)
		nr.pos.off = 3
	}
	return nr
}

// next is Reader.Next on a native tape.
func (nr *nativeReader) next() (Message, error) {
	if nr.pending != nil {
		m := *nr.pending
		nr.pending = nil
		nr.lastSpan = nr.seekSpan
		return m, nil
	}
	if nr.err != nil {
		return Message{}, nr.err
	}
	m, err := nr.readMessage()
	if err != nil && err != io.EOF {
		nr.err = err
	}
	if err == nil {
		nr.lastSpan = nr.readSpan
	}
	return m, err
}

// lineSpan is Reader.LineSpan on a native tape.
func (nr *nativeReader) lineSpan() (off int64, n int, ok bool) {
	if nr.lastSpan.n == 0 {
		return 0, 0, false
	}
	return nr.lastSpan.off, nr.lastSpan.n, true
}

// close does nothing: the front closes the file.
func (nr *nativeReader) close() {}

// readLine reads the next line without its newline. last is true when the
// line ends at the end of the file rather than with a newline. With nothing
// left it returns io.EOF.
func (nr *nativeReader) readLine() (line []byte, last bool, err error) {
	b, err := nr.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		nr.long = append(nr.startLong(), b...)
		for err == bufio.ErrBufferFull {
			if len(nr.long) > nr.limit()+1 {
				return nil, false, nr.tooLong(nr.pos.line + 1)
			}
			b, err = nr.br.ReadSlice('\n')
			nr.long = append(nr.long, b...)
		}
		b = nr.long
	}
	switch err {
	case nil:
		nr.pos.off += int64(len(b))
		nr.pos.line++
		b = b[:len(b)-1]
	case io.EOF:
		if len(b) == 0 {
			return nil, false, io.EOF
		}
		nr.pos.off += int64(len(b))
		nr.pos.line++
		last = true
	default:
		return nil, false, &Error{Path: nr.r.path, Line: nr.pos.line + 1, Seq: -1,
			Msg: fmt.Sprintf("cannot read it (%v): check the file and the disk", err), Err: err}
	}
	if len(b) > nr.limit() {
		return nil, false, nr.tooLong(nr.pos.line)
	}
	return b, last, nil
}

// startLong returns the buffer readLine assembles a line longer than
// br's buffer in: long, emptied; or, for the first line (detect's: often
// a JSON document on one line, of megabytes), one made to the size of
// what is left of the file, when that is known and within the limit, so
// that it is not grown by doubling, which copied it again at each step.
func (nr *nativeReader) startLong() []byte {
	if !nr.detecting {
		return nr.long[:0]
	}
	rest, ok := sizeOf(nr.src)
	rest -= nr.pos.off // the line starts here
	if !ok || rest <= int64(cap(nr.long)) || rest > int64(nr.limit())+1 {
		return nr.long[:0]
	}
	return make([]byte, 0, rest)
}

// sizeOf is the size of a regular file or of bytes in memory (File,
// Bytes); ok is false for anything else.
func sizeOf(src io.Reader) (size int64, ok bool) {
	switch f := src.(type) {
	case interface{ Stat() (fs.FileInfo, error) }: // *os.File
		fi, err := f.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return 0, false
		}
		return fi.Size(), true
	case interface{ Size() int64 }: // *bytes.Reader
		return f.Size(), true
	}
	return 0, false
}

// keepLine returns line, as readLine returned it, as the caller's to
// keep: a long line itself, which readLine then no longer reuses, or a
// copy of one in br's buffer, which reading on reuses.
func (nr *nativeReader) keepLine(line []byte) []byte {
	if len(line) > 0 && len(nr.long) > 0 && &line[0] == &nr.long[0] {
		nr.long = nil
		return line
	}
	return bytes.Clone(line)
}

// limit is the longest line readLine reads: the line limit, or while
// detect reads the first line (which may be a JSON document on one
// line), the larger of it and the document limit.
func (nr *nativeReader) limit() int {
	if nr.detecting {
		return max(nr.r.opts.maxLine, nr.r.opts.maxDoc)
	}
	return nr.r.opts.maxLine
}

func (nr *nativeReader) tooLong(line int64) *Error {
	if nr.detecting {
		return &Error{Path: nr.r.path, Line: line, Seq: -1, Err: ErrLineTooLong,
			Msg: fmt.Sprintf("the line is longer than %s, the limit of a tape line (--max-line; replay.MaxLine) and of a JSON document on one line such as a cassette (--max-document; replay.MaxDocument): if the file is right, raise the one for it", sizeName(int64(nr.limit())))}
	}
	return nr.lineTooLong(line)
}

// docTooLong is the error of a JSON document on one line longer than the
// document limit.
func (nr *nativeReader) docTooLong(line int64) *Error {
	return &Error{Path: nr.r.path, Line: line, Seq: -1, Err: ErrLineTooLong,
		Msg: fmt.Sprintf("the JSON document on this line is longer than the limit of %s: if the file is right, raise the limit (--max-document, or --max-line where a command has no --max-document; replay.MaxDocument)", sizeName(int64(max(nr.r.opts.maxDoc, nr.r.opts.maxLine))))}
}

// lineTooLong is the error of a tape line longer than the line limit.
func (nr *nativeReader) lineTooLong(line int64) *Error {
	return lineTooLong(nr.r.path, line, nr.r.opts.maxLine)
}

// readMessage reads lines up to the next message line and decodes it.
func (nr *nativeReader) readMessage() (Message, error) {
	for {
		start := nr.pos.off
		line, last, err := nr.readLine()
		if err == io.EOF {
			return Message{}, nr.atEOF()
		}
		if err != nil {
			return Message{}, err
		}
		n := nr.pos.line
		if isBlank(line) || (nr.r.opts.only != nil && otherSession(line, nr.r.opts.only)) {
			continue
		}
		var m Message
		if !nr.pos.pastEnd && decodeWritten(line, &m, nr.session, &nr.slab) {
			if err := nr.took(&m, start, len(line), n); err != nil {
				return Message{}, err
			}
			return m, nil
		}
		if err := scanEnvelope(line, &nr.env); err != nil {
			if last {
				if !nr.eofDone {
					nr.tornDropped = true
					nr.r.warnf("tape %s line %d: torn last line (%d bytes) dropped; the tape was cut short; %d messages kept", nr.r.path, n, len(line), nr.pos.ord)
				}
				return Message{}, nr.atEOF()
			}
			return Message{}, nr.notJSON(line, n)
		}
		if nr.pos.pastEnd {
			return Message{}, &Error{Path: nr.r.path, Line: n, Seq: -1,
				Msg: fmt.Sprintf("a line after the end line (line %d): remove it, or the end line if the tape goes on", nr.endLine)}
		}
		switch typ := lineType(line, &nr.env); typ {
		case "message":
			if e := decodeMessage(line, &nr.env, &m, nr.session, &nr.slab); e != nil {
				return Message{}, nr.r.errAt(e, n)
			}
			if err := nr.took(&m, start, len(line), n); err != nil {
				return Message{}, err
			}
			return m, nil
		case "end":
			e, bad := decodeEnd(line)
			if bad != nil {
				return Message{}, nr.r.errAt(bad, n)
			}
			nr.pos.pastEnd = true
			nr.r.end, nr.endLine = &e, n
		case "header":
			return Message{}, &Error{Path: nr.r.path, Line: n, Seq: -1,
				Msg: "a second header line: a tape has one header, on its first line; remove this one (were two tapes joined?)"}
		case "":
			return Message{}, &Error{Path: nr.r.path, Line: n, Seq: -1,
				Msg: `the line has no "type": want {"type":"message",...} or {"type":"end",...}; fix or remove the line`}
		default:
			return Message{}, &Error{Path: nr.r.path, Line: n, Seq: -1,
				Msg: fmt.Sprintf(`unknown line type %q: want "message" or "end"; fix or remove the line`, typ)}
		}
	}
}

// took checks the seq of m, decoded from the line of size bytes at off,
// line n, and moves the reader past it.
func (nr *nativeReader) took(m *Message, off int64, size int, n int64) error {
	if m.Seq <= nr.pos.lastSeq {
		return &Error{Path: nr.r.path, Line: n, Seq: m.Seq,
			Msg: fmt.Sprintf("seq %d does not follow the previous message's seq %d: seqs must increase; renumber the messages or convert the tape again", m.Seq, nr.pos.lastSeq)}
	}
	m.Line = n
	if nr.pos.ord == int64(len(nr.index))*indexEvery {
		nr.index = append(nr.index, indexEntry{seq: m.Seq, prevSeq: nr.pos.lastSeq, off: off, line: n - 1, ord: nr.pos.ord})
	}
	nr.pos.ord++
	nr.pos.lastSeq = m.Seq
	nr.readSpan = lineSpan{off: off, n: size}
	nr.session = m.Session
	return nil
}

// atEOF gives the end-of-tape warnings once and returns io.EOF.
func (nr *nativeReader) atEOF() error {
	if nr.eofDone {
		return io.EOF
	}
	nr.eofDone = true
	switch {
	case nr.r.end == nil:
		if !nr.tornDropped {
			nr.r.warnf("tape %s: no end line; the recording was cut short or is still going on; %d messages kept", nr.r.path, nr.pos.ord)
		}
	case nr.r.end.Messages != nr.pos.ord:
		nr.r.warnf("tape %s line %d: the end line says %d messages but the tape has %d", nr.r.path, nr.endLine, nr.r.end.Messages, nr.pos.ord)
	}
	return io.EOF
}

// notJSON explains why a line is not a JSON object.
func (nr *nativeReader) notJSON(line []byte, n int64) *Error {
	e := &Error{Path: nr.r.path, Line: n, Seq: -1}
	if i, ok := binaryAt(line); ok {
		e.Msg = fmt.Sprintf("binary content (byte 0x%02x at column %d): this is not a text tape; is it compressed, or the wrong file?", line[i], i+1)
		if isGzip(line) {
			e.Msg = "binary content: the file is gzip-compressed; decompress it (gunzip) and open that"
		}
		return e
	}
	var raw json.RawMessage
	err := json.Unmarshal(line, &raw)
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se) && se.Offset >= int64(len(bytes.TrimRight(line, " \t\r"))):
		e.Msg = "the line is cut short (torn) in the middle of the tape: fix or remove the line"
	case errors.As(err, &se):
		e.Msg = fmt.Sprintf("not valid JSON at column %d (%v): fix or remove the line", se.Offset, se)
	case err == nil:
		e.Msg = fmt.Sprintf("the line is %s, want a JSON object: fix or remove the line", kindOf(bytes.TrimSpace(line)))
	default:
		e.Msg = fmt.Sprintf("not valid JSON (%v): fix or remove the line", err)
	}
	return e
}

// binaryAt finds a byte that no text tape holds: NUL, another control
// character than tab/CR, or invalid UTF-8.
func binaryAt(line []byte) (int, bool) {
	for i := 0; i < len(line); {
		// Eight bytes at a time while they are all printable ASCII (no
		// byte ≥ 0x80, none < 0x20): a one-line document of megabytes is
		// mostly that.
		for i+8 <= len(line) {
			v := binary.LittleEndian.Uint64(line[i:])
			if (v|(v-0x2020202020202020))&0x8080808080808080 != 0 {
				break
			}
			i += 8
		}
		if i >= len(line) {
			break
		}
		c := line[i]
		if c < 0x20 && c != '\t' && c != '\r' {
			return i, true
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(line[i:])
		if r == utf8.RuneError && size == 1 {
			return i, true
		}
		i += size
	}
	return 0, false
}

func isBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// mayBeLogLine reports whether a JSON object line, its members in env,
// can be a line of a JSON-RPC log: a message (it has a member of one) or
// one wrapped in a member named as logs name it. It spares a document
// of megabytes (a cassette on one line) isLogLine's parse of it whole.
func mayBeLogLine(env *envelope) bool {
	if env.msg.ok() {
		return true
	}
	for _, x := range env.extra {
		switch x.key {
		case "jsonrpc", "method", "id", "result", "error", "params":
			return true
		}
		if slices.Contains(logMsgKeys, x.key) {
			return true
		}
	}
	return false
}

func (env *envelope) hasExtra(key string) bool {
	for _, x := range env.extra {
		if x.key == key {
			return true
		}
	}
	return false
}

// firstKey returns the raw name of the first member of an object that may be
// cut short, or "".
func firstKey(doc []byte) string {
	i := 1
	for i < len(doc) && (doc[i] == ' ' || doc[i] == '\t' || doc[i] == '\r') {
		i++
	}
	if i >= len(doc) || doc[i] != '"' {
		return ""
	}
	end := bytes.IndexByte(doc[i+1:], '"')
	if end < 0 {
		return ""
	}
	return string(doc[i+1 : i+1+end])
}

// otherSession reports whether line is a message of a session other than
// want (a JSON string), looking no further than its "session" member.
func otherSession(line, want []byte) bool {
	other := false
	_ = jsonscan.Members(line, func(m jsonscan.Member) bool {
		if string(m.Key) == "session" {
			other = !bytes.Equal(line[m.Start:m.End], want)
			return false
		}
		return true
	})
	return other
}
