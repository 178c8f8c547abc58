package tape

import "fmt"

// lineSpan is where a message line lies in a native tape file.
type lineSpan struct {
	off int64 // byte offset of the line's first byte
	n   int   // its length, without the newline
}

// LineSpan returns where, in a native tape's file, the line of the message
// last returned by Next lies: its byte offset and its length without the
// newline. Reading those bytes back (with ReadAt) and giving them to
// DecodeLine yields the message again. ok is false before the first
// message and on an imported (Agent VCR) tape, whose messages have no line
// of their own.
func (r *Reader) LineSpan() (off int64, n int, ok bool) { return r.body.lineSpan() }

// DecodeLine decodes one message line of a native tape, as Next does (Line
// is left 0). Unlike Next's, the Msg it returns is part of line, not a
// copy: copy it to keep it past line's reuse. A line that is not a message
// line is an *Error.
func DecodeLine(line []byte) (Message, error) {
	var env envelope
	if err := scanEnvelope(line, &env); err != nil {
		return Message{}, &Error{Seq: -1, Err: err, Msg: fmt.Sprintf("not a JSON object (%v): not a tape line", err)}
	}
	if typ := lineType(line, &env); typ != "message" {
		return Message{}, &Error{Seq: -1, Msg: fmt.Sprintf(`a line of type %q, want "message"`, typ)}
	}
	var m Message
	borrow := slab{borrow: true}
	if e := decodeMessage(line, &env, &m, "", &borrow); e != nil {
		return Message{}, e
	}
	return m, nil
}
