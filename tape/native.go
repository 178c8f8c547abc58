package tape

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/replayctl/replayctl/internal/jsonscan"
	"io"
	"slices"
	"unicode/utf8"
)

// readLine reads the next line without its newline. last is true when the
// line ends at the end of the file rather than with a newline. With nothing
// left it returns io.EOF.
func (r *Reader) readLine() (line []byte, last bool, err error) {
	b, err := r.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.long = append(r.long[:0], b...)
		for err == bufio.ErrBufferFull {
			if len(r.long) > r.opts.maxLine+1 {
				return nil, false, r.tooLong(r.pos.line + 1)
			}
			b, err = r.br.ReadSlice('\n')
			r.long = append(r.long, b...)
		}
		b = r.long
	}
	switch err {
	case nil:
		r.pos.off += int64(len(b))
		r.pos.line++
		b = b[:len(b)-1]
	case io.EOF:
		if len(b) == 0 {
			return nil, false, io.EOF
		}
		r.pos.off += int64(len(b))
		r.pos.line++
		last = true
	default:
		return nil, false, &Error{Path: r.path, Line: r.pos.line + 1, Seq: -1,
			Msg: fmt.Sprintf("cannot read it (%v): check the file and the disk", err), Err: err}
	}
	if len(b) > r.opts.maxLine {
		return nil, false, r.tooLong(r.pos.line)
	}
	return b, last, nil
}

func (r *Reader) tooLong(line int64) *Error {
	return &Error{Path: r.path, Line: line, Seq: -1, Err: ErrLineTooLong,
		Msg: fmt.Sprintf("the line is longer than the limit of %d bytes: if the tape is right, raise the limit (--max-line; replay.MaxLine)", r.opts.maxLine)}
}

// readMessage reads lines up to the next message line and decodes it.
func (r *Reader) readMessage() (Message, error) {
	for {
		start := r.pos.off
		line, last, err := r.readLine()
		if err == io.EOF {
			return Message{}, r.atEOF()
		}
		if err != nil {
			return Message{}, err
		}
		n := r.pos.line
		if isBlank(line) || (r.opts.only != nil && otherSession(line, r.opts.only)) {
			continue
		}
		if err := scanEnvelope(line, &r.env); err != nil {
			if last {
				if !r.eofDone {
					r.tornDropped = true
					r.warnf("tape %s line %d: torn last line (%d bytes) dropped; the tape was cut short; %d messages kept", r.path, n, len(line), r.pos.ord)
				}
				return Message{}, r.atEOF()
			}
			return Message{}, r.notJSON(line, n)
		}
		if r.pos.pastEnd {
			return Message{}, &Error{Path: r.path, Line: n, Seq: -1,
				Msg: fmt.Sprintf("a line after the end line (line %d): remove it, or the end line if the tape goes on", r.endLine)}
		}
		switch typ := lineType(line, &r.env); typ {
		case "message":
			var m Message
			if e := decodeMessage(line, &r.env, &m, r.session, &r.slab); e != nil {
				return Message{}, r.errAt(e, n)
			}
			if m.Seq <= r.pos.lastSeq {
				return Message{}, &Error{Path: r.path, Line: n, Seq: m.Seq,
					Msg: fmt.Sprintf("seq %d does not follow the previous message's seq %d: seqs must increase; renumber the messages or convert the tape again", m.Seq, r.pos.lastSeq)}
			}
			m.Line = n
			if r.pos.ord == int64(len(r.index))*indexEvery {
				r.index = append(r.index, indexEntry{seq: m.Seq, prevSeq: r.pos.lastSeq, off: start, line: n - 1, ord: r.pos.ord})
			}
			r.pos.ord++
			r.pos.lastSeq = m.Seq
			r.readSpan = lineSpan{off: start, n: len(line)}
			r.session = m.Session
			return m, nil
		case "end":
			e, bad := decodeEnd(line)
			if bad != nil {
				return Message{}, r.errAt(bad, n)
			}
			r.pos.pastEnd = true
			r.end, r.endLine = &e, n
		case "header":
			return Message{}, &Error{Path: r.path, Line: n, Seq: -1,
				Msg: "a second header line: a tape has one header, on its first line; remove this one (were two tapes joined?)"}
		case "":
			return Message{}, &Error{Path: r.path, Line: n, Seq: -1,
				Msg: `the line has no "type": want {"type":"message",...} or {"type":"end",...}; fix or remove the line`}
		default:
			return Message{}, &Error{Path: r.path, Line: n, Seq: -1,
				Msg: fmt.Sprintf(`unknown line type %q: want "message" or "end"; fix or remove the line`, typ)}
		}
	}
}

// atEOF gives the end-of-tape warnings once and returns io.EOF.
func (r *Reader) atEOF() error {
	if r.eofDone {
		return io.EOF
	}
	r.eofDone = true
	switch {
	case r.end == nil:
		if !r.tornDropped {
			r.warnf("tape %s: no end line; the recording was cut short or is still going on; %d messages kept", r.path, r.pos.ord)
		}
	case r.end.Messages != r.pos.ord:
		r.warnf("tape %s line %d: the end line says %d messages but the tape has %d", r.path, r.endLine, r.end.Messages, r.pos.ord)
	}
	return io.EOF
}

func (r *Reader) warnf(format string, args ...any) {
	r.warnings = append(r.warnings, fmt.Sprintf(format, args...))
}

// notJSON explains why a line is not a JSON object.
func (r *Reader) notJSON(line []byte, n int64) *Error {
	e := &Error{Path: r.path, Line: n, Seq: -1}
	if i, ok := binaryAt(line); ok {
		e.Msg = fmt.Sprintf("binary content (byte 0x%02x at column %d): this is not a text tape; is it compressed, or the wrong file?", line[i], i+1)
		if bytes.HasPrefix(line, []byte{0x1f, 0x8b}) {
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

// detect decides the format: the importers registered for the first
// bytes (a packet capture) are asked first; then, the first line read,
// those registered for it (a JSON-RPC log, a YAML transcript); then the
// line is judged as a native tape's header, and a line that is none says
// why; what is left is the start of a JSON document, which the importers
// of documents are asked about (see importDocument).
func (r *Reader) detect() error {
	p := &Probe{r: r}
	magic, _ := r.br.Peek(magicLen)
	p.magic = bytes.Clone(magic)
	if done, err := r.importAt(StageMagic, p); done {
		return err
	}
	var line []byte
	var last bool
	var start int64 // where line starts
	for {
		start = r.pos.off
		l, la, err := r.readLine()
		if err == io.EOF {
			return &Error{Path: r.path, Seq: -1, Err: ErrEmpty, Msg: "the file is empty: record a session first, or pick another file"}
		}
		if err != nil {
			return err
		}
		if !isBlank(l) {
			line, last = l, la
			break
		}
	}
	n := r.pos.line
	p.first, p.last, p.start, p.line = line, last, start, n
	if done, err := r.importAt(StageLine, p); done {
		return err
	}
	trimmed := bytes.TrimSpace(line)
	_, bin := binaryAt(line)
	if bin || trimmed[0] != '{' {
		e := r.notJSON(line, n)
		if !bin && json.Valid(trimmed) {
			e.Msg = fmt.Sprintf("the file starts with %s, not a tape header: this is neither a replayctl tape nor an Agent VCR cassette", kindOf(trimmed))
		}
		e.Err = ErrUnknownFormat
		return e
	}
	if env, ok := p.envelope(); ok {
		switch typ := lineType(line, env); typ {
		case "header":
			h, bad := decodeHeader(line)
			if bad != nil {
				return r.errAt(bad, n)
			}
			r.header, r.format, r.dataStart = h, FormatNative, r.pos
			return nil
		case "message", "end":
			return &Error{Path: r.path, Line: n, Seq: -1, Err: ErrUnknownFormat,
				Msg: fmt.Sprintf(`the header is missing: the first line is a %s line; a tape starts with {"type":"header","format":%q,"version":%d}`, typ, FormatName, FormatVersion)}
		case "":
			if !env.hasExtra("format_version") && !env.hasExtra("log") && !env.hasExtra("interactions") {
				return &Error{Path: r.path, Line: n, Seq: -1, Err: ErrUnknownFormat,
					Msg: `the first line is a JSON object without "type", "format_version", "log", "interactions" or "jsonrpc": this is neither a replayctl tape, an Agent VCR cassette, an mcp-cassette or mcp-recorder file, a HAR file nor a JSON-RPC log`}
			}
		default:
			return &Error{Path: r.path, Line: n, Seq: -1, Err: ErrUnknownFormat,
				Msg: fmt.Sprintf(`the first line has type %q, want "header": this is not a replayctl tape`, typ)}
		}
	} else if firstKey(trimmed) == "type" { // a broken header line
		e := r.notJSON(line, n)
		if last {
			e.Msg = "the header line is cut short and there is nothing after it: the recording stopped at once; record it again"
		}
		return e
	}
	return r.importDocument(p)
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
