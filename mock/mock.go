package mock

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// ErrClosed is returned by Send and Rewind on a closed connection.
var ErrClosed = errors.New("mock: connection closed")

// Mock is a transport.Dialer whose sessions answer from a tape. It reads
// the tape once, on the first Dial, into an index that every connection
// shares; it is safe for concurrent use.
type Mock struct {
	src       tape.Source
	tapeOpts  []tape.Option
	lookahead int

	once sync.Once // builds idx, or sets err, on the first Dial
	idx  *index
	err  error

	mu   sync.Mutex // guards kept
	kept *keptTape  // the tape's messages, until TakeTape takes them
}

// Option configures a Mock.
type Option func(*Mock)

// WithTapeOptions passes options to the mock's tape reader.
func WithTapeOptions(opts ...tape.Option) Option {
	return func(m *Mock) { m.tapeOpts = append(m.tapeOpts, opts...) }
}

// WithLookahead sets how many recorded requests past the first one not yet
// asked the mock searches for a request asked out of recorded order
// (default DefaultLookahead). 0 answers only in recorded order; n < 0 is
// taken as 0.
func WithLookahead(n int) Option { return func(m *Mock) { m.lookahead = n } }

// New returns a mock that answers from the tape at path. It does not read
// the tape yet: the first Dial does.
func New(path string, opts ...Option) *Mock { return FromSource(tape.File(path), opts...) }

// FromSource returns a mock that answers from the tape src, e.g. one held
// in memory (tape.Bytes). It does not read the tape yet: the first Dial
// does.
func FromSource(src tape.Source, opts ...Option) *Mock {
	m := &Mock{src: src, lookahead: DefaultLookahead}
	for _, o := range opts {
		o(m)
	}
	return m
}

var _ transport.Dialer = (*Mock)(nil)

// Dial returns a connection that answers as the recorded session's server
// did. A virtual copy of a session ("s1#3", as the engine names them in
// load replays) answers as the recorded one; a session the tape does not
// have answers every request with an error saying so. The first Dial reads
// and indexes the whole tape, and does not watch ctx while it does; every
// Dial, concurrent ones included, waits for that and returns its error if
// the tape could not be read. Later Dials return at once.
func (m *Mock) Dial(ctx context.Context, session string) (transport.Conn, error) {
	idx, err := m.index()
	if err != nil {
		return nil, err
	}
	return newConn(idx, idx.sessions[recordedName(session)], m.lookahead), nil
}

// index returns the tape's index, reading the tape the first time.
func (m *Mock) index() (*index, error) { return m.indexKeeping(false) }

// indexKeeping is index; with keep, a first read keeps the tape's
// messages for TakeTape.
func (m *Mock) indexKeeping(keep bool) (*index, error) {
	m.once.Do(func() {
		var kept *keptTape
		m.idx, kept, m.err = readIndexWith(m.src, m.tapeOpts, nil, keep)
		m.mu.Lock()
		m.kept = kept
		m.mu.Unlock()
	})
	return m.idx, m.err
}

// TakeTape returns every message of the tape src, in tape order, as the
// mock's own reading of it found them (with the reader's warnings): a
// replay against the mock answering from the tape it replays reads it
// once, not once for itself and once for the mock. next gives the
// messages one by one, then false; it is for one goroutine. TakeTape
// builds the mock's index now, unless a Dial or LastSeqs has; the
// messages are kept only by that first read, and given once: ok is false
// when src is not the tape the mock answers from (the same File, or the
// same Shared), when the mock read it before TakeTape was called, when
// they were taken already, when the tape is larger than the mock keeps
// (256 MiB), or when it cannot be read (the caller reads it itself and
// finds why). The messages are the caller's: the mock keeps none of them.
// The caller must read src with the mock's tape options
// (WithTapeOptions), as package replay does.
func (m *Mock) TakeTape(src tape.Source) (next func() (tape.Message, bool), warnings []string, ok bool) {
	if !sameSource(src, m.src) {
		return nil, nil, false
	}
	if _, err := m.indexKeeping(true); err != nil {
		return nil, nil, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	k := m.kept
	m.kept = nil
	if k == nil {
		return nil, nil, false
	}
	return k.next(), k.warnings, true
}

// LastSeqs returns each recorded session's last seq on the tape (any
// message of it, in either direction), read from the mock's index of its
// tape, which it builds now if no Dial has: a replay against the mock
// learns where each session ends without reading the tape once more. ok
// is false when src is not the tape the mock answers from (the same
// File, or the same Shared) or the tape cannot be read.
func (m *Mock) LastSeqs(src tape.Source) (lasts map[string]int64, ok bool) {
	if !sameSource(src, m.src) {
		return nil, false
	}
	idx, err := m.index()
	if err != nil || idx.lasts == nil {
		return nil, false
	}
	return idx.lasts, true
}

// sameSource reports whether a and b are the same tape: the same file
// path, or the same Shared. Other sources are never taken for the same
// (some, like tape.Bytes, cannot be compared).
func sameSource(a, b tape.Source) bool {
	switch a := a.(type) {
	case tape.File:
		b, ok := b.(tape.File)
		return ok && a == b
	case *tape.Shared:
		b, ok := b.(*tape.Shared)
		return ok && a == b
	}
	return false
}

// recordedName strips a virtual copy's "#k" suffix.
func recordedName(session string) string {
	i := strings.LastIndexByte(session, '#')
	if i <= 0 || i == len(session)-1 {
		return session
	}
	for _, c := range session[i+1:] {
		if c < '0' || c > '9' {
			return session
		}
	}
	return session[:i]
}
