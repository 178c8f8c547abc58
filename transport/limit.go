package transport

import (
	"fmt"
	"io"
	"slices"

	"github.com/replayctl/replayctl/internal/english"
)

// DefaultMaxMessage is the longest message a target may send, in bytes,
// when a dialer's MaxMessage is 0: 16 MiB. That is twice the longest
// tape line replayctl reads by default (8 MiB, --max-line), so an answer
// a tape can hold fits with room to grow, while a runaway server (a line
// without end, a decompression bomb) is stopped after 16 MiB instead of
// after the machine's memory. It bounds what one message costs: a
// connection holds at most about twice its limit for a message being
// read.
const DefaultMaxMessage = 16 << 20

// TooLargeError is the failure of a connection whose target sent a
// message longer than the connection's limit (the dialer's MaxMessage):
// a stdout line, a JSON body (counted after decompression), an SSE event
// or one of its lines. The connection stops reading it at the limit and
// ends: Incoming closes and Err is this error. It matches ErrTarget.
type TooLargeError struct {
	What  string // what was too long, e.g. `a stdout line of server "node s.js"`
	Limit int    // the limit, in bytes
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is longer than the limit on a message from the target, %s; if the target's messages are that large, raise the limit (--max-message; replay.MaxMessage)", e.What, SizeString(e.Limit))
}

// Is makes errors.Is(err, ErrTarget) true.
func (e *TooLargeError) Is(target error) bool { return target == ErrTarget }

// SizeString writes a number of bytes for people: "16 MiB (16777216
// bytes)" when it is a whole number of KiB, MiB or GiB, else "1000 bytes"
// ("1 byte").
func SizeString(n int) string {
	for _, u := range []struct {
		size int
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s (%d bytes)", n/u.size, u.name, n)
		}
	}
	return english.Count(int64(n), "byte")
}

// limitOf is a dialer's MaxMessage, or DefaultMaxMessage for 0 or less.
func limitOf(n int) int {
	if n <= 0 {
		return DefaultMaxMessage
	}
	return n
}

// readAtMost reads r to its end, or to limit+1 bytes: then it stops and
// reports over (the rest stays unread). hint, when positive, is the
// expected size (a Content-Length). The buffer never grows past limit+1
// bytes. r is an io.ReadCloser, the type of the bodies it is given: as
// an io.Reader, each call converted one interface to the other, which
// called runtime.getitab on nearly every answer (issue 24).
func readAtMost(r io.ReadCloser, limit int, hint int64) (b []byte, over bool, err error) {
	size := 512
	if hint > 0 {
		size = int(min(hint, int64(limit))) + 1 // +1: room to see the end
	}
	b = make([]byte, 0, size)
	for {
		if len(b) == cap(b) {
			b = slices.Grow(b, min(cap(b), limit+1-len(b)))
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		switch {
		case len(b) > limit:
			return nil, true, nil
		case err == io.EOF:
			return b, false, nil
		case err != nil:
			return b, false, err
		}
	}
}
