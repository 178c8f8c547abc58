package tape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/replayctl/replayctl/internal/jsonscan"
	"github.com/replayctl/replayctl/jsonrpc"
)

// detect decides the format of the file nr reads and gives r its body:
// nr itself for a native tape, else the reader of what an importer read.
// The file is read once, in this order:
//
//  1. StageMagic: the importers that tell a file by its first bytes (a
//     packet capture) are asked.
//  2. The first non-blank line is read (a file with none is ErrEmpty).
//  3. StageLine: the importers that tell a file by that line (a JSON-RPC
//     log, a YAML transcript) are asked.
//  4. The native reader judges the line: a header line makes the tape
//     native. A line that is not a JSON object, a native line before any
//     header, a header cut short, or an object whose "type" is another
//     is an error that says what the file is not.
//  5. StageDocument: what is left is the start of a JSON document. The
//     importers of documents are asked by its first member (streamed),
//     and, if none claims it, again once it is read whole (importDocument).
//     A document on one line without a member that one of the built-in
//     formats needs ("format_version", "log", "interactions") is asked
//     about only by its first member, not read whole.
//
// Within a stage the importers tell files apart, so their order does not
// matter (Importer).
func (r *Reader) detect(nr *nativeReader) error {
	p := newProbe(nr)
	if done, err := r.importAt(StageMagic, p); done {
		return err
	}
	var line []byte
	var last bool
	var start int64 // where line starts
	nr.detecting = true
	for {
		start = nr.pos.off
		l, la, err := nr.readLine()
		nr.detecting = false
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
		nr.detecting = true
	}
	n := nr.pos.line
	p.first, p.last, p.start, p.line = line, last, start, n
	// A first line longer than the line limit is read only as a JSON
	// document on one line (WithMaxDocument); a line of a JSONL tape or
	// log is held to the line limit.
	if len(line) > min(r.opts.maxLine, r.opts.maxDoc) {
		env, ok := p.envelope()
		switch {
		case ok && (lineType(line, env) != "" || pick(line, "jsonrpc") != nil):
			if len(line) > r.opts.maxLine {
				return nr.lineTooLong(n)
			}
		case len(line) > max(r.opts.maxDoc, r.opts.maxLine): // a command without --max-document raises it with --max-line
			return nr.docTooLong(n)
		}
	}
	if len(line) <= r.opts.maxLine { // a longer one is no line of a JSONL tape or log
		if done, err := r.importAt(StageLine, p); done {
			return err
		}
	}
	trimmed := bytes.TrimSpace(line)
	bin := p.binary()
	if bin || trimmed[0] != '{' {
		e := nr.notJSON(line, n)
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
			r.header, r.format, r.body = h, FormatNative, nr
			nr.dataStart = nr.pos
			return nil
		case "message", "end":
			return &Error{Path: r.path, Line: n, Seq: -1, Err: ErrUnknownFormat,
				Msg: fmt.Sprintf(`the header is missing: the first line is a %s line; a tape starts with {"type":"header","format":%q,"version":%d}`, typ, FormatName, FormatVersion)}
		case "":
			if p.wholeWithoutDocument() {
				p.first = nr.keepLine(p.first)
				if done, err := r.importAt(StageDocument, p); done {
					return err
				}
				return &Error{Path: r.path, Line: n, Seq: -1, Err: ErrUnknownFormat,
					Msg: `the first line is a JSON object without "type", "format_version", "log", "interactions" or "jsonrpc": this is neither a replayctl tape, an Agent VCR cassette, an mcp-cassette or mcp-recorder file, a HAR file nor a JSON-RPC log`}
			}
		default:
			return &Error{Path: r.path, Line: n, Seq: -1, Err: ErrUnknownFormat,
				Msg: fmt.Sprintf(`the first line has type %q, want "header": this is not a replayctl tape`, typ)}
		}
	} else if firstKey(trimmed) == "type" { // a broken header line
		e := nr.notJSON(line, n)
		if last {
			e.Msg = "the header line is cut short and there is nothing after it: the recording stopped at once; record it again"
		}
		return e
	}
	return r.importDocument(p)
}

// scanEnvelopeValid is scanEnvelope of a line that is valid JSON, in the
// pass that checks its grammar (jsonscan.MembersValid): the same
// envelope, the same message parsed (FuzzScanEnvelopeValid). It returns
// an error wrapping jsonscan.ErrSyntax when the line is not a valid JSON
// object, and env is then not to be used: scanEnvelope says what the
// line holds.
func scanEnvelopeValid(line []byte, env *envelope) error {
	extra := env.extra[:0]
	*env = envelope{}
	msgAt := -1 // the last "msg" that is an object, as scanEnvelope parses it
	err := jsonscan.MembersValid(line, func(m jsonscan.Member) bool {
		key, ok := memberName(m)
		if !ok { // a valid JSON name decodes: this does not happen
			return false
		}
		extra = env.add(key, span{m.Start, m.End}, extra)
		if string(key) == "msg" && line[m.Start] == '{' {
			msgAt = m.Start
		}
		return true
	})
	env.extra = extra
	if err != nil {
		return err
	}
	if msgAt >= 0 {
		rpc, _, rpcErr := jsonrpc.ParseStrictAt(line, msgAt)
		env.rpc, env.rpcErr, env.rpcAt = rpc, rpcErr, msgAt
	}
	return nil
}

// newProbe is the probe of the file nr reads, in StageMagic: its first
// bytes peeked (Probe.Magic), waiting for no more.
func newProbe(nr *nativeReader) *Probe {
	magic, _ := nr.br.Peek(magicLen)
	return &Probe{n: nr, magic: bytes.Clone(magic)}
}
