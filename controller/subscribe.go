package controller

import "sync"

// subscribers is the set of status subscribers. A mutex guards it, rather
// than the controller's goroutine, so that Subscribe and its cancel work
// before Run and after it returned.
type subscribers struct {
	mu     sync.Mutex // guards everything below
	set    map[*subscriber]struct{}
	last   Status // the last status published
	closed bool   // Run has returned: channels are closed
}

type subscriber struct {
	ch      chan Status
	dropped int64
}

// Subscribe returns a channel of status updates, starting with the current
// status, and a function that ends the subscription and closes the channel
// (it can be called more than once). buf is the channel's buffer (at least
// 1). A subscriber that does not keep up loses the oldest updates: the
// newest is always delivered, and Status.Dropped counts what was lost. The
// controller never waits for a subscriber. The channel is closed when Run
// returns, after a last status (state stopped).
func (c *Controller) Subscribe(buf int) (<-chan Status, func()) {
	return c.subs.add(max(buf, 1))
}

func (s *subscribers) add(buf int) (<-chan Status, func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sub := &subscriber{ch: make(chan Status, buf)}
	sub.ch <- s.last
	if s.closed {
		close(sub.ch)
		return sub.ch, func() {}
	}
	if s.set == nil {
		s.set = make(map[*subscriber]struct{})
	}
	s.set[sub] = struct{}{}
	return sub.ch, func() { s.remove(sub) }
}

func (s *subscribers) remove(sub *subscriber) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.set[sub]; ok {
		delete(s.set, sub)
		close(sub.ch)
	}
}

// publish offers st to every subscriber without blocking: when a
// subscriber's buffer is full, its oldest update is dropped and counted.
func (s *subscribers) publish(st Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last = st
	for sub := range s.set {
		sub.offer(st)
	}
}

func (sub *subscriber) offer(st Status) {
	for {
		st.Dropped = sub.dropped
		select {
		case sub.ch <- st:
			return
		default:
		}
		// Full: drop the oldest. Only this goroutine sends, so after a
		// receive there is room, unless the reader took it first, in
		// which case there is room too.
		select {
		case <-sub.ch:
			sub.dropped++
		default:
		}
	}
}

// dropped sums the updates lost by all subscribers.
func (s *subscribers) dropped() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for sub := range s.set {
		n += sub.dropped
	}
	return n
}

// closeAll closes every channel; later subscribers get the last status on
// a closed channel.
func (s *subscribers) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for sub := range s.set {
		close(sub.ch)
	}
	s.set, s.closed = nil, true
}
