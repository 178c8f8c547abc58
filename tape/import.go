package tape

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// maxImport bounds an imported file, which is read whole into memory.
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

// importDocument reads the rest of the file as one JSON document: a HAR
// file (a "log" member) or an Agent VCR cassette.
func (r *Reader) importDocument(first []byte, last bool, n int64) error {
	doc, err := r.readRest(first, last, "a JSON document")
	if err != nil {
		return err
	}
	if isHAR(doc) {
		h, msgs, warnings, err := decodeHAR(r.path, doc, n-1)
		if err != nil {
			return err
		}
		r.warnings = append(r.warnings, warnings...)
		r.setImported(FormatHAR, h, msgs)
		return nil
	}
	h, msgs, err := decodeVCR(r.path, doc, n-1)
	if err != nil {
		var e *Error
		if errors.As(err, &e) && errors.Is(e.Err, ErrUnknownFormat) {
			e.Msg = `a JSON document without "log" (HAR) or "format_version" and "session" (Agent VCR): this is not a tape replayctl can read`
		}
		return err
	}
	r.setImported(FormatVCR, h, msgs)
	return nil
}

// importLog reads the rest of the file as a JSON-RPC log.
func (r *Reader) importLog(first []byte, last bool, n int64) error {
	doc, err := r.readRest(first, last, "a JSON-RPC log")
	if err != nil {
		return err
	}
	h, msgs, warnings, err := decodeLog(r.path, doc, n-1)
	if err != nil {
		return err
	}
	r.warnings = append(r.warnings, warnings...)
	r.setImported(FormatLog, h, msgs)
	return nil
}

func (r *Reader) setImported(f Format, h Header, msgs []Message) {
	r.header, r.msgs, r.format = h, msgs, f
	var dur int64
	if len(msgs) > 0 {
		dur = msgs[len(msgs)-1].TUS
	}
	r.end = &End{Messages: int64(len(msgs)), DurationUS: dur}
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
