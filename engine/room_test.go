package engine

import (
	"sync/atomic"
	"testing"
)

// TestRouterWokenPerRunOfRoom: a router held at the read-ahead limit is
// woken once the sessions have taken a run of items (roomSlack), not for
// every item they take: 10,000 items taken one at a time, the router
// reading up to the limit at each wake-up, wake it at most once per
// roomSlack items (each item woke it before).
func TestRouterWokenPerRunOfRoom(t *testing.T) {
	var live atomic.Int64
	live.Store(50)
	r := &router{live: &live, room: make(chan struct{}, 1)}
	limit := r.queueLimit()
	r.queued.Store(limit)
	const taken = 10_000
	wakeups := 0
	for range taken {
		r.release(1)
		select {
		case <-r.room:
			wakeups++
			for r.queued.Load() < limit { // the router reads up to the limit
				r.queued.Add(1)
			}
		default:
		}
	}
	if most := taken/int(roomSlack(limit)) + 1; wakeups > most {
		t.Errorf("%d wake-ups of the router for %d items taken, want at most %d", wakeups, taken, most)
	}
	if wakeups == 0 {
		t.Error("the router was never woken")
	}
	// Below the limit less the slack it is woken at every release: a
	// session waiting for more input is never left without it.
	r.queued.Store(limit - roomSlack(limit) - 10)
	r.release(1)
	select {
	case <-r.room:
	default:
		t.Error("not woken with room for a run")
	}
}
