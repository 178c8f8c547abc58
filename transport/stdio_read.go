package transport

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"time"
)

const readBufSize = 64 << 10

// readLine returns the next line of r without its "\n" (and without a
// "\r" before it), however long. The slice is buf's storage or r's, valid
// until the next call. A last line without "\n" is returned with io.EOF.
func readLine(r *bufio.Reader, buf []byte) (line, keep []byte, err error) {
	frag, err := r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		buf = append(buf[:0], frag...)
		for errors.Is(err, bufio.ErrBufferFull) {
			frag, err = r.ReadSlice('\n')
			buf = append(buf, frag...)
		}
		frag = buf
	}
	if n := len(frag); n > 0 && frag[n-1] == '\n' {
		frag = frag[:n-1]
		if n := len(frag); n > 0 && frag[n-1] == '\r' {
			frag = frag[:n-1]
		}
	}
	return frag, buf, err
}

// readStdout delivers each JSON line of the server's stdout on c.in; other
// lines are counted, logged and kept in a tail.
func (c *StdioConn) readStdout() {
	r := bufio.NewReaderSize(c.stdout, readBufSize)
	var buf []byte
	for {
		line, keep, err := readLine(r, buf)
		buf = keep
		if len(buf) > 4*readBufSize {
			buf = nil // don't pin one huge line's memory
		}
		if len(line) > 0 && !c.deliverLine(line) {
			return
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				c.log.Debug().Err(err).Msg("reading server stdout")
			}
			return
		}
	}
}

// deliverLine sends one stdout line on; false when Close stopped it.
func (c *StdioConn) deliverLine(line []byte) bool {
	at := time.Now()
	if !json.Valid(line) {
		n := c.nonJSON.Add(1)
		_, _ = c.stdoutTail.Write(append(line[:len(line):len(line)], '\n'))
		c.log.Warn().Int64("count", n).Str("line", clip(line, 200)).Msg("server wrote a non-JSON line to stdout; dropped")
		return true
	}
	return c.inbox.push(Incoming{Msg: append([]byte(nil), line...), At: at}, c.closing)
}

// readStderr logs the server's stderr line by line and keeps its tail.
func (c *StdioConn) readStderr() {
	log := c.log.With().Str("stream", "stderr").Logger()
	r := bufio.NewReaderSize(c.stderr, readBufSize)
	var buf []byte
	for {
		line, keep, err := readLine(r, buf)
		buf = keep
		if len(buf) > 4*readBufSize {
			buf = nil
		}
		if len(line) > 0 {
			_, _ = c.stderrTail.Write(append(line[:len(line):len(line)], '\n'))
			log.Debug().Msg(clip(line, 4<<10))
		}
		if err != nil {
			return
		}
	}
}

// clip returns b as a string of at most n bytes, marked when cut.
func clip(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
