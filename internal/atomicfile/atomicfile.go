package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// marker is what names a temporary file of this package, between the
// target's name and the writer's process id.
const marker = ".replayctl-tmp-"

// File is a temporary file that becomes its target when committed. Write
// to it through the embedded *os.File, then Commit or Abort.
type File struct {
	*os.File
	path string
	done bool
}

// Create removes the stale temporary files of path (Clean), then creates
// a temporary file in path's folder, to become path on Commit. Errors are
// the *os.PathError of the creation: the folder is missing or cannot be
// written.
func Create(path string) (*File, error) {
	Clean(path)
	dir, base := split(path)
	f, err := os.CreateTemp(dir, prefix(base, os.Getpid())+"*")
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) { // the name the caller knows, not the temporary one
			return nil, &os.PathError{Op: "create", Path: path, Err: pe.Err}
		}
		return nil, err
	}
	return &File{File: f, path: path}, nil
}

// Commit makes the temporary file path: it sets its mode to 0644, syncs
// it, closes it and renames it over path, then syncs the folder so that
// the rename survives a crash (where the system allows it). On error the
// temporary file is removed and path is untouched. The error names the
// step that failed.
func (f *File) Commit() error { return f.CommitMode(0o644) }

// CommitMode is Commit with the file's mode set to mode (0o600 for a file
// that holds a secret).
func (f *File) CommitMode(mode os.FileMode) (err error) {
	if f.done {
		return fmt.Errorf("commit %s: already committed or aborted", f.path)
	}
	defer func() {
		if err != nil {
			f.Abort()
		}
	}()
	if err := f.Chmod(mode); err != nil {
		return fmt.Errorf("chmod: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	if err := os.Rename(f.Name(), f.path); err != nil {
		return fmt.Errorf("rename into place: %w", err)
	}
	f.done = true
	dir, _ := split(f.path)
	if d, err := os.Open(dir); err == nil { // not every system can sync a folder
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// Abort closes and removes the temporary file, leaving path untouched.
// After Commit, or a second time, it does nothing.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	_ = f.Close()
	_ = os.Remove(f.Name())
}

// Probe reports whether a file can be written at path, without writing
// it: it creates a temporary file in path's folder (cleaning stale ones
// first, as Create does) and removes it. The error is Create's.
func Probe(path string) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	f.Abort()
	return nil
}

// split is path's folder ("." when it names none) and base name.
func split(path string) (dir, base string) {
	dir, base = filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	return dir, base
}

// prefix is the name of a temporary file of base written by process pid,
// without its random end.
func prefix(base string, pid int) string {
	return "." + base + marker + strconv.Itoa(pid) + "-"
}
