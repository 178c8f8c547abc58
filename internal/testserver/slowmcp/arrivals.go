package slowmcp

import (
	"io"
	"strconv"
	"sync"
	"time"
)

// arrivals writes the arrival log (see WithArrivals).
type arrivals struct {
	mu  sync.Mutex // guards w and buf: one line, one Write, at a time
	w   io.Writer
	buf []byte
}

// record logs m as received at at, and by the kernel at rx (the zero
// time: no stamp). A nil *arrivals records nothing. Write errors are
// ignored: the log is a measurement aid, not the server's job.
func (a *arrivals) record(at, rx time.Time, m Message) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.buf = AppendArrival(a.buf[:0], at, rx, m)
	_, _ = a.w.Write(a.buf)
}

// AppendArrival appends m's arrival line (see WithArrivals) to dst: read
// at at, received by the kernel at rx (the zero time: not known, no
// fourth field).
func AppendArrival(dst []byte, at, rx time.Time, m Message) []byte {
	dst = strconv.AppendInt(dst, at.UnixNano(), 10)
	dst = append(dst, ' ')
	switch m.Kind {
	case Response:
		dst = append(dst, "response"...)
	case Invalid:
		dst = append(dst, "invalid"...)
	default:
		for _, c := range []byte(m.Method) {
			if c <= ' ' || c == 0x7f {
				c = '_' // one line, three fields
			}
			dst = append(dst, c)
		}
	}
	dst = append(dst, ' ')
	if m.ID == nil {
		dst = append(dst, '-')
	} else {
		dst = append(dst, m.ID...)
	}
	if !rx.IsZero() {
		dst = append(dst, " rx="...)
		dst = strconv.AppendInt(dst, rx.UnixNano(), 10)
	}
	return append(dst, '\n')
}
