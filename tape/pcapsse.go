package tape

import (
	"bytes"
	"time"
)

// sseSplitter splits a text/event-stream body into its events as its
// bytes come, by the rules splitSSE follows for a whole body; each event
// comes out with the time of the bytes that ended it.
type sseSplitter struct {
	buf     []byte
	off     int // bytes of buf already read
	started bool
	cur     sseEvent
	data    []byte
	hasData bool
	tooBig  bool // the event being read is past maxHTTPBody: it is dropped
	event   func(ev sseEvent, at time.Time)
}

// feed takes the next bytes of the body.
func (p *sseSplitter) feed(b []byte, at time.Time) {
	p.buf = append(p.buf, b...)
	if !p.started {
		if len(p.buf) < 3 && bytes.HasPrefix([]byte("\xEF\xBB\xBF"), p.buf) {
			return // maybe a byte order mark
		}
		p.started = true
		if bytes.HasPrefix(p.buf, []byte("\xEF\xBB\xBF")) {
			p.off = 3
		}
	}
	for {
		rest := p.buf[p.off:]
		i := bytes.IndexAny(rest, "\r\n")
		if i < 0 {
			break
		}
		next := i + 1
		if rest[i] == '\r' {
			if next == len(rest) {
				break // a CR that may be the start of a CRLF
			}
			if rest[next] == '\n' {
				next++
			}
		}
		p.line(rest[:i], at)
		p.off += next
	}
	if p.off > 0 && p.off >= len(p.buf)/2 {
		p.buf = p.buf[:copy(p.buf, p.buf[p.off:])]
		p.off = 0
	}
	if len(p.buf)-p.off > maxHTTPBody { // a line without end
		p.tooBig = true
		p.buf, p.off = p.buf[:0], 0
	}
}

func (p *sseSplitter) line(line []byte, at time.Time) {
	if len(line) == 0 {
		p.dispatch(at)
		return
	}
	if p.tooBig {
		return
	}
	sseField(line, &p.cur, &p.data, &p.hasData)
	if len(p.data) > maxHTTPBody {
		p.tooBig, p.data = true, nil
	}
}

func (p *sseSplitter) dispatch(at time.Time) {
	if p.hasData && !p.tooBig {
		ev := p.cur
		ev.data = bytes.Clone(p.data)
		p.event(ev, at)
	}
	p.cur, p.data, p.hasData, p.tooBig = sseEvent{}, p.data[:0], false, false
}

// close ends the body: an unterminated last event is kept (the capture
// stopped in it), as splitSSE keeps it, and close says so (tail).
func (p *sseSplitter) close(at time.Time) (tail bool) {
	rest := p.buf[p.off:]
	if r, ok := bytes.CutSuffix(rest, []byte("\r")); ok { // a line that ended in a lone CR
		p.line(r, at)
	} else if len(rest) > 0 { // a line without end
		p.line(rest, at)
	}
	p.buf, p.off = nil, 0
	if p.hasData && !p.tooBig {
		p.dispatch(at)
		return true
	}
	return false
}
