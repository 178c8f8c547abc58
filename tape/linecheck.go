package tape

import (
	"bytes"
	"fmt"
	"io"
)

// CheckLines reads the native tape src to its end for a line longer than
// the line limit (WithMaxLine) and returns the *Error (ErrLineTooLong)
// that Reader.Next returns once it gets there, or nil: a replay that
// checks first refuses such a tape before it sends anything, rather than
// midway. It opens src as OpenSource does, with opts, and returns that
// error if it cannot; it decodes nothing past the header, only finds the
// ends of lines, so it costs a read of the file, and not even that when
// the whole file is no longer than the limit. A tape of another
// format (an import, held to the document limit) is not checked: nil. A
// read error is left to the reader, which says it where it happens.
func CheckLines(src Source, opts ...Option) error {
	r, err := OpenSource(src, opts...)
	if err != nil {
		return err
	}
	path, limit, native := r.path, r.opts.maxLine, r.format == FormatNative
	r.Close()
	if !native {
		return nil
	}
	f, err := src.Open()
	if err != nil {
		return nil
	}
	defer f.Close()
	if size, err := f.Seek(0, io.SeekEnd); err == nil && size <= int64(limit) {
		return nil // no line can be longer than the file
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil
	}
	var (
		buf  = make([]byte, 256<<10)
		line = int64(1) // the header, read above, may be longer
		n    int        // bytes of line so far
	)
	for {
		k, err := f.Read(buf)
		for b := buf[:k]; len(b) > 0; {
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				n += len(b)
				break
			}
			if n += i; line > 1 && n > limit {
				return lineTooLong(path, line, limit)
			}
			line, n, b = line+1, 0, b[i+1:]
		}
		if line > 1 && n > limit {
			return lineTooLong(path, line, limit)
		}
		if err != nil { // io.EOF, or an error the reader says
			return nil
		}
	}
}

// lineTooLong is the error of line, longer than limit, in the tape path.
func lineTooLong(path string, line int64, limit int) *Error {
	return &Error{Path: path, Line: line, Seq: -1, Err: ErrLineTooLong,
		Msg: fmt.Sprintf("the line is longer than the limit of %s: if the tape is right, raise the limit (--max-line; replay.MaxLine)", sizeName(int64(limit)))}
}
