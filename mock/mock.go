package mock

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"

	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// ErrClosed is returned by Send and Rewind on a closed connection.
var ErrClosed = errors.New("mock: connection closed")

// Mock is a transport.Dialer whose sessions answer from a tape. It reads
// the tape once, on the first Dial (or StreamTape), into an index that
// every connection shares; it is safe for concurrent use.
type Mock struct {
	src       tape.Source
	tapeOpts  []tape.Option
	lookahead int

	mu    sync.Mutex // guards r and taken; held while a read at once is under way
	r     *reading   // the read of the tape, once begun
	taken bool       // StreamTape has handed the messages over
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
// the tape could not be read. Later Dials return at once. While a replay
// that took the tape (StreamTape) reads it, a Dial returns at once, and
// its connection answers each request as soon as the part of the tape
// that decides its answer is indexed; once that read has met a bad line
// (a *tape.Error), a Dial still returns a connection, whose requests fail
// with the tape's error (see Send).
func (m *Mock) Dial(ctx context.Context, session string) (transport.Conn, error) {
	r := m.reading()
	select {
	case <-r.done:
	default:
		return newLiveConn(r, recordedName(session), m.lookahead), nil
	}
	if r.err != nil {
		if _, bad := errors.AsType[*tape.Error](r.err); bad && r.finished != nil {
			// A streamed read met a bad line: the replay's reader gives
			// the same error. The connection's requests fail with it (see
			// Send), as they do on a connection dialled before the read
			// failed: not a failed connect, which is the target's failure.
			return newLiveConn(r, recordedName(session), m.lookahead), nil
		}
		return nil, r.err
	}
	return newConn(r.idx, r.idx.sessions[recordedName(session)], m.lookahead), nil
}

// reading returns the read of the tape, reading it now the first time,
// or again after a streamed read was halted (its replay ended first).
func (m *Mock) reading() *reading {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.r == nil || m.r.haltedEarly() {
		m.r = read(m.src, m.tapeOpts, false)
	}
	return m.r
}

// index returns the tape's index, reading the tape the first time, or
// waiting for the end of a streamed read.
func (m *Mock) index() (*index, error) {
	r := m.reading()
	<-r.done
	return r.idx, r.err
}

// StreamTape hands the messages of the tape src over to a replay as the
// mock reads them, in tape order, as the mock's own reading finds them:
// a replay against the mock answering from the tape it replays reads it
// once, not once for itself and once for the mock, and starts at once,
// while the mock indexes the rest (see Dial). next gives the messages one
// by one, then the reader's error: io.EOF at the end, or the tape's own
// error (a *tape.Error, with its file and line); it is for one
// goroutine. end stops the mock's read if it has not ended (the replay
// is done with the tape: an interrupt, or a replay stopped early), waits
// for it to end (at once after next gave its error, else within a
// batch of messages) and returns the reader's warnings; call it once the
// replay is done with next and with the mock's connections. A Dial after
// a read stopped so reads the tape afresh. The messages are the caller's: the
// mock keeps none of them.
//
// The messages are given once: ok is false when src is not the tape the
// mock answers from (the same File, or the same Shared), when the mock
// read it before StreamTape was called, when they were taken already,
// when the tape is larger than the mock keeps (256 MiB), or when it
// cannot be opened (the caller reads it itself and finds why). A tape
// that is not a regular file is read whole first, as the first Dial
// does. The caller must read src with the mock's tape options
// (WithTapeOptions), as package replay does.
func (m *Mock) StreamTape(src tape.Source) (next func() (tape.Message, error), end func() []string, ok bool) {
	if !sameSource(src, m.src) {
		return nil, nil, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.taken || m.r != nil {
		return nil, nil, false
	}
	m.taken = true
	size, ok := streamable(src)
	if !ok {
		if m.r = read(m.src, m.tapeOpts, true); m.r.kept == nil {
			return nil, nil, false
		}
		k := m.r.kept
		m.r.kept = nil
		next, warnings := k.next(), k.warnings
		return func() (tape.Message, error) {
				if msg, ok := next(); ok {
					return msg, nil
				}
				return tape.Message{}, io.EOF
			}, func() []string {
				return warnings
			}, true
	}
	rd, err := tape.OpenSource(src, m.tapeOpts...)
	if err != nil {
		m.r = &reading{done: make(chan struct{}), err: err}
		close(m.r.done)
		return nil, nil, false
	}
	m.r = stream(rd, size)
	next, end = m.r.messages()
	return next, end, true
}

// TakeTape is StreamTape, the messages all read first: next gives them
// one by one, then false; warnings are the reader's. ok is false also
// when the tape cannot be read to its end.
func (m *Mock) TakeTape(src tape.Source) (next func() (tape.Message, bool), warnings []string, ok bool) {
	nextMsg, end, ok := m.StreamTape(src)
	if !ok {
		return nil, nil, false
	}
	k := &keptTape{}
	var n int64
	for {
		msg, err := nextMsg()
		if err != nil {
			warnings = end()
			if !errors.Is(err, io.EOF) || n > keepUpTo {
				return nil, nil, false
			}
			k.warnings = warnings
			return k.next(), warnings, true
		}
		if n += int64(len(msg.Msg)); n <= keepUpTo {
			k.add(msg)
		}
	}
}

// LastSeqs returns each recorded session's last seq on the tape (any
// message of it, in either direction), read from the mock's index of its
// tape, which it builds now if no Dial has (or waits for, while a
// replay streams it, until ctx is done): a replay against the mock
// learns where each session ends without reading the tape once more. ok
// is false when src is not the tape the mock answers from (the same
// File, or the same Shared), when the tape cannot be read, or when ctx
// is done first.
func (m *Mock) LastSeqs(ctx context.Context, src tape.Source) (lasts map[string]int64, ok bool) {
	if !sameSource(src, m.src) {
		return nil, false
	}
	r := m.reading()
	select {
	case <-r.done:
	case <-ctx.Done():
		return nil, false
	}
	if r.err != nil || r.idx.lasts == nil {
		return nil, false
	}
	return r.idx.lasts, true
}

// TapeCount returns the count of the messages of the tape src and of its
// sessions, when the mock's read of it has ended at the tape's end: a
// replay against the mock stopped before it read the tape through (an
// interrupt) reports the tape's figures without reading it once more.
// It never waits and never reads: ok is false when src is not the tape
// the mock answers from, when no read of it has ended, or when the read
// ended before the tape's end (a bad line, a replay done first).
func (m *Mock) TapeCount(src tape.Source) (messages int64, sessions int, ok bool) {
	if !sameSource(src, m.src) {
		return 0, 0, false
	}
	m.mu.Lock()
	r := m.r
	m.mu.Unlock()
	if r == nil {
		return 0, 0, false
	}
	select {
	case <-r.done:
	default:
		return 0, 0, false
	}
	if r.err != nil || r.idx.lasts == nil {
		return 0, 0, false
	}
	return r.idx.messages, len(r.idx.lasts), true
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
