package transport

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"
)

// Newline-delimited JSON over a pair of OS pipes: what Stdio (a
// subprocess's stdin and stdout) and Pipe (a server in this process) share.

const readBufSize = 64 << 10

// errLineTooLong is readLine's error for a line longer than its limit.
var errLineTooLong = errors.New("line too long")

// readLine returns the next line of r without its "\n" (and without a
// "\r" before it). The slice is buf's storage or r's, valid until the
// next call. A last line without "\n" is returned with io.EOF. A line
// longer than limit bytes is not read whole: once more than limit bytes
// of it are in, readLine returns errLineTooLong and keep holds them; the
// rest of the line stays unread.
func readLine(r *bufio.Reader, buf []byte, limit int) (line, keep []byte, err error) {
	raw, keep, err := readRawLine(r, buf, limit)
	return trimEOL(raw), keep, err
}

// readRawLine is readLine that leaves the line's end ("\n" or "\r\n")
// on it: the bytes exactly as read, for a relay that forwards them. The
// limit counts the line without its end.
func readRawLine(r *bufio.Reader, buf []byte, limit int) (raw, keep []byte, err error) {
	frag, err := r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		buf = append(buf[:0], frag...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if len(buf) > limit+1 { // +1: a "\r" of "\r\n" may end it
				return nil, buf, errLineTooLong
			}
			frag, err = r.ReadSlice('\n')
			buf = append(buf, frag...)
		}
		frag = buf
	}
	if len(trimEOL(frag)) > limit {
		return nil, buf, errLineTooLong
	}
	return frag, buf, err
}

// trimEOL returns line without a final "\n" or "\r\n".
func trimEOL(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
	}
	return line
}

// skipLine reads r up to the end of the line, keeping nothing.
func skipLine(r *bufio.Reader) error {
	for {
		if _, err := r.ReadSlice('\n'); !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

// ndjsonReader reads a server's output onto an inbox, one JSON message a
// line; other lines are counted, logged and kept in a tail. A line longer
// than its limit ends the reading: the reader closes its side of the
// output (the server's next write fails) and keeps the error for the
// connection's Err.
type ndjsonReader struct {
	log     zerolog.Logger
	output  string // what it reads, in logs: "stdout", "output"
	line    string // a line of it, in errors: `a stdout line of server "node s.js"`
	limit   int    // the longest line, in bytes
	inbox   *inbox
	closing <-chan struct{} // closed by the connection's Close
	nonJSON atomic.Int64
	tail    *tail                         // the last non-JSON lines
	tooLong atomic.Pointer[TooLargeError] // set when a line was over the limit
	onFault func(Fault)                   // told of each non-JSON line; may be nil
}

// newNDJSONReader reads output, whose lines errors call line, with lines
// of at most limit bytes (0: DefaultMaxMessage).
func newNDJSONReader(log zerolog.Logger, output, line string, limit int, closing <-chan struct{}) *ndjsonReader {
	return &ndjsonReader{log: log, output: output, line: line, limit: limitOf(limit), inbox: newInbox(), closing: closing, tail: newTail(stdoutTailBytes)}
}

// read delivers each JSON line of r until r ends, fails, a line is over
// the limit, or Close stops it; then it finishes the inbox.
func (l *ndjsonReader) read(r io.ReadCloser) {
	defer l.inbox.finish()
	br := bufio.NewReaderSize(r, readBufSize)
	var buf []byte
	for {
		line, keep, err := readLine(br, buf, l.limit)
		buf = keep
		if errors.Is(err, errLineTooLong) {
			e := &TooLargeError{What: l.line, Limit: l.limit}
			l.tooLong.Store(e)
			l.log.Error().Err(e).Msg("stopped reading the server's " + l.output)
			// The server's next write fails (EPIPE) instead of filling the
			// pipe: nobody reads it any more.
			_ = r.Close()
			return
		}
		// A huge line is buf's storage, dropped here so as not to pin it:
		// it is handed on as it is rather than copied.
		owned := len(buf) > 4*readBufSize
		if owned {
			buf = nil
		}
		if len(line) > 0 && !l.deliver(line, owned) {
			return
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				l.log.Debug().Err(err).Msg("reading server " + l.output)
			}
			return
		}
	}
}

// failure is the error that ended the reading, if a line was too long;
// nil otherwise.
func (l *ndjsonReader) failure() error {
	if e := l.tooLong.Load(); e != nil {
		return e
	}
	return nil
}

// deliver queues one line, a copy of it unless owned (no one else will
// use its storage); false when Close stopped it.
func (l *ndjsonReader) deliver(line []byte, owned bool) bool {
	at := time.Now()
	if !json.Valid(line) {
		n := l.nonJSON.Add(1)
		_, _ = l.tail.Write(append(line[:len(line):len(line)], '\n'))
		l.log.Warn().Int64("count", n).Str("line", clip(line, 200)).Msg("server wrote a non-JSON line to " + l.output + "; dropped")
		if l.onFault != nil {
			l.onFault(Fault{Err: fmt.Errorf("%w: %s is not JSON: %q", ErrTarget, l.line, clip(line, 200))})
		}
		return true
	}
	msg := line[:len(line):len(line)]
	if !owned {
		msg = append([]byte(nil), line...)
	}
	return l.inbox.push(Incoming{Msg: msg, At: at}, l.closing)
}

// ndjsonWriter writes messages, one a line, to the write end of a server's
// input pipe. A write is bounded by its ctx through the pipe's write
// deadline, so a server that stops reading surfaces as an error of Send,
// never as a Send that hangs.
type ndjsonWriter struct {
	f       *os.File
	name    string          // the server in errors: `server "node s.js"`
	input   string          // what it reads, in errors: "stdin", "input"
	closing <-chan struct{} // closed by the connection's Close
	buf     []byte          // send's buffer; send runs one at a time
	broken  atomic.Bool     // a cancelled write left part of a line
}

// errInputClosed is wrapped by send's error when the reader closed its end
// of the pipe (EPIPE): the server has probably exited, and its exit status
// says more than the send.
var errInputClosed = errors.New("it has probably exited")

// send writes msg and a newline in one Write. It returns when the bytes
// are in the pipe, or when ctx is done; a send cut short in the middle of
// a line leaves the writer unusable (later sends fail), since the server
// would read a torn message.
func (w *ndjsonWriter) send(ctx context.Context, msg []byte) error {
	select {
	case <-w.closing:
		return ErrClosed
	default:
	}
	if w.broken.Load() {
		return fmt.Errorf("send to %s: an earlier send was cancelled mid-message; open a new connection", w.name)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	w.buf = append(append(w.buf[:0], msg...), '\n')
	if done := ctx.Done(); done != nil {
		if dl, ok := ctx.Deadline(); ok {
			_ = w.f.SetWriteDeadline(dl)
		}
		fired := make(chan struct{})
		stop := context.AfterFunc(ctx, func() {
			_ = w.f.SetWriteDeadline(time.Unix(1, 0))
			close(fired)
		})
		defer func() {
			if !stop() {
				<-fired
			}
			_ = w.f.SetWriteDeadline(time.Time{})
		}()
	}
	n, err := w.f.Write(w.buf)
	if err == nil {
		return nil
	}
	if n > 0 {
		w.broken.Store(true)
	}
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		// The pipe's deadline may fire a moment before ctx's own timer.
		cause := ctx.Err()
		if cause == nil {
			cause = context.DeadlineExceeded
		}
		if errors.Is(cause, context.DeadlineExceeded) {
			// A server that does not read its input for as long as a
			// request may take has stopped working as a server.
			return fmt.Errorf("%w: send to %s: it did not read its %s before the deadline (%w)", ErrTarget, w.name, w.input, cause)
		}
		return fmt.Errorf("send to %s: %w", w.name, cause)
	case errors.Is(err, os.ErrClosed):
		return ErrClosed
	case errors.Is(err, syscall.EPIPE):
		return fmt.Errorf("%w: send to %s: it no longer reads its %s: %w", ErrTarget, w.name, w.input, errInputClosed)
	}
	return fmt.Errorf("send to %s: %w", w.name, err)
}

// writeRaw writes p as it is: part of a line, or a line in pieces. It
// returns when p is written or ctx is done.
func (w *ndjsonWriter) writeRaw(ctx context.Context, p []byte) error {
	select {
	case <-w.closing:
		return ErrClosed
	default:
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, err := w.f.Write(p); err != nil {
		return fmt.Errorf("write to %s: %w", w.name, err)
	}
	return nil
}

// sendSlow writes msg and its newline in pieces of chunk bytes with pause
// between them.
func (w *ndjsonWriter) sendSlow(ctx context.Context, msg []byte, chunk int, pause time.Duration) error {
	line := append(append(make([]byte, 0, len(msg)+1), msg...), '\n')
	writeFailed := false
	err := inPieces(ctx, line, max(chunk, 1), pause, func(p []byte) error {
		err := w.writeRaw(ctx, p)
		writeFailed = err != nil
		return err
	})
	if err != nil && !writeFailed { // ctx ended during a pause
		w.broken.Store(true) // part of a line is out
	}
	return err
}

// clip returns b as a string of at most n bytes, marked when cut.
func clip(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
