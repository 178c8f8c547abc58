package transport

import (
	"bytes"
	"errors"
	"io"
	"net/http"
)

// sseWriter writes a text/event-stream to an HTTP response, one event at a
// time, each flushed as soon as it is written: the listening side of
// SSEReader. It is not safe for concurrent use; its owner serializes the
// writes (see outStream).
type sseWriter struct {
	w   io.Writer
	rc  *http.ResponseController
	buf []byte
}

func newSSEWriter(w http.ResponseWriter) *sseWriter {
	return &sseWriter{w: w, rc: http.NewResponseController(w)}
}

// event writes one event: its id (none when ""), its type (none when "",
// which a reader takes as "message") and data, one data field per line of
// data ("\r\n", "\r" and "\n" all end a line in SSE, so a JSON message
// with raw line breaks, which JSON allows between tokens, still arrives
// whole). It returns when the event is written and flushed.
func (s *sseWriter) event(id, typ string, data []byte) error {
	b := s.buf[:0]
	if id != "" {
		b = append(b, "id: "...)
		b = append(b, id...)
		b = append(b, '\n')
	}
	if typ != "" {
		b = append(b, "event: "...)
		b = append(b, typ...)
		b = append(b, '\n')
	}
	for {
		i := bytes.IndexAny(data, "\r\n")
		b = append(b, "data: "...)
		if i < 0 {
			b = append(b, data...)
			b = append(b, '\n')
			break
		}
		b = append(b, data[:i]...)
		b = append(b, '\n')
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	b = append(b, '\n')
	s.buf = b
	if _, err := s.w.Write(b); err != nil {
		return err
	}
	return s.flush()
}

// comment writes an SSE comment line (": text"), which readers ignore:
// a keep-alive.
func (s *sseWriter) comment(text string) error {
	if _, err := io.WriteString(s.w, ": "+text+"\n\n"); err != nil {
		return err
	}
	return s.flush()
}

func (s *sseWriter) flush() error {
	if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}
