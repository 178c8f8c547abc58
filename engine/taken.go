package engine

import (
	"errors"
	"io"

	"github.com/replayctl/replayctl/tape"
)

// tapeTaker is a target that has read the replayed tape already (the
// built-in mock answering from it, see mock.Mock.TakeTape) and hands its
// messages over: the replay reads them, not the tape once more.
type tapeTaker interface {
	TakeTape(src tape.Source) (msgs []tape.Message, warnings []string, ok bool)
}

// replayed is the tape the loader reads: a tape.Reader, or the messages
// the target read (taken).
type replayed interface {
	source
	Path() string
	Warnings() []string
	Close() error
}

// openTape opens the tape to replay: the messages the target read of it,
// when it reads the same tape and the replay cannot seek (a controller
// sends the loader back), else a reader of its own.
func (e *Engine) openTape() (replayed, error) {
	if t, ok := e.cfg.Dialer.(tapeTaker); ok && e.ctl == nil {
		if msgs, warnings, ok := t.TakeTape(e.cfg.Source); ok {
			return &taken{path: e.cfg.Source.Name(), msgs: msgs, warnings: warnings}, nil
		}
	}
	return tape.OpenSource(e.cfg.Source, e.cfg.TapeOptions...)
}

// taken is a tape read by the target, given in tape order once. Each
// message is let go of as it is given, so that the tape leaves memory as
// the replay goes.
type taken struct {
	path     string
	msgs     []tape.Message
	next     int
	warnings []string
}

// errTakenSeek is a seek of a taken tape, which openTape never gives a
// replay that seeks.
var errTakenSeek = errors.New("engine: a tape read by the target cannot seek")

func (t *taken) Next() (tape.Message, error) {
	if t.next == len(t.msgs) {
		return tape.Message{}, io.EOF
	}
	m := t.msgs[t.next]
	t.msgs[t.next] = tape.Message{}
	t.next++
	return m, nil
}

func (t *taken) SeekSeq(int64) error { return errTakenSeek }
func (t *taken) Path() string        { return t.path }
func (t *taken) Warnings() []string  { return t.warnings }
func (t *taken) Close() error        { t.msgs = nil; return nil }
