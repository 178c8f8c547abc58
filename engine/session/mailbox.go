package session

// An actor's mailbox, and the count of actors at the end of the tape.

import (
	"context"
	"errors"
	"sync"
)

// mailbox is how an actor receives: the router and a controller put, the
// actor takes everything at once. Putting never blocks.
type mailbox struct {
	mu     sync.Mutex // guards the fields below; held only to append or swap
	items  []*Item
	spare  []*Item // the slice the actor gave back, reused
	reqs   []actorReq
	closed bool // no more items will come
	gone   bool // the actor has returned: nothing more is taken
	wake   chan struct{}
}

// actorReq is work for an actor's goroutine (a controller's seek or
// inject); done gets its error.
type actorReq struct {
	fn   func(context.Context, *Actor) error
	done chan error
}

func newMailbox() *mailbox { return &mailbox{wake: make(chan struct{}, 1)} }

// put adds an item; false when the actor has returned.
func (m *mailbox) put(it *Item) bool { return m.add(func() { m.items = append(m.items, it) }) }

// ask adds work for the actor; false when the actor has returned.
func (m *mailbox) ask(r actorReq) bool { return m.add(func() { m.reqs = append(m.reqs, r) }) }

// add runs appendTo under the lock, unless the actor has returned, and
// wakes the actor if the mailbox was empty. If it was not, the put that
// filled it woke the actor, which has not taken yet: its take, after that
// wake-up, takes this too. (A wake-up per item cost the router a channel
// send for each.)
func (m *mailbox) add(appendTo func()) bool {
	m.mu.Lock()
	if m.gone {
		m.mu.Unlock()
		return false
	}
	empty := len(m.items) == 0 && len(m.reqs) == 0
	appendTo()
	m.mu.Unlock()
	if empty {
		m.signal()
	}
	return true
}

func (m *mailbox) close() {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.signal()
}

func (m *mailbox) signal() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// take returns everything put since the last take, and whether the input
// has ended. The items slice is the actor's until its next take.
func (m *mailbox) take() (items []*Item, reqs []actorReq, closed bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	items = m.items
	// The slice the actor took last time is done with (takeMail clears
	// it before it takes again): it holds the next items.
	m.items, m.spare = m.spare[:0], items
	reqs, m.reqs = m.reqs, nil
	return items, reqs, m.closed
}

// shut marks the actor gone, fails the requests still waiting and
// returns how many items it never took.
func (m *mailbox) shut() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gone = true
	for _, r := range m.reqs {
		r.done <- errActorGone
	}
	n := len(m.items)
	m.items, m.reqs, m.spare = nil, nil, nil
	return n
}

var errActorGone = errors.New("the session has ended")
