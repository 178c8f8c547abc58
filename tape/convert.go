package tape

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteFile copies every message of r, from the first, into a native tape
// at path, with r.Header() as its header. It is atomic: it writes a
// temporary file in the same directory, syncs it and renames it over path,
// so path is either untouched or complete. r is left at its end.
func WriteFile(path string, r *Reader) (err error) {
	if err := r.Rewind(); err != nil {
		return fmt.Errorf("convert to %s: %w", path, err)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("convert to %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 256<<10)
	w, err := NewWriter(bw, r.Header())
	if err != nil {
		return fmt.Errorf("convert to %s: %w", path, err)
	}
	for {
		m, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err // an *Error naming the input
		}
		if err := w.Write(m); err != nil {
			return fmt.Errorf("convert to %s: %w", path, err)
		}
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("convert to %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("convert to %s: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("convert to %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("convert to %s: sync: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("convert to %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("convert to %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil { // make the rename durable
		d.Sync()
		d.Close()
	}
	return nil
}
