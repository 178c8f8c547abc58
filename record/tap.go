package record

import (
	"fmt"
	"sync"
	"time"

	"github.com/replayctl/replayctl/tape"
)

// Redactor edits a message before it is written: it takes secrets out of
// its JSON and its HTTP headers. It is called with the Tap's lock held,
// one message at a time, so it needs no locking of its own.
type Redactor interface {
	Message(m *tape.Message)
}

// Tap is where the proxies write what they see: it numbers messages in the
// order they are handed to it, stamps each with its time since the tape's
// start, takes secrets out (a Redactor) and appends it to a tape.Writer,
// one line per message, so that a killed proxy leaves every whole line.
//
// A Tap is safe for concurrent use: the HTTP proxy's connections record
// through one Tap. Record blocks only for the write of one line.
type Tap struct {
	redact Redactor
	now    func() time.Time

	mu     sync.Mutex // guards what follows: the writer and the numbering
	w      *tape.Writer
	start  time.Time
	seq    int64
	lastUS int64
	err    error // the first write error; sticky
	closed bool
}

// TapOption configures a Tap.
type TapOption func(*Tap)

// WithRedactor has every message pass through r before it is written.
func WithRedactor(r Redactor) TapOption { return func(t *Tap) { t.redact = r } }

// WithStart has the tape's time count from start instead of from NewTap:
// a proxy that opens its tape when the first message is known starts it
// when that message was seen.
func WithStart(start time.Time) TapOption { return func(t *Tap) { t.start = start } }

// withClock replaces time.Now (tests).
func withClock(now func() time.Time) TapOption { return func(t *Tap) { t.now = now } }

// NewTap returns a Tap writing to w. The tape's time starts now.
func NewTap(w *tape.Writer, opts ...TapOption) *Tap {
	t := &Tap{w: w, now: time.Now}
	for _, opt := range opts {
		opt(t)
	}
	if t.start.IsZero() {
		t.start = t.now()
	}
	return t
}

// Start is the instant the tape's t_us counts from.
func (t *Tap) Start() time.Time { return t.start }

// Record appends one message seen at at (the zero time: now) in session,
// going dir, with the HTTP and SSE metadata it came with (nil if none).
// msg is not kept after Record returns. Times are kept monotonic: a
// message handed over later never has an earlier t_us. After the first
// write error, Record returns that error and writes nothing more.
func (t *Tap) Record(at time.Time, session string, dir tape.Dir, msg []byte, h *tape.HTTPMeta, sse *tape.SSEMeta) error {
	return t.RecordMessage(at, tape.Message{Session: session, Dir: dir, Msg: msg, HTTP: h, SSE: sse})
}

// RecordMessage is Record for a message with more than Record takes: its
// Extra members (the HTTP proxy's notes). m's Seq and TUS are set here.
func (t *Tap) RecordMessage(at time.Time, m tape.Message) error {
	if at.IsZero() {
		at = t.now()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return t.err
	}
	if t.closed {
		return fmt.Errorf("record: seq %d: %w", t.seq, tape.ErrClosed)
	}
	us := max(at.Sub(t.start).Microseconds(), t.lastUS)
	m.Seq, m.TUS = t.seq, us
	if t.redact != nil {
		t.redact.Message(&m)
	}
	if err := t.w.Write(m); err != nil {
		t.err = fmt.Errorf("record: write seq %d: %w", t.seq, err)
		return t.err
	}
	t.seq++
	t.lastUS = us
	return nil
}

// Messages is how many messages have been written.
func (t *Tap) Messages() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.seq
}

// Close writes the tape's end line and closes the writer. It is
// idempotent; Record after Close fails.
func (t *Tap) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil
	}
	t.closed = true
	return t.w.Close()
}
