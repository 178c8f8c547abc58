package tape

import "context"

// RedactFile writes every message of r, from the first, through red into
// a native tape at path, with r's header (through red.Header). Like
// WriteFileContext it is atomic (path may be the file r reads: it is
// replaced once the copy is whole) and returns between two messages when
// ctx is done, path untouched. red.Counts says what was replaced.
func RedactFile(ctx context.Context, path string, r *Reader, red *Redactor) error {
	h := r.Header()
	red.Header(&h)
	return writeFile(ctx, path, r, h, red.Message)
}
