package transport

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// ErrSSEField is returned by SSEWriter.Write for an event that cannot be
// written as it is: an id or event type with a line break (or an id with
// a NUL, which a reader ignores), or a negative retry.
var ErrSSEField = errors.New("transport: SSE field cannot be written")

// SSEWriter writes Server-Sent Events, the server-side half of SSEReader:
// each event is one block of "id:", "event:", "retry:" and "data:" lines
// and an empty line, written with one Write call on the underlying writer
// and then flushed, when it is an http.Flusher (an http.ResponseWriter
// is), so that the client sees it at once.
//
// An SSEWriter is not safe for concurrent use: one goroutine writes a
// stream's events (the handler of its request, as net/http requires of
// a ResponseWriter). Write blocks until the underlying writer has taken
// the event and the flush is done; it is not cancellable on its own:
// an HTTP handler's writes fail once its client is gone.
type SSEWriter struct {
	w   io.Writer
	f   http.Flusher // nil if w cannot flush
	buf []byte       // the block being written, reused
	err error        // the first write error; sticky
}

// NewSSEWriter returns a writer of events to w. It sets no headers: an
// HTTP handler sets Content-Type: text/event-stream (and Cache-Control:
// no-cache) before the first Write.
func NewSSEWriter(w io.Writer) *SSEWriter {
	s := &SSEWriter{w: w}
	s.f, _ = w.(http.Flusher)
	return s
}

// Write writes ev and flushes it. ev.ID is written when ev.HasID or it is
// not empty (an empty id resets the client's last event id); ev.Event
// when not empty; ev.Retry when positive. ev.Data is split on its line
// breaks (CRLF, CR or LF) into one "data:" line each, which a reader
// joins again with LF: data round-trips exactly when it has no CR. An
// event always has at least one data line, so a reader dispatches it.
// After a write error every Write returns that error.
func (s *SSEWriter) Write(ev SSEEvent) error {
	if s.err != nil {
		return s.err
	}
	if strings.ContainsAny(ev.ID, "\r\n\x00") {
		return fmt.Errorf("%w: id %q has a line break or a NUL", ErrSSEField, ev.ID)
	}
	if strings.ContainsAny(ev.Event, "\r\n") {
		return fmt.Errorf("%w: event type %q has a line break", ErrSSEField, ev.Event)
	}
	if ev.Retry < 0 {
		return fmt.Errorf("%w: retry %d is negative", ErrSSEField, ev.Retry)
	}
	b := s.buf[:0]
	if ev.HasID || ev.ID != "" {
		b = append(append(append(b, "id: "...), ev.ID...), '\n')
	}
	if ev.Event != "" {
		b = append(append(append(b, "event: "...), ev.Event...), '\n')
	}
	if ev.Retry > 0 {
		b = strconv.AppendInt(append(b, "retry: "...), ev.Retry, 10)
		b = append(b, '\n')
	}
	data := ev.Data
	for {
		i := indexBreak(data)
		if i < 0 {
			break
		}
		b = append(append(append(b, "data: "...), data[:i]...), '\n')
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	b = append(append(append(b, "data: "...), data...), '\n', '\n')
	s.buf = b
	return s.flush(b)
}

// Comment writes a comment line (": text"), which a reader skips: a
// keep-alive for proxies that close idle streams. text must have no line
// break.
func (s *SSEWriter) Comment(text string) error {
	if s.err != nil {
		return s.err
	}
	if strings.ContainsAny(text, "\r\n") {
		return fmt.Errorf("%w: comment %q has a line break", ErrSSEField, text)
	}
	b := append(append(append(s.buf[:0], ": "...), text...), '\n', '\n')
	s.buf = b
	return s.flush(b)
}

func (s *SSEWriter) flush(b []byte) error {
	if _, err := s.w.Write(b); err != nil {
		s.err = fmt.Errorf("write SSE event: %w", err)
		return s.err
	}
	if s.f != nil {
		s.f.Flush()
	}
	return nil
}
