// The lean client's answer bodies: leanBody reads a body as its head
// framed it (Content-Length, chunked, or to the connection's end),
// unpacks gzip lazily, and gives the connection back once the body is
// read to its end.

package transport

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// leanBody is an answer's body on a leanConn: by Content-Length, chunked,
// or to the end of the connection. Closing it after its end gives the
// connection back for the next request; before, closes the connection.
type leanBody struct {
	c         *leanConn
	r         io.Reader // what Read reads: the connection, or a gzip reader over it
	chunked   bool
	left      int64 // bytes left of a Content-Length body or of the current chunk
	toClose   bool  // read to the end of the connection
	keepAlive bool
	eof       bool
	err       error
	closed    bool
	released  bool // the connection is given back (see release)
	plain     plainBody
}

// plainBody is the body's bytes before any Content-Encoding.
type plainBody struct{ b *leanBody }

func (p plainBody) Read(buf []byte) (int, error) { return p.b.readRaw(buf) }

// newLeanBody is the body of resp, an answer read from c.
func newLeanBody(c *leanConn, resp *http.Response) *leanBody {
	return newLeanBodyIn(c, resp, nil)
}

// newLeanBodyIn is newLeanBody made in b, an earlier answer's body no
// one holds any more; nil for a new one.
func newLeanBodyIn(c *leanConn, resp *http.Response, b *leanBody) *leanBody {
	if b == nil {
		b = &leanBody{c: c}
	} else {
		*b = leanBody{c: c}
	}
	b.plain = plainBody{b}
	b.r = b.plain
	h := resp.Header
	b.keepAlive = resp.ProtoMinor == 1 && !hasToken(h["Connection"], "close") ||
		resp.ProtoMinor == 0 && hasToken(h["Connection"], "keep-alive")
	resp.ContentLength = -1
	switch {
	case resp.StatusCode == http.StatusNoContent || resp.StatusCode == http.StatusNotModified:
		resp.ContentLength = 0
		b.eof = true
	case hasToken(h["Transfer-Encoding"], "chunked"):
		b.chunked = true
		delete(h, "Content-Length")
	case len(h["Content-Length"]) > 0:
		n, err := strconv.ParseInt(h["Content-Length"][0], 10, 64)
		if err != nil || n < 0 {
			b.err = fmt.Errorf("malformed HTTP answer: Content-Length %q is not a length", h["Content-Length"][0])
			b.keepAlive = false
			break
		}
		resp.ContentLength, b.left, b.eof = n, n, n == 0
	default:
		b.toClose, b.keepAlive = true, false
	}
	if hasToken(h["Content-Encoding"], "gzip") {
		b.r = &lazyGzip{src: b.plain}
		resp.ContentLength = -1
		delete(h, "Content-Encoding")
		delete(h, "Content-Length")
		resp.Uncompressed = true
	}
	return b
}

func hasToken(vs []string, tok string) bool {
	for _, v := range vs {
		for len(v) > 0 {
			var t string
			t, v, _ = strings.Cut(v, ",")
			if equalFoldTrim(t, tok) {
				return true
			}
		}
	}
	return false
}

func equalFoldTrim(s, t string) bool {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	if len(s) != len(t) {
		return false
	}
	for i := 0; i < len(s); i++ {
		a, b := s[i]|0x20, t[i]|0x20
		if a != b {
			return false
		}
	}
	return true
}

func (b *leanBody) Read(p []byte) (int, error) {
	if b.closed {
		return 0, http.ErrBodyReadAfterClose
	}
	return b.r.Read(p)
}

// readRaw reads the body's bytes as they came (but for chunking).
func (b *leanBody) readRaw(p []byte) (int, error) {
	switch {
	case b.err != nil:
		return 0, b.err
	case b.eof:
		return 0, io.EOF
	case len(p) == 0:
		return 0, nil
	}
	br := b.c.br
	if b.toClose {
		n, err := br.Read(p)
		if errors.Is(err, io.EOF) {
			b.eof = true
		} else if err != nil {
			b.err = err
		}
		return n, err
	}
	if b.chunked && b.left == 0 {
		n, err := readChunkSize(br)
		if err != nil {
			b.err, b.keepAlive = err, false
			return 0, err
		}
		if n == 0 {
			if err := skipTrailer(br); err != nil {
				b.err, b.keepAlive = err, false
				return 0, err
			}
			b.eof = true
			b.release()
			return 0, io.EOF
		}
		b.left = n
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := br.Read(p)
	b.left -= int64(n)
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF // the connection ended inside the body
		}
		b.err, b.keepAlive = err, false
		return n, err
	}
	if b.left == 0 {
		if b.chunked {
			if err := readCRLF(br); err != nil {
				b.err, b.keepAlive = err, false
				return n, err
			}
		} else {
			b.eof = true
			b.release()
		}
	}
	return n, nil
}

// inHand reports whether the whole body is read from the connection
// already (none, or all of a Content-Length body in the buffer, not
// compressed): reading it needs no wait.
func (b *leanBody) inHand() bool {
	if b.err != nil || b.closed {
		return false
	}
	if b.eof {
		return true
	}
	_, plain := b.r.(plainBody)
	return plain && !b.chunked && !b.toClose && int64(b.c.br.Buffered()) >= b.left
}

// release gives the connection back for the next request once the body
// has been read to its end (as net/http does, before Close), when the
// answer lets it be kept alive.
func (b *leanBody) release() {
	if !b.released && b.eof && b.err == nil && b.keepAlive {
		b.released = true
		b.c.giveBack()
	}
}

// Close gives the connection back when the body was read to its end,
// and closes it otherwise (what is left of the answer is not read).
func (b *leanBody) Close() error {
	if b.closed {
		return nil
	}
	b.closed = true
	b.release()
	if !b.released {
		b.released = true
		b.c.close()
	}
	return nil
}

// maxChunkLine bounds the line giving a chunk's size.
const maxChunkLine = 4 << 10

// readChunkSize reads a chunk's size line: hex digits, and extensions
// after ';' (ignored).
func readChunkSize(br *bufio.Reader) (int64, error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return 0, fmt.Errorf("malformed chunked body: a chunk size line longer than %d bytes", maxChunkLine)
		}
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, fmt.Errorf("reading a chunk size: %w", err)
	}
	line = trimEOL(line)
	if i := bytes.IndexByte(line, ';'); i >= 0 {
		line = line[:i]
	}
	line = bytes.TrimRight(line, " \t")
	if len(line) == 0 || len(line) > 15 {
		return 0, fmt.Errorf("malformed chunked body: chunk size %q, want hex digits", clip(line, 40))
	}
	var n int64
	for _, c := range line {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, fmt.Errorf("malformed chunked body: chunk size %q, want hex digits", clip(line, 40))
		}
		n = n<<4 | int64(d)
	}
	return n, nil
}

// skipTrailer reads the trailer after the last chunk, to its empty line.
func skipTrailer(br *bufio.Reader) error {
	for size := 0; ; {
		line, err := br.ReadSlice('\n')
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("reading the trailer of a chunked body: %w", err)
		}
		if size += len(line); size > maxHeadBytes {
			return fmt.Errorf("malformed chunked body: a trailer longer than %d bytes", maxHeadBytes)
		}
		if len(trimEOL(line)) == 0 {
			return nil
		}
	}
}

// readCRLF reads the line end after a chunk's data.
func readCRLF(br *bufio.Reader) error {
	b, err := br.ReadByte()
	if err == nil && b == '\r' {
		b, err = br.ReadByte()
	}
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("reading the end of a chunk: %w", err)
	}
	if b != '\n' {
		return errors.New("malformed chunked body: a chunk's data is not followed by CRLF")
	}
	return nil
}

// lazyGzip unpacks a gzip body, its header read at the first Read.
type lazyGzip struct {
	src io.Reader
	zr  *gzip.Reader
	err error
}

func (z *lazyGzip) Read(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	if z.zr == nil {
		zr, err := gzip.NewReader(z.src)
		if err != nil {
			z.err = fmt.Errorf("unpacking the gzip body: %w", err)
			return 0, z.err
		}
		z.zr = zr
	}
	return z.zr.Read(p)
}
