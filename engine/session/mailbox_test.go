package session

import (
	"sync"
	"testing"
)

// No wake-up is lost: with many producers putting and asking at once,
// and a timer's signal besides, an actor that takes only after a wake-up
// takes every item, and whenever the mailbox holds something a wake-up
// is waiting for it (the put that found it empty gave one).
func TestMailboxNoLostWakeUp(t *testing.T) {
	const producers, each = 8, 2000
	m := newMailbox()
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for i := range each {
				if i%97 == 0 {
					if !m.ask(actorReq{done: make(chan error, 1)}) {
						t.Error("ask: the actor is gone")
						return
					}
					continue
				}
				if !m.put(&Item{Epoch: uint64(p)}) {
					t.Error("put: the actor is gone")
					return
				}
				if i%501 == 0 {
					m.signal() // a deadline timer's fire
				}
			}
		})
	}
	allPut := make(chan struct{})
	go func() { wg.Wait(); close(allPut) }()
	got, asked := 0, 0
	take := func() {
		items, reqs, _ := m.take()
		got += len(items)
		clear(items) // as handleMail does before the next take
		asked += len(reqs)
	}
	want := 0
	for i := range each {
		if i%97 != 0 {
			want++
		}
	}
	want *= producers
	for done := false; !done; {
		select {
		case <-m.wake:
			take()
		case <-allPut:
			// Nothing is put any more: what is left needs a wake-up.
			for {
				select {
				case <-m.wake:
					take()
					continue
				default:
				}
				break
			}
			if m.mu.Lock(); len(m.items) > 0 || len(m.reqs) > 0 {
				t.Errorf("the mailbox holds %d items and %d requests and no wake-up waits for them", len(m.items), len(m.reqs))
			}
			m.mu.Unlock()
			done = true
		}
	}
	if got != want {
		t.Errorf("took %d items, want %d", got, want)
	}
	if wantAsked := producers * ((each + 96) / 97); asked != wantAsked {
		t.Errorf("took %d requests, want %d", asked, wantAsked)
	}
	if n := m.shut(); n != 0 {
		t.Errorf("shut: %d items never taken", n)
	}
}
