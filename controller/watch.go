package controller

import (
	"sync"
	"time"

	stream "github.com/replayctl/replayctl/engine/event"
)

// WatchBuffer is the buffer of the controller's consumer of the event
// stream (Watch), in events.
const WatchBuffer = stream.DefaultLiveBuffer

// Watch returns the controller's consumer of the replay's event stream
// (package event), whose times count from start: the engine adds it when
// a controller is attached, and the results the controller reports (its
// step results, Status.Last, in the control protocol) count their times
// from start too. It is a live consumer: when it is behind, the oldest
// events are dropped and counted (the report says so), and the replay
// never waits for it. Each event goes to every watcher (WatchEvents).
func (c *Controller) Watch(start time.Time) stream.Consumer {
	c.watchers.mu.Lock()
	c.watchers.start = start
	c.watchers.mu.Unlock()
	return stream.Consumer{Name: "control watchers", Live: true, Buffer: WatchBuffer, Handle: c.watchers.publish}
}

// Watcher is one subscription to the replay's events (WatchEvents).
type Watcher struct {
	// C delivers the events, in order; it is closed by Close, or when the
	// controller's Run has returned. Read-only fields of an event (its
	// Result, its Differences) are shared: do not change them.
	C <-chan stream.Event
	w *watcher
	s *watchers
}

// Lost counts the events this watcher lost because it did not read them
// in time (the oldest are dropped), since it began.
func (w *Watcher) Lost() int64 {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	return w.w.lost
}

// Close ends the subscription and closes C; it can be called more than
// once.
func (w *Watcher) Close() { w.s.remove(w.w) }

// WatchEvents subscribes to the replay's event stream, from now on: every
// event the stream hands the controller (Watch) goes to C, whose buffer
// is buf events (at least 1). A watcher that does not keep up loses the
// oldest events, counted in Lost; neither the controller nor the replay
// ever waits for it. C is closed when Run returns.
func (c *Controller) WatchEvents(buf int) *Watcher {
	return c.watchers.add(max(buf, 1))
}

// start is the replay's start (Watch), zero until the engine has begun.
func (c *Controller) start() time.Time {
	c.watchers.mu.Lock()
	defer c.watchers.mu.Unlock()
	return c.watchers.start
}

// watchers is the set of event watchers. A mutex guards it: the stream's
// goroutine publishes, any goroutine subscribes.
type watchers struct {
	mu     sync.Mutex // guards everything below
	set    map[*watcher]struct{}
	start  time.Time // the stream's start
	closed bool      // Run has returned: channels are closed
}

type watcher struct {
	ch   chan stream.Event
	lost int64
}

func (s *watchers) add(buf int) *Watcher {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := &watcher{ch: make(chan stream.Event, buf)}
	if s.closed {
		close(w.ch)
	} else {
		if s.set == nil {
			s.set = make(map[*watcher]struct{})
		}
		s.set[w] = struct{}{}
	}
	return &Watcher{C: w.ch, w: w, s: s}
}

func (s *watchers) remove(w *watcher) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.set[w]; ok {
		delete(s.set, w)
		close(w.ch)
	}
}

// publish offers each event of the batch to every watcher without
// blocking: when a watcher's buffer is full, its oldest event is dropped
// and counted. It is the stream consumer's Handle.
func (s *watchers) publish(batch []stream.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range s.set {
		for _, e := range batch {
			w.offer(e)
		}
	}
	return nil
}

func (w *watcher) offer(e stream.Event) {
	for {
		select {
		case w.ch <- e:
			return
		default:
		}
		// Full: drop the oldest. Only publish sends (under the mutex), so
		// after a receive there is room, unless the reader took it first,
		// in which case there is room too.
		select {
		case <-w.ch:
			w.lost++
		default:
		}
	}
}

// closeAll closes every channel; later watchers get a closed channel.
func (s *watchers) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range s.set {
		close(w.ch)
	}
	s.set, s.closed = nil, true
}
