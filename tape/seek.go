package tape

import (
	"fmt"
	"io"
	"sort"
)

// indexEntry is where one message line starts; Seek resumes reading there.
// The reader records one every indexEvery messages, so the index stays tiny.
type indexEntry struct {
	seq     int64 // the message's seq
	prevSeq int64 // the seq before it, -1 for the first message
	off     int64 // byte offset of its line
	line    int64 // lines before it
	ord     int64 // messages before it
}

// SeekSeq positions the reader so that the next Next returns the message with
// the given seq (or, when the tape skips that seq, the first message after
// it). A seq before the first message or past the last one is an error
// wrapping ErrOutOfRange, and the reader stays where it was.
//
// On a native tape, Seek goes back through the sparse offset index and reads
// forward from the nearest indexed message at or before seq; a seq past what
// has been read is found by reading forward, indexing as it goes.
func (r *Reader) SeekSeq(seq int64) error {
	if r.opts.only != nil {
		return fmt.Errorf("tape %s: a reader filtered to one session (WithSession) cannot seek", r.path)
	}
	return r.body.seekSeq(seq)
}

// seekSeq is Reader.SeekSeq on a native tape.
func (nr *nativeReader) seekSeq(seq int64) error {
	if seq < 0 {
		return &rangeError{fmt.Sprintf("seq %d is negative: a seq is 0 or more", seq)}
	}
	savedPos, savedPending, savedErr := nr.pos, nr.pending, nr.err
	k := sort.Search(len(nr.index), func(i int) bool { return nr.index[i].seq > seq }) - 1
	var err error
	switch {
	case k < 0 && len(nr.index) > 0:
		return nr.r.beforeFirst(seq, nr.index[0].seq)
	case nr.pending != nil && nr.pending.Seq == seq:
		return nil
	case nr.err == nil && nr.pending != nil && nr.pending.Seq < seq && (k < 0 || nr.pos.ord-1 >= nr.index[k].ord):
		nr.pending = nil // read on from here
	case nr.err == nil && nr.pending == nil && nr.pos.lastSeq < seq && (k < 0 || nr.pos.ord > nr.index[k].ord):
		// read on from here
	case k < 0:
		err = nr.reposition(nr.dataStart)
	default:
		e := nr.index[k]
		err = nr.reposition(position{off: e.off, line: e.line, ord: e.ord, lastSeq: e.prevSeq})
	}
	if err != nil {
		nr.restore(savedPos, savedPending, savedErr)
		return err
	}
	nr.slab.borrow = true
	defer func() { nr.slab.borrow = false }()
	for {
		m, err := nr.readMessage()
		if err != nil {
			last := nr.pos.lastSeq
			nr.restore(savedPos, savedPending, savedErr)
			if err == io.EOF {
				return nr.r.pastLast(seq, last)
			}
			return err
		}
		if m.Seq >= seq {
			if m.Seq > seq && nr.pos.ord == 1 {
				nr.restore(savedPos, savedPending, savedErr)
				return nr.r.beforeFirst(seq, m.Seq)
			}
			nr.slab.borrow = false
			inBuffer := m.Msg // still in the read buffer
			m.Msg = nr.slab.clone(inBuffer)
			m.rpc = rekeep(m.rpc, inBuffer, m.Msg)
			nr.seekMsg = m
			nr.seekSpan = nr.readSpan
			nr.pending = &nr.seekMsg
			return nil
		}
	}
}

// Rewind positions the reader before the first message. A reader that
// has read nothing yet is there already: it does not seek, so that a tape
// read from a pipe can be rewound before it is read.
func (r *Reader) Rewind() error { return r.body.rewind() }

// rewind is Reader.Rewind on a native tape.
func (nr *nativeReader) rewind() error {
	if nr.pos == nr.dataStart && nr.pending == nil && nr.err == nil {
		return nil
	}
	return nr.reposition(nr.dataStart)
}

// reposition moves the native reader to p, clearing what it had read ahead.
func (nr *nativeReader) reposition(p position) error {
	if _, err := nr.src.Seek(p.off, io.SeekStart); err != nil {
		return &Error{Path: nr.r.path, Seq: -1, Err: err, Msg: fmt.Sprintf("cannot seek in it (%v): is it a pipe? copy it to a file first", err)}
	}
	nr.br.Reset(nr.src)
	nr.pos, nr.pending, nr.err = p, nil, nil
	return nil
}

// restore puts the reader back where it was before a failed Seek.
func (nr *nativeReader) restore(p position, pending *Message, err error) {
	if e := nr.reposition(p); e != nil {
		nr.err = e
		return
	}
	nr.pending, nr.err = pending, err
}

func (r *Reader) beforeFirst(seq, first int64) error {
	return &rangeError{fmt.Sprintf("tape %s starts at seq %d (seq %d is before it)", r.path, first, seq)}
}

func (r *Reader) pastLast(seq, last int64) error {
	if last < 0 {
		return &rangeError{fmt.Sprintf("tape %s has no messages (seq %d asked)", r.path, seq)}
	}
	return &rangeError{fmt.Sprintf("tape %s ends at seq %d (seq %d is past it)", r.path, last, seq)}
}

// rangeError is SeekSeq's error for a seq the tape does not have. It says
// where the tape starts or ends, and wraps ErrOutOfRange.
type rangeError struct{ msg string }

func (e *rangeError) Error() string { return e.msg }
func (e *rangeError) Unwrap() error { return ErrOutOfRange }
