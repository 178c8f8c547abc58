package transport

import (
	"sync"
	"sync/atomic"
)

// maxInboxBytes bounds what a connection holds for a caller that is not
// reading Incoming at the moment: past it the connection's reader waits.
const maxInboxBytes = 64 << 20

// inbox lets a connection's reader hand messages on without waiting for
// its caller: a queue between the reader goroutine and Incoming, so that a
// server never blocks writing its stdout because the engine is busy
// writing to its stdin (which would stall both sides). It is bounded by
// bytes, not by count.
type inbox struct {
	mu    sync.Mutex // guards q, bytes and done
	q     []Incoming
	bytes int
	done  bool          // the reader has finished: nothing more is pushed
	wake  chan struct{} // the pump has something to deliver
	space chan struct{} // the reader may push again
	// pushed counts the messages queued (ArrivalCounter), each before
	// the pump may hand it on.
	pushed atomic.Uint64
}

func newInbox() *inbox {
	return &inbox{wake: make(chan struct{}, 1), space: make(chan struct{}, 1)}
}

// push queues one message; it waits only while the queue holds more than
// maxInboxBytes. It returns false once closing is closed.
func (b *inbox) push(in Incoming, closing <-chan struct{}) bool {
	for {
		b.mu.Lock()
		if b.bytes < maxInboxBytes || len(b.q) == 0 {
			b.q = append(b.q, in)
			b.bytes += len(in.Msg)
			b.pushed.Add(1)
			b.mu.Unlock()
			notify(b.wake)
			return true
		}
		b.mu.Unlock()
		select {
		case <-b.space:
		case <-closing:
			return false
		}
	}
}

// finish says the reader is done; the pump returns once it has delivered
// what is queued.
func (b *inbox) finish() {
	b.mu.Lock()
	b.done = true
	b.mu.Unlock()
	notify(b.wake)
}

// pump delivers the queue on out in order until the reader has finished
// and everything is delivered, or until closing is closed.
func (b *inbox) pump(out chan<- Incoming, closing <-chan struct{}) {
	for {
		b.mu.Lock()
		if len(b.q) == 0 {
			done := b.done
			b.mu.Unlock()
			if done {
				return
			}
			select {
			case <-b.wake:
			case <-closing:
				return
			}
			continue
		}
		in := b.q[0]
		b.mu.Unlock()
		select {
		case out <- in:
		case <-closing:
			return
		}
		b.mu.Lock()
		b.q[0] = Incoming{}
		b.q = b.q[1:]
		b.bytes -= len(in.Msg)
		b.mu.Unlock()
		notify(b.space)
	}
}

func notify(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
