package transport

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
)

// LineConn is the listening half of stdio: the server's side of
// newline-delimited JSON-RPC, over a reader its peer writes to (the
// process's own stdin, or a pipe) and a writer its peer reads (stdout, or
// a pipe). `replayctl record` relays a client through one; `serve` answers
// a client through one.
//
// Reading is for one goroutine at a time; writing is safe from several at
// once, each line going out whole with one Write. LineConn does not look
// into the lines: JSON or not, they are the caller's to judge.
//
// Blocking and cancellation: ReadLine blocks until a line is in, and the
// writes until the writer has taken the bytes. Close unblocks them when
// the reader and writer can be interrupted by closing them (an os.Pipe, a
// socket, an io.Pipe; also the process's stdin and stdout made pollable by
// the caller); a read of a terminal's stdin goes on waiting for input.
type LineConn struct {
	name    string // the peer's input in errors, e.g. "the client's input"
	limit   int
	r       *bufio.Reader
	rc      io.Reader // the reader as given, closed by Close if it can be
	buf     []byte    // ReadLine's storage for a line longer than r's buffer
	readErr error     // sticky: a line over the limit ends the reading

	wmu  sync.Mutex // guards w and wbuf: one line at a time goes out
	w    io.Writer
	wbuf []byte

	closed atomic.Bool
}

// LineOption configures a LineConn.
type LineOption func(*LineConn)

// LineMaxMessage sets the longest line ReadLine accepts, in bytes without
// its end; 0 or less means DefaultMaxMessage.
func LineMaxMessage(n int) LineOption { return func(c *LineConn) { c.limit = limitOf(n) } }

// LineName names what is read in errors, e.g. "the client's input" (the
// default is "a line of input").
func LineName(name string) LineOption { return func(c *LineConn) { c.name = name } }

// NewLineConn returns a LineConn reading lines from r and writing them to
// w. Either may be nil when only the other direction is used.
func NewLineConn(r io.Reader, w io.Writer, opts ...LineOption) *LineConn {
	c := &LineConn{name: "a line of input", limit: DefaultMaxMessage, rc: r, w: w}
	for _, opt := range opts {
		opt(c)
	}
	if r != nil {
		c.r = bufio.NewReaderSize(r, readBufSize)
	}
	return c
}

// ReadLine returns the next line: msg without its end ("\n" or "\r\n"),
// and raw, the same line with its end exactly as read (a last line
// without "\n" has none). Both are views of the LineConn's storage, valid
// until the next ReadLine: copy them to keep them. At the end of the
// input it returns io.EOF, with the last line if it had no "\n" (then msg
// and raw are non-empty). A line longer than the limit is not read whole:
// ReadLine returns a *TooLargeError, and so does every later call. After
// Close it returns ErrClosed.
func (c *LineConn) ReadLine() (msg, raw []byte, err error) {
	if c.r == nil {
		return nil, nil, errors.New("transport: LineConn has no reader")
	}
	if c.readErr != nil {
		return nil, nil, c.readErr
	}
	raw, keep, err := readRawLine(c.r, c.buf, c.limit)
	c.buf = keep
	if len(c.buf) > 4*readBufSize && !errors.Is(err, errLineTooLong) {
		// Do not pin a huge line's storage: the next one starts afresh.
		// raw stays valid: it is the caller's until the next call.
		c.buf = nil
	}
	switch {
	case errors.Is(err, errLineTooLong):
		c.buf = nil
		c.readErr = &TooLargeError{What: c.name, Limit: c.limit}
		return nil, nil, c.readErr
	case err != nil && c.closed.Load() && (errors.Is(err, os.ErrClosed) || errors.Is(err, io.ErrClosedPipe)):
		return nil, nil, ErrClosed
	}
	return trimEOL(raw), raw, err
}

// WriteLine writes msg and a "\n" with one Write. It is safe to call from
// several goroutines: lines never interleave. It returns when the writer
// has taken the line, or with the writer's error (ErrClosed after Close).
func (c *LineConn) WriteLine(msg []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.wbuf = append(append(c.wbuf[:0], msg...), '\n')
	if len(c.wbuf) > 4*readBufSize {
		defer func() { c.wbuf = nil }() // do not pin a huge line
	}
	return c.write(c.wbuf)
}

// WriteRaw writes line as it is, with one Write: a line that already ends
// with its "\n" (or "\r\n"), as ReadLine's raw gives it, for a relay that
// forwards bytes unchanged. It is safe to call from several goroutines,
// and alongside WriteLine.
func (c *LineConn) WriteRaw(line []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.write(line)
}

// write writes p whole; c.wmu is held.
func (c *LineConn) write(p []byte) error {
	if c.w == nil {
		return errors.New("transport: LineConn has no writer")
	}
	if c.closed.Load() {
		return ErrClosed
	}
	if _, err := c.w.Write(p); err != nil {
		if c.closed.Load() {
			return ErrClosed
		}
		return fmt.Errorf("write a line: %w", err)
	}
	return nil
}

// Close closes the reader and the writer when they are io.Closers, which
// unblocks a ReadLine or a write in progress if they can be interrupted
// (see LineConn). Later calls return ErrClosed. Close is idempotent and
// does not wait for a blocked call to return.
func (c *LineConn) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	var errs []error
	if rc, ok := c.rc.(io.Closer); ok {
		errs = append(errs, rc.Close())
	}
	if wc, ok := c.w.(io.Closer); ok && any(wc) != any(c.rc) {
		errs = append(errs, wc.Close())
	}
	return errors.Join(errs...)
}
