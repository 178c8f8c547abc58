package tape

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// maxImport bounds a JSON document that is read whole into memory: one
// whose first member is neither "log" (HAR) nor "format_version" (Agent
// VCR).
const maxImport = 512 << 20

// readRest returns the first line and everything after it: the whole
// file from the first non-blank line on, bounded by maxImport.
func (r *Reader) readRest(first []byte, last bool, what string) ([]byte, error) {
	doc := make([]byte, 0, len(first)+1+r.br.Buffered())
	doc = append(doc, first...)
	if !last {
		doc = append(doc, '\n')
	}
	rest, err := io.ReadAll(io.LimitReader(r.br, maxImport))
	if err != nil {
		return nil, &Error{Path: r.path, Seq: -1, Err: err, Msg: fmt.Sprintf("cannot read it (%v): check the file and the disk", err)}
	}
	if len(rest) >= maxImport {
		return nil, &Error{Path: r.path, Seq: -1, Msg: fmt.Sprintf("%s larger than %d MiB: split the recording", what, maxImport>>20)}
	}
	return append(doc, rest...), nil
}

// rest reads the file from the first non-blank line on, as it streams.
func (r *Reader) rest(first []byte, last bool) io.Reader {
	head := bytes.Clone(first) // first may be in br's buffer, which reading on reuses
	if !last {
		head = append(head, '\n')
	}
	return io.MultiReader(bytes.NewReader(head), r.br)
}

// importDocument imports the rest of the file, one JSON document: a HAR
// file (a "log" member) or an Agent VCR cassette. A HAR file whose first
// member is "log", as every HAR writer puts it, or a cassette whose first
// member is "format_version", as Agent VCR writes it, streams into a
// spill file (see msgStore); any other document is read whole.
func (r *Reader) importDocument(first []byte, last bool, n int64) error {
	first = bytes.Clone(first) // it is in br's buffer, which reading on reuses
	switch {
	case startsWithKey(first, r.br, "log"):
		store, err := newSpillStore(r.path)
		if err != nil {
			return err
		}
		h, im, warnings, err := decodeHAR(r.path, r.rest(first, last), n-1, store)
		if err != nil {
			store.close()
			return err
		}
		r.warnings = append(r.warnings, warnings...)
		r.setImported(FormatHAR, h, im)
		return nil
	case firstMember(first, r.br) == `"format_version":number`:
		return r.importStream(FormatCassette, decodeCassette, first, last, n)
	case firstMember(first, r.br) == `"version":string`:
		return r.importStream(FormatRecorder, decodeRecorder, first, last, n)
	case startsWithKey(first, r.br, "format_version"):
		store, err := newSpillStore(r.path)
		if err != nil {
			return err
		}
		h, im, err := decodeVCRStream(r.path, r.rest(first, last), n-1, store)
		if err != nil {
			store.close()
			return notATape(err)
		}
		r.setImported(FormatVCR, h, im)
		return nil
	}
	doc, err := r.readRest(first, last, "a JSON document")
	if err != nil {
		return err
	}
	switch documentKind(doc) {
	case FormatCassette:
		return r.importWhole(FormatCassette, decodeCassette, doc, n)
	case FormatRecorder:
		return r.importWhole(FormatRecorder, decodeRecorder, doc, n)
	}
	if isHAR(doc) {
		h, im, warnings, err := decodeHAR(r.path, bytes.NewReader(doc), n-1, &memStore{})
		if err != nil {
			return err
		}
		r.warnings = append(r.warnings, warnings...)
		r.setImported(FormatHAR, h, im)
		return nil
	}
	h, msgs, err := decodeVCR(r.path, doc, n-1)
	if err != nil {
		return notATape(err)
	}
	r.setImported(FormatVCR, h, inMemory(msgs))
	return nil
}

// notATape says of a document that is neither a HAR file nor a cassette
// what it is not.
func notATape(err error) error {
	var e *Error
	if errors.As(err, &e) && errors.Is(e.Err, ErrUnknownFormat) {
		e.Msg = `a JSON document without "log" (HAR), "format_version" and "session" (Agent VCR), "format_version" and "messages" (mcp-cassette), or "version" and "interactions" (mcp-recorder): this is not a tape replayctl can read`
	}
	return err
}

// importLog serves the rest of the file, a JSON-RPC log, from the file,
// line by line (see logStream); start is where its first non-blank line
// (first) begins. A file that cannot seek (a pipe) is copied to a
// temporary file in TMPDIR first, to be read again from there.
func (r *Reader) importLog(first []byte, last bool, start, n int64) error {
	src := r.src
	var tmp *os.File
	if _, err := src.Seek(0, io.SeekCurrent); err != nil {
		if tmp, err = copyToTemp(r.path, r.rest(first, last)); err != nil {
			return err
		}
		src, start = tmp, 0
	}
	ls, err := openLog(r.path, src, start, n-1, r.opts.maxLine)
	if err != nil {
		if tmp != nil {
			removeTemp(tmp)
		}
		return err
	}
	ls.tmp = tmp
	r.warnings = append(r.warnings, ls.warnings...)
	r.setImported(FormatLog, ls.h, ls)
	return nil
}

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
	store := memStore(msgs)
	return &imported{store: &store, refs: refs}
}

func (r *Reader) setImported(f Format, h Header, im importSource) {
	r.header, r.imp, r.format = h, im, f
	r.end = &End{Messages: int64(im.count()), DurationUS: im.lastTUS()}
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

// decodeFunc is an importer of a JSON document that streams it into a
// store: decodeCassette, decodeRecorder.
type decodeFunc func(path string, src io.Reader, lineBase int64, store msgStore) (Header, *imported, []string, error)

// importStream imports the rest of the file, streamed into a spill file.
func (r *Reader) importStream(f Format, decode decodeFunc, first []byte, last bool, n int64) error {
	store, err := newSpillStore(r.path)
	if err != nil {
		return err
	}
	h, im, warnings, err := decode(r.path, r.rest(first, last), n-1, store)
	if err != nil {
		store.close()
		return err
	}
	r.warnings = append(r.warnings, warnings...)
	r.setImported(f, h, im)
	return nil
}

// importWhole imports a document read whole.
func (r *Reader) importWhole(f Format, decode decodeFunc, doc []byte, n int64) error {
	h, im, warnings, err := decode(r.path, bytes.NewReader(doc), n-1, &memStore{})
	if err != nil {
		return err
	}
	r.warnings = append(r.warnings, warnings...)
	r.setImported(f, h, im)
	return nil
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
