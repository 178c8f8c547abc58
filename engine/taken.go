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
	TakeTape(src tape.Source) (next func() (tape.Message, bool), warnings []string, ok bool)
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
		if next, warnings, ok := t.TakeTape(e.cfg.Source); ok {
			return &taken{path: e.cfg.Source.Name(), next: next, warnings: warnings}, nil
		}
	}
	return tape.OpenSource(e.cfg.Source, e.cfg.TapeOptions...)
}

// taken is a tape read by the target, given in tape order once (the
// target lets go of each message as it gives it).
type taken struct {
	path     string
	next     func() (tape.Message, bool)
	warnings []string
}

// errTakenSeek is a seek of a taken tape, which openTape never gives a
// replay that seeks.
var errTakenSeek = errors.New("engine: a tape read by the target cannot seek")

func (t *taken) Next() (tape.Message, error) {
	m, ok := t.next()
	if !ok {
		return tape.Message{}, io.EOF
	}
	return m, nil
}

func (t *taken) SeekSeq(int64) error { return errTakenSeek }
func (t *taken) Path() string        { return t.path }
func (t *taken) Warnings() []string  { return t.warnings }
func (t *taken) Close() error        { return nil }
