package engine

import (
	"errors"
	"sync"

	"github.com/replayctl/replayctl/tape"
)

// tapeTaker is a target that reads the replayed tape itself (the
// built-in mock answering from it, see mock.Mock.StreamTape) and hands
// its messages over as it reads them: the replay reads them, not the
// tape once more, and starts before the target has read it all.
type tapeTaker interface {
	StreamTape(src tape.Source) (next func() (tape.Message, error), end func() []string, ok bool)
}

// replayed is the tape the loader reads: a tape.Reader, or the messages
// the target read (taken).
type replayed interface {
	source
	Path() string
	Warnings() []string
	Close() error
}

// openTape opens the tape to replay: the messages the target reads of
// it, when it reads the same tape and the replay cannot seek (a
// controller sends the loader back), else a reader of its own.
func (e *Engine) openTape() (replayed, error) {
	if t, ok := e.cfg.Dialer.(tapeTaker); ok && e.ctl == nil {
		if next, end, ok := t.StreamTape(e.cfg.Source); ok {
			return &taken{path: e.cfg.Source.Name(), next: next, end: end}, nil
		}
	}
	return tape.OpenSource(e.cfg.Source, e.cfg.TapeOptions...)
}

// taken is a tape read by the target, given in tape order once (the
// target lets go of each message as it gives it). Close (and Warnings,
// which closes) stops the target's read if the replay ended before it
// (an interrupt, a replay stopped early), and waits for it to end; a
// Next waiting for the read then returns. Close may be called from any
// goroutine, more than once.
type taken struct {
	path     string
	next     func() (tape.Message, error)
	end      func() []string
	once     sync.Once
	warnings []string
}

// errTakenSeek is a seek of a taken tape, which openTape never gives a
// replay that seeks.
var errTakenSeek = errors.New("engine: a tape read by the target cannot seek")

func (t *taken) Next() (tape.Message, error) { return t.next() }
func (t *taken) SeekSeq(int64) error         { return errTakenSeek }
func (t *taken) Path() string                { return t.path }

func (t *taken) Warnings() []string {
	t.Close()
	return t.warnings
}

func (t *taken) Close() error {
	t.once.Do(func() { t.warnings = t.end() })
	return nil
}
