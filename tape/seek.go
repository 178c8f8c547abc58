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
	if r.imported() {
		n := r.imp.count()
		i := sort.Search(n, func(i int) bool { return r.imp.seqAt(i) >= seq })
		switch {
		case n == 0:
			return r.pastLast(seq, -1)
		case i == n:
			return r.pastLast(seq, r.imp.seqAt(n-1))
		case i == 0 && r.imp.seqAt(0) != seq:
			return r.beforeFirst(seq, r.imp.seqAt(0))
		}
		r.next = i
		return nil
	}
	if seq < 0 {
		return &rangeError{fmt.Sprintf("seq %d is negative: a seq is 0 or more", seq)}
	}
	savedPos, savedPending, savedErr := r.pos, r.pending, r.err
	k := sort.Search(len(r.index), func(i int) bool { return r.index[i].seq > seq }) - 1
	var err error
	switch {
	case k < 0 && len(r.index) > 0:
		return r.beforeFirst(seq, r.index[0].seq)
	case r.pending != nil && r.pending.Seq == seq:
		return nil
	case r.err == nil && r.pending != nil && r.pending.Seq < seq && (k < 0 || r.pos.ord-1 >= r.index[k].ord):
		r.pending = nil // read on from here
	case r.err == nil && r.pending == nil && r.pos.lastSeq < seq && (k < 0 || r.pos.ord > r.index[k].ord):
		// read on from here
	case k < 0:
		err = r.reposition(r.dataStart)
	default:
		e := r.index[k]
		err = r.reposition(position{off: e.off, line: e.line, ord: e.ord, lastSeq: e.prevSeq})
	}
	if err != nil {
		r.restore(savedPos, savedPending, savedErr)
		return err
	}
	r.slab.borrow = true
	defer func() { r.slab.borrow = false }()
	for {
		m, err := r.readMessage()
		if err != nil {
			last := r.pos.lastSeq
			r.restore(savedPos, savedPending, savedErr)
			if err == io.EOF {
				return r.pastLast(seq, last)
			}
			return err
		}
		if m.Seq >= seq {
			if m.Seq > seq && r.pos.ord == 1 {
				r.restore(savedPos, savedPending, savedErr)
				return r.beforeFirst(seq, m.Seq)
			}
			r.slab.borrow = false
			m.Msg = r.slab.clone(m.Msg) // still in the read buffer
			r.seekMsg = m
			r.seekSpan = r.readSpan
			r.pending = &r.seekMsg
			return nil
		}
	}
}

// Rewind positions the reader before the first message. A reader that
// has read nothing yet is there already: it does not seek, so that a tape
// read from a pipe can be rewound before it is read.
func (r *Reader) Rewind() error {
	if r.imported() {
		r.next = 0
		return nil
	}
	if r.pos == r.dataStart && r.pending == nil && r.err == nil {
		return nil
	}
	return r.reposition(r.dataStart)
}

// reposition moves the native reader to p, clearing what it had read ahead.
func (r *Reader) reposition(p position) error {
	if _, err := r.src.Seek(p.off, io.SeekStart); err != nil {
		return &Error{Path: r.path, Seq: -1, Err: err, Msg: fmt.Sprintf("cannot seek in it (%v): is it a pipe? copy it to a file first", err)}
	}
	r.br.Reset(r.src)
	r.pos, r.pending, r.err = p, nil, nil
	return nil
}

// restore puts the reader back where it was before a failed Seek.
func (r *Reader) restore(p position, pending *Message, err error) {
	if e := r.reposition(p); e != nil {
		r.err = e
		return
	}
	r.pending, r.err = pending, err
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
