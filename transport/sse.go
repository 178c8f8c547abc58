package transport

import (
	"bytes"
	"errors"
	"io"
	"strconv"
)

// ErrWait, returned by the reader under an SSEReader, says that it has no
// bytes yet but its stream goes on: Next returns ErrWait at once, keeping
// the event it is in the middle of, and can be called again once there
// are more bytes. It lets a caller that is handed a stream's bytes (a
// proxy relaying them) parse them as they pass, on its own goroutine.
var ErrWait = errors.New("transport: no bytes yet")

// SSEEvent is one dispatched Server-Sent Event.
type SSEEvent struct {
	// ID is the id field seen in this event's block, if any (HasID).
	ID    string
	HasID bool
	// Event is the event type; "" when the block had no event field
	// (which the SSE spec treats as "message").
	Event string
	// Data is the data fields joined with "\n". It is owned by the caller.
	Data []byte
	// Retry is the retry field (milliseconds) seen in this block, or 0.
	Retry int64
}

// SSEReader decodes a text/event-stream as the WHATWG HTML spec says:
// fields data, id, event and retry; comments; CRLF, CR or LF line endings;
// one leading byte order mark. An event's data, and each line, are
// bounded (MaxEventSize): past the limit Next fails with a
// *TooLargeError, having read no more than the limit of the line.
//
// An SSEReader is not safe for concurrent use.
type SSEReader struct {
	lr      lineReader
	started bool  // the BOM check has been done
	limit   int   // the most bytes of data an event may have
	err     error // an event over the limit: the stream is done
	// skipping: the rest of an event over the limit is dropped, up to
	// the blank line that ends it (SkipEvent).
	skipping bool

	lastID string // the stream's last event id, kept across events
	retry  int64  // the stream's reconnection time, ms; 0 if never set

	// the block being built
	data    []byte
	hasData bool
	event   string
	id      string
	hasID   bool
	blockRT int64
}

// sseFieldRoom is what a line may have beyond the event size limit: its
// field name ("data: ").
const sseFieldRoom = 64

// SSEOption configures an SSEReader. It is a value, not a function, so
// that a reader made with options can live on its caller's stack.
type SSEOption struct {
	maxEvent int // 0: not set
}

// MaxEventSize bounds an event's data to n bytes, and each line of the
// stream to n bytes and room for a field name (an error says n); n <= 0
// means DefaultMaxMessage, the default.
func MaxEventSize(n int) SSEOption { return SSEOption{maxEvent: limitOf(n)} }

func (s *SSEReader) setLimit(n int) {
	s.limit = limitOf(n)
	s.lr.limit = s.limit + sseFieldRoom
}

// NewSSEReader returns a reader of the event stream r.
func NewSSEReader(r io.Reader, opts ...SSEOption) *SSEReader {
	s := &SSEReader{lr: lineReader{r: r}}
	s.setLimit(0)
	for _, o := range opts {
		if o.maxEvent > 0 {
			s.setLimit(o.maxEvent)
		}
	}
	return s
}

// LastEventID is the stream's last event id: the last id field seen, even
// in a block that dispatched nothing. Send it as Last-Event-ID to resume.
func (s *SSEReader) LastEventID() string { return s.lastID }

// RetryMS is the last reconnection time the stream set, in milliseconds, or 0.
func (s *SSEReader) RetryMS() int64 { return s.retry }

// Next returns the next event with data. It blocks until one is complete
// or the stream ends: then it returns io.EOF (an unfinished last event is
// dropped, as the spec says) or the read error. An event or a line over
// the limit is a *TooLargeError, and so is every later call, unless
// SkipEvent is called. ErrWait from the reader is returned as it is, and
// is not the end (see ErrWait).
func (s *SSEReader) Next() (SSEEvent, error) {
	if s.err != nil {
		return SSEEvent{}, s.err
	}
	for {
		line, err := s.lr.next()
		if errors.Is(err, errLineTooLong) {
			s.err = &TooLargeError{What: "a line of an SSE stream", Limit: s.limit}
			return SSEEvent{}, s.err
		}
		if err != nil {
			return SSEEvent{}, err
		}
		if !s.started {
			s.started = true
			line = bytes.TrimPrefix(line, bom)
		}
		if s.skipping {
			s.skipping = len(line) > 0 // a blank line ends the event dropped
			continue
		}
		if len(line) == 0 {
			if ev, ok := s.dispatch(); ok {
				return ev, nil
			}
			continue
		}
		if err := s.field(line); err != nil {
			s.err = err
			s.data = nil // don't keep it
			return SSEEvent{}, err
		}
	}
}

var bom = []byte("\xEF\xBB\xBF")

// SkipEvent, after Next failed with a *TooLargeError, drops the rest of
// the event over the limit (its lines up to the blank line that ends it,
// however long they are, never holding more than the limit of them) and
// lets Next go on with the next event. It is for a reader that keeps what
// it can of a stream it passes on whole (record's proxy); after any other
// error it does nothing.
func (s *SSEReader) SkipEvent() {
	if _, ok := s.err.(*TooLargeError); !ok {
		return
	}
	s.err, s.skipping = nil, true
	s.data, s.hasData = nil, false
	s.event, s.id, s.hasID, s.blockRT = "", "", false, 0
	if errors.Is(s.lr.err, errLineTooLong) {
		s.lr.err, s.lr.dropping = nil, true
	}
}

// field applies one non-empty line to the block being built; it fails
// when the block's data would be over the limit.
func (s *SSEReader) field(line []byte) error {
	if line[0] == ':' {
		return nil // comment
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		n := len(s.data) + len(value)
		if s.hasData {
			n++ // the "\n" between data lines
		}
		if n > s.limit {
			return &TooLargeError{What: "an SSE event's data", Limit: s.limit}
		}
		if s.hasData {
			s.data = append(s.data, '\n')
		}
		s.data = append(s.data, value...)
		s.hasData = true
	case "event":
		if string(value) == "message" { // what servers send: no string made
			s.event = "message"
		} else {
			s.event = string(value)
		}
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			s.id, s.hasID = string(value), true
			s.lastID = s.id
		}
	case "retry":
		if n, ok := digits(value); ok {
			s.retry, s.blockRT = n, n
		}
	}
	return nil
}

// dispatch ends the block: it returns the event when the block had data,
// and resets the block either way.
func (s *SSEReader) dispatch() (SSEEvent, bool) {
	ev := SSEEvent{ID: s.id, HasID: s.hasID, Event: s.event, Retry: s.blockRT}
	ok := s.hasData
	if ok {
		// The caller owns the data: the block's buffer is handed over
		// rather than copied (one allocation per event, not two, for a
		// stream of one event, as most answers are), and the next block
		// starts a new one.
		ev.Data = s.data
		if ev.Data == nil {
			ev.Data = []byte{}
		}
		s.data = nil
	}
	s.data, s.hasData = s.data[:0], false
	s.event, s.id, s.hasID, s.blockRT = "", "", false, 0
	return ev, ok
}

// digits parses a retry value: ASCII digits only, and it must fit.
func digits(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	return n, err == nil
}

// lineReader splits a stream on CRLF, CR or LF into lines of at most
// limit bytes, without waiting for the byte after a CR (a CR-terminated
// line is returned at once; a following LF is skipped when it comes).
type lineReader struct {
	r          io.Reader
	limit      int // the longest line; 0: no limit
	buf        []byte
	start, end int
	scanned    int  // buf[start:scanned] holds no line break
	skipLF     bool // the last line ended with CR: drop one LF next
	dropping   bool // the line in progress is over the limit: dropped up to its end
	err        error
}

// minRead is the room a read gets once a stream is past its first
// buffer, of firstRead bytes.
const (
	minRead   = 32 << 10
	firstRead = 4 << 10
)

// next returns the next line without its terminator. The slice is valid
// until the next call. At the end of the stream it returns io.EOF (or the
// read error); an unterminated last line is dropped. A line longer than
// limit is errLineTooLong, as soon as more than limit bytes of it are in.
func (l *lineReader) next() ([]byte, error) {
	for {
		if l.skipLF && l.start < l.end {
			if l.buf[l.start] == '\n' {
				l.start++
				if l.scanned < l.start {
					l.scanned = l.start
				}
			}
			l.skipLF = false
		}
		if !l.skipLF {
			if i := indexBreak(l.buf[l.scanned:l.end]); i >= 0 {
				i += l.scanned
				if l.dropping { // the end of a line dropped: not a line
					l.dropping, l.skipLF = false, l.buf[i] == '\r'
					l.start, l.scanned = i+1, i+1
					continue
				}
				if l.limit > 0 && i-l.start > l.limit {
					l.err = errLineTooLong
					return nil, l.err
				}
				line := l.buf[l.start:i]
				l.skipLF = l.buf[i] == '\r'
				l.start, l.scanned = i+1, i+1
				return line, nil
			}
			l.scanned = l.end
			if l.dropping {
				l.start = l.end // what is in of the line dropped
			} else if l.limit > 0 && l.end-l.start > l.limit {
				l.err = errLineTooLong
			}
		}
		if l.err != nil {
			return nil, l.err
		}
		if err := l.fill(); err != nil {
			return nil, err // ErrWait: nothing kept, nothing lost
		}
	}
}

// fill reads more input, compacting or growing the buffer first. It
// returns ErrWait when the reader has nothing yet; any other read error
// is kept in l.err.
func (l *lineReader) fill() error {
	if l.start > 0 && (l.start == l.end || len(l.buf)-l.end < minRead) {
		n := copy(l.buf, l.buf[l.start:l.end])
		l.scanned -= l.start
		l.start, l.end = 0, n
	}
	switch {
	case l.buf == nil:
		// Most streams hold one small answer: a large first buffer per
		// request would be most of the garbage of an HTTP load replay.
		l.buf = make([]byte, firstRead)
	case len(l.buf)-l.end < min(minRead, len(l.buf)/2):
		size := max(2*len(l.buf), l.end+minRead)
		if l.limit > 0 {
			size = min(size, l.limit+minRead) // room for a line over the limit
		}
		nb := make([]byte, size)
		copy(nb, l.buf[:l.end])
		l.buf = nb
	}
	for range 100 {
		n, err := l.r.Read(l.buf[l.end:])
		l.end += n
		if errors.Is(err, ErrWait) {
			if n > 0 {
				return nil
			}
			return err
		}
		if err != nil {
			l.err = err
		}
		if n > 0 || err != nil {
			return nil
		}
	}
	l.err = io.ErrNoProgress // a reader returning 0, nil forever
	return nil
}

// indexBreak returns the index of the first CR or LF in b, or -1.
func indexBreak(b []byte) int {
	lf := bytes.IndexByte(b, '\n')
	head := b
	if lf >= 0 {
		head = b[:lf]
	}
	if cr := bytes.IndexByte(head, '\r'); cr >= 0 {
		return cr
	}
	return lf
}
