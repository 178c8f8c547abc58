package record

import (
	"encoding/json"
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

	mu sync.Mutex // guards what follows: the writer and the numbering
	w  *tape.Writer
	// A lazy Tap (NewLazyTap) has no writer until open makes one; until
	// then it watches for the protocol version and holds the messages.
	open      func(protocolVersion string) (*tape.Writer, error)
	watch     versionWatch
	held      []tape.Message
	heldBytes int
	start     time.Time
	seq       int64
	lastUS    int64
	err       error // the first write error; sticky
	closed    bool

	onMessage []func(tape.Message)
}

// TapOption configures a Tap.
type TapOption func(*Tap)

// WithRedactor has every message pass through r before it is written.
func WithRedactor(r Redactor) TapOption { return func(t *Tap) { t.redact = r } }

// WithStart has the tape's time count from start instead of from the
// Tap's making: a proxy that makes its Tap when the first message is
// known starts the tape when that message was seen.
func WithStart(start time.Time) TapOption { return func(t *Tap) { t.start = start } }

// OnMessage adds a hook called with each message as it is recorded
// (numbered, timed, redacted), in the tape's order, before it is written: a live view of
// the recording (replayctl record --ui). It is called with the Tap's lock
// held and must not block; m.Msg is valid during the call only.
func OnMessage(f func(m tape.Message)) TapOption {
	return func(t *Tap) { t.onMessage = append(t.onMessage, f) }
}

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

// The most a lazy Tap holds before it opens its tape without knowing the
// protocol version: a handshake is a few small messages.
const (
	maxHeldMessages = 64
	maxHeldBytes    = 4 << 20
)

// NewLazyTap returns a Tap that creates its tape only once the protocol
// version of the recorded session is known, so that the header can say it:
// it calls open with that version when a message settles it (the answer
// to initialize; in the stateless revision, the _meta of the client's
// first request after server/discover), and with "" when the session has
// started work without telling it, when more than 64 messages or 4 MiB
// are held, or at Close. Until then messages are numbered, timed and
// redacted as they come, and held in memory: a proxy killed before the
// version is known leaves no tape. The tape's time starts now. If open
// fails, its error is the Tap's (sticky) error.
func NewLazyTap(open func(protocolVersion string) (*tape.Writer, error), opts ...TapOption) *Tap {
	t := NewTap(nil, opts...)
	t.open = open
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
// Extra members (the HTTP proxy's notes). m's Seq and TUS are set here;
// m.Msg is not kept after RecordMessage returns.
func (t *Tap) RecordMessage(at time.Time, m tape.Message) error {
	_, err := t.recordSeq(at, m)
	return err
}

// recordSeq is RecordMessage, and returns the seq the message was given
// (when err is nil).
func (t *Tap) recordSeq(at time.Time, m tape.Message) (seq int64, err error) {
	if at.IsZero() {
		at = t.now()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return 0, t.err
	}
	if t.closed {
		return 0, fmt.Errorf("record: seq %d: %w", t.seq, tape.ErrClosed)
	}
	us := max(at.Sub(t.start).Microseconds(), t.lastUS)
	m.Seq, m.TUS = t.seq, us
	settled := t.w == nil && t.watch.observe(m.Session, m.Dir, m.Msg) // before redaction: it reads the wire
	if t.redact != nil {
		t.redact.Message(&m)
	}
	for _, f := range t.onMessage {
		f(m)
	}
	if t.w == nil {
		m.Msg = append(json.RawMessage(nil), m.Msg...) // msg is not the Tap's to keep
		t.held = append(t.held, m)
		t.heldBytes += len(m.Msg)
		t.seq++
		t.lastUS = us
		if !settled && len(t.held) < maxHeldMessages && t.heldBytes < maxHeldBytes {
			return m.Seq, nil
		}
		return m.Seq, t.openLocked()
	}
	if err := t.w.Write(m); err != nil {
		t.err = fmt.Errorf("record: write seq %d: %w", t.seq, err)
		return 0, t.err
	}
	t.seq++
	t.lastUS = us
	return m.Seq, nil
}

// openLocked makes a lazy Tap's writer and writes what it held; t.mu is
// held.
func (t *Tap) openLocked() error {
	w, err := t.open(t.watch.version)
	if err != nil {
		t.err = fmt.Errorf("record: create the tape: %w", err)
		return t.err
	}
	t.w = w
	for _, m := range t.held {
		if err := w.Write(m); err != nil {
			t.err = fmt.Errorf("record: write seq %d: %w", m.Seq, err)
			return t.err
		}
	}
	t.held, t.heldBytes = nil, 0
	return nil
}

// ProtocolVersion is the protocol version learned so far by a lazy Tap
// ("" while unknown, and always for a Tap made by NewTap).
func (t *Tap) ProtocolVersion() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.watch.version
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
	if t.w == nil {
		if t.err != nil {
			return t.err
		}
		if err := t.openLocked(); err != nil {
			return err
		}
	}
	return t.w.Close()
}
