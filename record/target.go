package record

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// stuckAfter is how long abandon waits for a write under way to end
// before it takes that write for stuck: far longer than a line takes on
// a disk that answers, short enough for a second Ctrl-C.
const stuckAfter = time.Second

// errAbandoned is what a recording's writes and file creation return
// once Recorder.Abandon was called.
var errAbandoned = errors.New("record: the recording was abandoned (stopped at once)")

// target is the file a recording writes its tape into: the tape itself,
// or with Overwrite a new file beside it (NAME.recording-*.EXT, in the
// same folder so that the rename is atomic) that finish renames over the
// tape once the recording is complete and kept. Until then an existing
// tape is untouched, whatever becomes of the recording.
type target struct {
	path      string
	overwrite bool

	// mu guards file, abandoned, writing and ended, read by
	// Recorder.File and Recorder.Abandon while Run writes. It is held
	// across the changes to the disk that make, rename or remove the
	// file, so that once abandon has returned none is under way and none
	// comes; but not across a write, which a stuck disk (a hung mount)
	// may hold up for ever: abandon waits for it stuckAfter at most, and
	// then says it is still under way.
	mu        sync.Mutex
	file      string // the file created and still there ("" until then)
	abandoned bool
	writing   bool          // a write is under way
	ended     chan struct{} // made by abandon for a write under way, closed when it ends

	// wmu is held across each write, so that the lines are written one
	// at a time, whole and in order, without mu.
	wmu sync.Mutex
}

// create creates the file to write: the tape (refused if it exists), or
// with overwrite the new file beside it; refused once abandoned.
func (t *target) create() (*os.File, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.abandoned {
		return nil, errAbandoned
	}
	var f *os.File
	var err error
	if t.overwrite {
		ext := filepath.Ext(t.path)
		stem := strings.TrimSuffix(filepath.Base(t.path), ext)
		f, err = os.CreateTemp(filepath.Dir(t.path), stem+".recording-*"+ext)
		if err == nil {
			err = f.Chmod(0o644) // as the tape itself would be; CreateTemp's is 0600
			if err != nil {
				f.Close()
				_ = os.Remove(f.Name())
				return nil, err
			}
		}
	} else {
		f, err = os.OpenFile(t.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	}
	if err != nil {
		return nil, err
	}
	t.file = f.Name()
	return f, nil
}

// writer is f, the file create returned, for the tape's writer: a write
// once abandoned writes nothing and fails.
func (t *target) writer(f *os.File) *targetWriter { return &targetWriter{t: t, f: f} }

// targetWriter writes to the recording's file until it is abandoned.
type targetWriter struct {
	t *target
	f io.Writer // the file (tests: a writer they hold up)
}

func (w *targetWriter) Write(p []byte) (int, error) {
	t := w.t
	t.wmu.Lock()
	defer t.wmu.Unlock()
	t.mu.Lock()
	if t.abandoned {
		t.mu.Unlock()
		return 0, errAbandoned
	}
	t.writing = true
	t.mu.Unlock()
	n, err := w.f.Write(p)
	t.mu.Lock()
	t.writing = false
	if t.ended != nil { // abandon waits for this write
		close(t.ended)
		t.ended = nil
	}
	t.mu.Unlock()
	return n, err
}

// written is the file created ("" until then, and again once it is
// removed).
func (t *target) written() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.file
}

// abandon leaves the recording's file as it is now and returns it (""
// if none): from then on nothing is created, written, renamed or
// removed. A creation, rename or removal under way ends before it
// returns. A write under way is waited for, stuckAfter at most: one
// that ends by then has added its line, and writing is false; one that
// has not (a stuck disk) is left to end when it can, or never, and
// writing is true (see Recorder.Abandon).
func (t *target) abandon() (file string, writing bool) {
	t.mu.Lock()
	t.abandoned = true
	file = t.file // no longer changes: nothing is created, renamed or removed now
	if !t.writing {
		t.mu.Unlock()
		return file, false
	}
	if t.ended == nil { // a second abandon waits for the same write
		t.ended = make(chan struct{})
	}
	ended := t.ended
	t.mu.Unlock()
	stuck := time.NewTimer(stuckAfter)
	defer stuck.Stop()
	select {
	case <-ended: // no write comes after it: the recording is abandoned
		return file, false
	case <-stuck.C:
		return file, true
	}
}

// finish ends the recording's file, closed already: kept, it becomes the
// tape (with overwrite, renamed over it); not kept, it is removed (see
// remove) and an existing tape is as it was. Once abandoned it does
// nothing.
func (t *target) finish(keep bool) error {
	if !keep {
		return t.remove()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.overwrite || t.abandoned {
		return nil
	}
	if err := os.Rename(t.file, t.path); err != nil {
		return fmt.Errorf("replace %s with the new recording (left in %s): %w", t.path, t.file, err)
	}
	t.file = t.path
	return nil
}

// discard closes f, the file create returned, and removes it: a
// recording that could not start (an existing tape is as it was).
func (t *target) discard(f *os.File) {
	f.Close()
	_ = t.remove()
}

// remove removes the file created and then forgets it: written says ""
// from then on, so that no one (a second Ctrl-C's exit, which may
// remove what written names) takes for the recording's a file another
// process has since made at that path. Once abandoned it does nothing.
func (t *target) remove() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.abandoned {
		return nil
	}
	if err := os.Remove(t.file); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	t.file = ""
	return nil
}
