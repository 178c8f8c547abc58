package tape

import (
	"errors"
	"strconv"
	"strings"
)

// Sentinels wrapped by *Error, for callers that branch on the kind of failure.
var (
	// ErrNewerVersion means the tape was written by a newer replayctl in a
	// format version this one does not know; the fix is to upgrade.
	ErrNewerVersion = errors.New("tape: newer format version")
	// ErrUnknownFormat means the content is neither a native tape nor an
	// Agent VCR cassette.
	ErrUnknownFormat = errors.New("tape: unknown format")
	// ErrEmpty means the file holds nothing but white space.
	ErrEmpty = errors.New("tape: empty")
	// ErrLineTooLong means a line is longer than the reader's limit
	// (WithMaxLine).
	ErrLineTooLong = errors.New("tape: line too long")
	// ErrTooLarge means Load was given a tape that is not a regular file
	// (a pipe) and longer than MaxInMemory: save it to a file.
	ErrTooLarge = errors.New("tape: too large to hold in memory")
	// ErrOutOfRange is returned (wrapped) by SeekSeq when no message has the
	// seq asked for. It is not wrapped by *Error: the tape is fine.
	ErrOutOfRange = errors.New("tape: seq out of range")
)

// Error is bad input in a tape: what is wrong, where, and what to do.
//
// Line is the 1-based line in the file (0 when it does not apply) and Seq
// the message's seq (-1 when unknown). Err is a sentinel of this package or
// the underlying error, or nil.
type Error struct {
	Path string
	Line int64
	Seq  int64
	Msg  string
	Err  error
}

// Error formats as `tape a.jsonl line 12 (seq 10): what is wrong: what to do`.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("tape")
	if e.Path != "" {
		b.WriteByte(' ')
		b.WriteString(e.Path)
	}
	if e.Line > 0 {
		b.WriteString(" line ")
		b.WriteString(strconv.FormatInt(e.Line, 10))
	}
	if e.Seq >= 0 {
		b.WriteString(" (seq ")
		b.WriteString(strconv.FormatInt(e.Seq, 10))
		b.WriteByte(')')
	}
	b.WriteString(": ")
	switch {
	case e.Msg != "":
		b.WriteString(e.Msg)
	case e.Err != nil:
		b.WriteString(e.Err.Error())
	default:
		b.WriteString("bad tape")
	}
	return b.String()
}

// Unwrap returns the sentinel or underlying error.
func (e *Error) Unwrap() error { return e.Err }

// lineErr is an error about one line whose path and line number the caller
// fills in.
func lineErr(seq int64, msg string) *Error {
	return &Error{Seq: seq, Msg: msg}
}

// kindOf names the JSON type of the value starting with b, for messages such
// as `field "seq" is a string, want an integer`.
func kindOf(v []byte) string {
	if len(v) == 0 {
		return "empty"
	}
	switch c := v[0]; {
	case c == '"':
		return "a string"
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '-' || (c >= '0' && c <= '9'):
		return "a number"
	default:
		return "not JSON"
	}
}
