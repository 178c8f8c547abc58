package tape

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// maxImport bounds a JSON document that is read whole into memory: one
// whose first member is neither "log" (HAR) nor "format_version" (Agent
// VCR).
const maxImport = 512 << 20

// readRest returns the first line and everything after it: the whole
// file from the first non-blank line on, bounded by maxImport.
func (nr *nativeReader) readRest(first []byte, last bool, what string) ([]byte, error) {
	doc := make([]byte, 0, len(first)+1+nr.br.Buffered())
	doc = append(doc, first...)
	if !last {
		doc = append(doc, '\n')
	}
	rest, err := io.ReadAll(io.LimitReader(nr.br, maxImport))
	if err != nil {
		return nil, &Error{Path: nr.r.path, Seq: -1, Err: err, Msg: fmt.Sprintf("cannot read it (%v): check the file and the disk", err)}
	}
	if len(rest) >= maxImport {
		return nil, &Error{Path: nr.r.path, Seq: -1, Msg: fmt.Sprintf("%s larger than %d MiB: split the recording", what, maxImport>>20)}
	}
	return append(doc, rest...), nil
}

// rest reads the file from the first non-blank line on, as it streams.
func (nr *nativeReader) rest(first []byte, last bool) io.Reader {
	head := bytes.Clone(first) // first may be in br's buffer, which reading on reuses
	if !last {
		head = append(head, '\n')
	}
	return io.MultiReader(bytes.NewReader(head), nr.br)
}

// notATape says of a document that is neither a HAR file nor a cassette
// what it is not.
func notATape(err error) error {
	var e *Error
	if errors.As(err, &e) && errors.Is(e.Err, ErrUnknownFormat) {
		e.Msg = notATapeMsg
	}
	return err
}

const notATapeMsg = `a JSON document without "log" (HAR), "format_version" and "session" (Agent VCR), "format_version" and "messages" (mcp-cassette), or "version" and "interactions" (mcp-recorder): this is not a tape replayctl can read`

// copyToTemp copies src into a temporary file, already removed on Unix
// (the open file needs no name; elsewhere removeTemp removes it).
func copyToTemp(path string, src io.Reader) (*os.File, error) {
	f, err := os.CreateTemp("", ".replayctl-import-*")
	if err != nil {
		return nil, &Error{Path: path, Seq: -1, Err: err, Msg: fmt.Sprintf("cannot create a temporary file to read it from (%v): set TMPDIR to a folder with room for it, or give a file rather than a pipe", err)}
	}
	os.Remove(f.Name())
	if _, err := io.Copy(f, src); err != nil {
		removeTemp(f)
		return nil, &Error{Path: path, Seq: -1, Err: err, Msg: fmt.Sprintf("cannot copy it to a temporary file (%v): set TMPDIR to a folder with room for it, or give a file rather than a pipe", err)}
	}
	return f, nil
}

// removeTemp closes a file of copyToTemp and removes it, where it was
// not removed at once.
func removeTemp(f *os.File) error {
	err := f.Close()
	os.Remove(f.Name())
	return err
}

// inMemory is messages already in seq order, as imported.
func inMemory(msgs []Message) *imported {
	refs := make([]importRef, len(msgs))
	for i, m := range msgs {
		refs[i] = importRef{i: int32(i), seq: m.Seq, tus: m.TUS}
	}
	return &imported{store: memStoreOf(msgs), refs: refs}
}

// importedReader reads the messages an Importer read (Agent VCR, HAR,
// JSON-RPC logs, …): a Reader's body for every format but the native one.
type importedReader struct {
	r   *Reader // the front: the name and session filter it reads by
	imp importSource
	at  int // the message Next returns next
}

// setImported makes r a reader of what an importer of format f read.
func (r *Reader) setImported(f Format, h Header, im importSource) {
	r.header, r.format = h, f
	r.body = &importedReader{r: r, imp: im}
	r.end = &End{Messages: int64(im.count()), DurationUS: im.lastTUS()}
}

// next is Reader.Next on an imported tape.
func (ir *importedReader) next() (Message, error) {
	for ir.at < ir.imp.count() {
		ir.at++
		m, err := ir.imp.message(ir.at - 1)
		if err != nil {
			return Message{}, ir.readBackErr(err)
		}
		if ir.r.opts.only == nil || string(ir.r.opts.only) == strconv.Quote(m.Session) {
			return m, nil
		}
	}
	return Message{}, io.EOF
}

// readBackErr is the error of a message that could not be read back
// from the import's store: an *Error as it is, else one that says where.
// (Apart from next, whose every call allocated the *Error that errors.As
// looked for.)
func (ir *importedReader) readBackErr(err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Path: ir.r.path, Seq: ir.imp.seqAt(ir.at - 1), Err: err, Msg: fmt.Sprintf("cannot read an imported message back (%v): check the disk of the temporary folder (TMPDIR)", err)}
}

// seekSeq is Reader.SeekSeq on an imported tape.
func (ir *importedReader) seekSeq(seq int64) error {
	n := ir.imp.count()
	i := sort.Search(n, func(i int) bool { return ir.imp.seqAt(i) >= seq })
	switch {
	case n == 0:
		return ir.r.pastLast(seq, -1)
	case i == n:
		return ir.r.pastLast(seq, ir.imp.seqAt(n-1))
	case i == 0 && ir.imp.seqAt(0) != seq:
		return ir.r.beforeFirst(seq, ir.imp.seqAt(0))
	}
	ir.at = i
	return nil
}

// rewind is Reader.Rewind on an imported tape.
func (ir *importedReader) rewind() error {
	ir.at = 0
	return nil
}

// lineSpan is Reader.LineSpan on an imported tape: its messages have no
// line of their own.
func (ir *importedReader) lineSpan() (int64, int, bool) { return 0, 0, false }

// close releases what the import kept (a spill file, a copy of a pipe).
func (ir *importedReader) close() { ir.imp.close() }

// importSource is what an imported tape's reader reads, nil for a
// native tape.
func (r *Reader) importSource() importSource {
	if ir, ok := r.body.(*importedReader); ok {
		return ir.imp
	}
	return nil
}

// startsWithKey reports whether the document that starts with the line
// first, and goes on in br, has key as its first member.
func startsWithKey(first []byte, br *bufio.Reader, key string) bool {
	i := jsonscan.SkipSpace(first, 0)
	if i >= len(first) || first[i] != '{' {
		return false
	}
	head := first[i+1:]
	if len(bytes.TrimSpace(head)) == 0 {
		head, _ = br.Peek(4096) // what there is: less at the end of the file
	}
	j := jsonscan.SkipSpace(head, 0)
	return bytes.HasPrefix(head[j:], []byte(`"`+key+`"`))
}

// isHAR reports whether the JSON document doc has a top-level "log"
// member, the HTTP Archive's root, or, cut short, starts with one.
func isHAR(doc []byte) bool {
	found := false
	start := jsonscan.SkipSpace(doc, 0)
	_ = jsonscan.Members(doc[start:], func(m jsonscan.Member) bool {
		if string(m.Key) == "log" {
			found = true
			return false
		}
		return true
	})
	if !found { // cut short inside "log": the scan stops before it
		i := jsonscan.SkipSpace(doc, start+1)
		found = start < len(doc) && doc[start] == '{' && bytes.HasPrefix(doc[i:], []byte(`"log"`))
	}
	return found
}

// firstMember says what the document that starts with the line first,
// and goes on in br, opens with: its first member's name, quoted, and
// the kind of its value (`"version":string`), or "" when that cannot be
// told from the first 4 KiB.
func firstMember(first []byte, br *bufio.Reader) string {
	i := jsonscan.SkipSpace(first, 0)
	if i >= len(first) || first[i] != '{' {
		return ""
	}
	head := first[i+1:]
	if len(bytes.TrimSpace(head)) == 0 {
		head, _ = br.Peek(4096) // what there is: less at the end of the file
	}
	j := jsonscan.SkipSpace(head, 0)
	end, err := jsonscan.SkipValue(head, j)
	if err != nil || j >= len(head) || head[j] != '"' {
		return ""
	}
	name := head[j:end]
	k := jsonscan.SkipSpace(head, end)
	if k >= len(head) || head[k] != ':' {
		return ""
	}
	k = jsonscan.SkipSpace(head, k+1)
	if k >= len(head) {
		return ""
	}
	kind := kindOf(head[k:])
	_, kind, _ = strings.Cut(kind, " ") // "a number" → "number"
	return string(name) + ":" + kind
}

// documentKind tells an mcp-cassette or mcp-recorder document, read
// whole, by its top-level members, or "".
func documentKind(doc []byte) Format {
	has := map[string]byte{}
	start := jsonscan.SkipSpace(doc, 0)
	_ = jsonscan.Members(doc[start:], func(m jsonscan.Member) bool {
		has[string(m.Key)] = doc[start+m.Start]
		return true
	})
	switch {
	case has["log"] != 0:
		return ""
	case has["messages"] != 0 && has["format_version"] != 0 && has["format_version"] != '"':
		return FormatCassette
	case has["interactions"] != 0 && has["version"] != 0 && has["session"] == 0:
		return FormatRecorder
	}
	return ""
}
