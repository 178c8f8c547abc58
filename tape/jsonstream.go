package tape

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// jsonStream reads one JSON document value by value (encoding/json's
// Decoder) and knows the line of every byte it has not yet forgotten, so
// that an error names the line it is on while the document streams past.
type jsonStream struct {
	path string
	what string // "HAR file" for its own errors, or "" (Agent VCR)
	// depth counts the objects and arrays open where the stream stands
	// (as read by next).
	depth int
	lc    *lineCounter
	dec   *json.Decoder
}

func newJSONStream(path string, src io.Reader, lineBase int64) *jsonStream {
	lc := &lineCounter{r: src, base: lineBase}
	dec := json.NewDecoder(lc)
	dec.UseNumber()
	return &jsonStream{path: path, what: "HAR file", lc: lc, dec: dec}
}

// lineCounter passes reads through and notes where the newlines are.
// Lines are asked for at offsets that never go back before the last
// forget, so it keeps only the newlines after that: as many as are in
// the bytes the Decoder has read ahead.
type lineCounter struct {
	r    io.Reader
	base int64   // lines before the document, and those forgotten
	nl   []int64 // offsets of the newlines not forgotten
	n    int64   // bytes read
	// start is where the line of the first newline not forgotten starts.
	start int64
}

func (c *lineCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i, b := range p[:n] {
		if b == '\n' {
			c.nl = append(c.nl, c.n+int64(i))
		}
	}
	c.n += int64(n)
	return n, err
}

// lineAt is the 1-based line of the byte at off.
func (c *lineCounter) lineAt(off int64) int64 {
	return c.base + int64(sort.Search(len(c.nl), func(i int) bool { return c.nl[i] >= off })) + 1
}

// colAt is the 1-based column, in bytes, of the byte at off.
func (c *lineCounter) colAt(off int64) int64 {
	k := sort.Search(len(c.nl), func(i int) bool { return c.nl[i] >= off })
	if k == 0 {
		return off - c.start + 1
	}
	return off - c.nl[k-1]
}

// forget drops the newlines before off.
func (c *lineCounter) forget(off int64) {
	k := sort.Search(len(c.nl), func(i int) bool { return c.nl[i] >= off })
	if k > 0 {
		c.start = c.nl[k-1] + 1
	}
	c.base += int64(k)
	c.nl = append(c.nl[:0], c.nl[k:]...)
}

func (s *jsonStream) errf(off int64, format string, args ...any) *Error {
	return &Error{Path: s.path, Line: s.lc.lineAt(off), Seq: -1, Msg: fmt.Sprintf(format, args...)}
}

// value decodes the next value as JSON text and returns it with its
// offset.
func (s *jsonStream) value() (json.RawMessage, int64, error) {
	var raw json.RawMessage
	if err := s.dec.Decode(&raw); err != nil {
		return nil, 0, s.syntax(err, true)
	}
	return raw, s.dec.InputOffset() - int64(len(raw)), nil
}

// token returns the next token.
func (s *jsonStream) token() (json.Token, error) {
	t, err := s.dec.Token()
	if err != nil {
		return nil, s.syntax(err, false)
	}
	return t, nil
}

// syntax turns a Decoder's error into an *Error naming the line: the
// document cut short, or not JSON. value says whether Decode failed (or
// Token).
func (s *jsonStream) syntax(err error, value bool) error {
	var se *json.SyntaxError
	var off int64
	var msg string
	if errors.As(err, &se) {
		off, msg = s.located(se, value)
	}
	switch {
	case (errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF) && s.what == "":
		return s.errf(s.lc.n-1, "not valid JSON at column %d (unexpected end of JSON input): the file is cut short; fix it or export it again", s.lc.colAt(s.lc.n-1))
	case errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF:
		return s.errf(s.lc.n-1, "the %s is cut short (torn) at its end (line %d): export it again, and let the export finish", s.what, s.lc.lineAt(s.lc.n-1))
	case errors.As(err, &se) && s.what == "":
		return s.errf(off, "not valid JSON at column %d (%s): fix the file or export it again", s.lc.colAt(off), msg)
	case errors.As(err, &se):
		return s.errf(off, "the %s is not valid JSON at column %d (%s): fix the file or export it again", s.what, s.lc.colAt(off), msg)
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Path: s.path, Seq: -1, Err: err, Msg: fmt.Sprintf("cannot read it (%v): check the file and the disk", err)}
}

// located is a Decoder's syntax error with the offset of the byte it is
// about, and worded as json.Unmarshal words it. The Decoder stands where
// the token or value it could not read starts. An error about a
// separator, or a token out of place, is there; one inside a value
// (Decode's, or a string's or number's that Token decodes) is counted in
// bytes the Decoder has scanned since it began, so the value is scanned
// again, on its own, to find it.
func (s *jsonStream) located(se *json.SyntaxError, value bool) (int64, string) {
	at := s.dec.InputOffset()
	msg := se.Error()
	if what, ok := strings.CutPrefix(msg, "expected comma after "); ok {
		return at, "invalid character " + quoteChar(s.byteAt()) + " after " + what
	}
	if what, ok := strings.CutPrefix(msg, "expected colon after "); ok {
		return at, "invalid character " + quoteChar(s.byteAt()) + " after " + what
	}
	if !value && !strings.Contains(msg, " in ") { // not in a literal: the token is out of place
		return at, msg
	}
	var raw json.RawMessage
	var again *json.SyntaxError
	if err := json.NewDecoder(s.dec.Buffered()).Decode(&raw); errors.As(err, &again) && again.Offset > 0 {
		return at + again.Offset - 1, msg
	}
	return at, msg
}

// byteAt is the byte where the Decoder stands, or 0.
func (s *jsonStream) byteAt() byte {
	var b [1]byte
	if n, _ := s.dec.Buffered().Read(b[:]); n == 1 {
		return b[0]
	}
	return 0
}

// quoteChar is a byte quoted as encoding/json's errors quote it.
func quoteChar(c byte) string {
	switch c {
	case '\'':
		return `'\''`
	case '"':
		return `'"'`
	}
	q := strconv.Quote(string(rune(c)))
	return "'" + q[1:len(q)-1] + "'"
}

// next reads the next token and returns it with its offset (exact for
// a delimiter, just before for others), keeping depth.
func (s *jsonStream) next() (json.Token, int64, error) {
	off := s.dec.InputOffset()
	t, err := s.token()
	if err != nil {
		return nil, off, err
	}
	if d, ok := t.(json.Delim); ok {
		off = s.dec.InputOffset() - 1
		if d == '{' || d == '[' {
			s.depth++
		} else {
			s.depth--
		}
	}
	return t, off, nil
}

// fail returns err, an error in a document read so far, unless the rest
// of the document is not valid JSON: then that.
func (s *jsonStream) fail(err error) error {
	for s.depth > 0 {
		if _, _, serr := s.next(); serr != nil {
			return serr
		}
	}
	if serr := s.end(); serr != nil {
		return serr
	}
	return err
}

// skip reads past the next value without holding it.
func (s *jsonStream) skip() error {
	at := s.depth
	for {
		if _, _, err := s.next(); err != nil {
			return err
		}
		if s.depth == at {
			return nil
		}
	}
}

// end reads what follows the document's value: only white space.
func (s *jsonStream) end() error {
	s.dec.More() // skips white space: the offset is of what follows
	off := s.dec.InputOffset()
	t, err := s.dec.Token()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return s.syntax(err, false)
	}
	if d, ok := t.(json.Delim); ok && d == '{' {
		if s.what == "" {
			return s.errf(off, "a second JSON document starts at line %d column %d: one cassette per file; split the file", s.lc.lineAt(off), s.lc.colAt(off))
		}
		return s.errf(off, "a second JSON document starts at line %d column %d: one %s per file; split the file", s.lc.lineAt(off), s.lc.colAt(off), s.what)
	}
	if s.what == "" {
		return s.errf(off, "not valid JSON at column %d (%v after the top-level value): fix the file or export it again", s.lc.colAt(off), t)
	}
	return s.errf(off, "the %s is not valid JSON at column %d (%v after the top-level value): fix the file or export it again", s.what, s.lc.colAt(off), t)
}

// sub is the value raw, read at off, as a document of its own whose
// errors name the lines of the stream.
func (s *jsonStream) sub(raw []byte, off int64) (*vcrDoc, span) {
	d := &vcrDoc{path: s.path, doc: raw, lineBase: s.lc.lineAt(off) - 1}
	for i, c := range raw {
		if c == '\n' {
			d.nl = append(d.nl, i)
		}
	}
	return d, span{0, len(raw)}
}

// kindOfToken is kindOf for a token.
func kindOfToken(t json.Token) string {
	switch v := t.(type) {
	case json.Delim:
		if v == '{' {
			return "an object"
		}
		return "an array"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "not JSON"
}
