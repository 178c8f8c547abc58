package transport

import (
	"errors"
	"sync"
)

// memPipeBytes is how much of an in-process answer a memPipe holds for a
// client that has not read it yet: about what a loopback socket buffers.
// Past it the handler's Write waits, as on a socket.
const memPipeBytes = 256 << 10

var (
	// errAnswerGone is a handler's Write after its client closed the
	// answer or gave up the request.
	errAnswerGone = errors.New("transport: the in-process client closed the answer or gave up the request")
	// errAfterHandler is a Write after the handler returned.
	errAfterHandler = errors.New("transport: write after the in-process handler returned")
)

// memPipe is a bounded byte stream in memory from a handler to its
// client, like a socket: a Write is readable at once (no Flush needed) and
// waits only while memPipeBytes are unread; either end can be closed with
// an error the other side then sees.
type memPipe struct {
	mu   sync.Mutex // guards buf, off, werr and rerr
	buf  []byte
	off  int   // buf[off:] is unread
	werr error // the writer is done: reads return it once buf is drained
	rerr error // the reader is gone: reads return it, writes errAnswerGone

	readable chan struct{} // cap 1: there is something to read, or werr
	writable chan struct{} // cap 1: there is room to write
	gone     chan struct{} // closed when rerr is set
}

func newMemPipe() *memPipe {
	return &memPipe{readable: make(chan struct{}, 1), writable: make(chan struct{}, 1), gone: make(chan struct{})}
}

// Write copies b into the pipe; it waits while the pipe is full, and
// fails once the reader is gone or the writer has closed.
func (p *memPipe) Write(b []byte) (int, error) {
	n := 0
	for {
		p.mu.Lock()
		if p.rerr != nil {
			p.mu.Unlock()
			return n, errAnswerGone
		}
		if p.werr != nil {
			p.mu.Unlock()
			return n, errAfterHandler
		}
		if room := memPipeBytes - (len(p.buf) - p.off); room > 0 && len(b) > 0 {
			k := min(room, len(b))
			if p.off > 0 && len(p.buf)+k > cap(p.buf) {
				p.buf, p.off = append(p.buf[:0], p.buf[p.off:]...), 0
			}
			p.buf = append(p.buf, b[:k]...)
			b, n = b[k:], n+k
			notify(p.readable)
		}
		p.mu.Unlock()
		if len(b) == 0 {
			return n, nil
		}
		select {
		case <-p.writable:
		case <-p.gone:
		}
	}
}

// Read returns what has been written and not read yet, waiting for it if
// there is none; once the writer has closed and all is read, it returns
// the writer's error (io.EOF for a handler that returned).
func (p *memPipe) Read(b []byte) (int, error) {
	for {
		p.mu.Lock()
		if p.rerr != nil {
			err := p.rerr
			p.mu.Unlock()
			return 0, err
		}
		if p.off < len(p.buf) {
			n := copy(b, p.buf[p.off:])
			p.off += n
			if p.off == len(p.buf) {
				p.buf, p.off = p.buf[:0], 0
				if cap(p.buf) > 64<<10 {
					p.buf = nil // don't pin a burst's memory for a long stream
				}
			}
			p.mu.Unlock()
			notify(p.writable)
			return n, nil
		}
		if p.werr != nil {
			err := p.werr
			p.mu.Unlock()
			return 0, err
		}
		p.mu.Unlock()
		select {
		case <-p.readable:
		case <-p.gone:
		}
	}
}

// closeWrite ends the stream: reads return err after the rest. Only the
// first call counts.
func (p *memPipe) closeWrite(err error) {
	p.mu.Lock()
	if p.werr == nil {
		p.werr = err
	}
	p.mu.Unlock()
	notify(p.readable)
}

// closeRead gives up the stream: reads return err at once, and writes
// fail. Only the first call counts.
func (p *memPipe) closeRead(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rerr == nil {
		p.rerr = err
		close(p.gone)
	}
}
