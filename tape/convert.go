package tape

import (
	"bufio"
	"context"
	"fmt"
	"io"

	"github.com/replayctl/replayctl/internal/atomicfile"
)

// WriteFile copies every message of r, from the first, into a native tape
// at path, with r.Header() as its header: WriteFileContext without a
// context.
func WriteFile(path string, r *Reader) error {
	return WriteFileContext(context.Background(), path, r)
}

// WriteFileContext copies every message of r, from the first, into a
// native tape at path, with r.Header() as its header. It is atomic: it
// writes a temporary file in the same directory (".NAME.replayctl-tmp-
// PID-…"), syncs it and renames it over path, so path is either untouched
// or complete; temporary files of path that a killed writer left behind
// are removed first, once their process is gone. r is left at its end.
//
// It returns when the copy is done, or, between two messages, when ctx is
// done: then with ctx's error, path untouched and the temporary file
// removed. (A read that waits for input, from a pipe, returns only when
// input comes or the file is closed.)
func WriteFileContext(ctx context.Context, path string, r *Reader) error {
	return writeFile(ctx, path, r, r.Header(), nil)
}

// writeFile is WriteFileContext with header h, and edit (if not nil)
// called on each message before it is written.
func writeFile(ctx context.Context, path string, r *Reader, h Header, edit func(*Message)) (err error) {
	if err := r.Rewind(); err != nil {
		return fmt.Errorf("convert to %s: %w", path, err)
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return fmt.Errorf("convert to %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Abort()
		}
	}()
	bw := bufio.NewWriterSize(f, 256<<10)
	w, err := NewWriter(bw, h)
	if err != nil {
		return fmt.Errorf("convert to %s: %w", path, err)
	}
	done := ctx.Done()
	for {
		select {
		case <-done:
			return fmt.Errorf("convert to %s: %w", path, ctx.Err())
		default:
		}
		m, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err // an *Error naming the input
		}
		if edit != nil {
			edit(&m)
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
	if err := f.Commit(); err != nil {
		return fmt.Errorf("convert to %s: %w", path, err)
	}
	return nil
}
