package record

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// target is the file a recording writes its tape into: the tape itself,
// or with Overwrite a new file beside it (NAME.recording-*.EXT, in the
// same folder so that the rename is atomic) that finish renames over the
// tape once the recording is complete and kept. Until then an existing
// tape is untouched, whatever becomes of the recording.
type target struct {
	path      string
	overwrite bool

	mu   sync.Mutex // guards file, read by Recorder.File while Run writes
	file string     // the file created and still there ("" until then)
}

// create creates the file to write: the tape (refused if it exists), or
// with overwrite the new file beside it.
func (t *target) create() (*os.File, error) {
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
	t.mu.Lock()
	t.file = f.Name()
	t.mu.Unlock()
	return f, nil
}

// written is the file created ("" until then, and again once it is
// removed).
func (t *target) written() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.file
}

// finish ends the recording's file, closed already: kept, it becomes the
// tape (with overwrite, renamed over it); not kept, it is removed (see
// remove) and an existing tape is as it was.
func (t *target) finish(keep bool) error {
	file := t.written()
	if !keep {
		return t.remove()
	}
	if !t.overwrite {
		return nil
	}
	if err := os.Rename(file, t.path); err != nil {
		return fmt.Errorf("replace %s with the new recording (left in %s): %w", t.path, file, err)
	}
	t.mu.Lock()
	t.file = t.path
	t.mu.Unlock()
	return nil
}

// abandon closes f, the file create returned, and removes it: a
// recording that could not start (an existing tape is as it was).
func (t *target) abandon(f *os.File) {
	f.Close()
	_ = t.remove()
}

// remove removes the file created and then forgets it: written says ""
// from then on, so that no one (a second Ctrl-C's exit, which may
// remove what written names) takes for the recording's a file another
// process has since made at that path. Between the two, written names
// a file that is gone, which reads as no file.
func (t *target) remove() error {
	file := t.written()
	if err := os.Remove(file); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	t.mu.Lock()
	t.file = ""
	t.mu.Unlock()
	return nil
}
