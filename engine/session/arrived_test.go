package session

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/replayctl/replayctl/transport"
)

// queued is a connection like stdio's: a reader queues what the target
// writes, stamped when it is read, and one goroutine hands the queue on
// over an unbuffered Incoming (transport's inbox). Every request is
// answered at once; the Send of a request slow names is taken only
// after hold (a target that reads its stdin slowly).
type queued struct {
	slow map[string]bool
	hold time.Duration

	mu      sync.Mutex
	q       []transport.Incoming
	arrived uint64
	wake    chan struct{}
	in      chan transport.Incoming
	closing chan struct{}
	once    sync.Once
	done    sync.WaitGroup
}

func newQueued(slow map[string]bool, hold time.Duration) *queued {
	c := &queued{slow: slow, hold: hold, wake: make(chan struct{}, 1), in: make(chan transport.Incoming), closing: make(chan struct{})}
	c.done.Go(c.pump)
	return c
}

func (c *queued) Send(ctx context.Context, msg []byte) error {
	if c.slow[string(msg)] {
		select {
		case <-time.After(c.hold):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	c.mu.Lock()
	for _, a := range echo(msg) {
		c.q = append(c.q, transport.Incoming{Msg: a, At: time.Now()})
		c.arrived++
	}
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return nil
}

// Arrived is how many messages the connection has queued
// (transport.ArrivalCounter), as stdio's counts what it read.
func (c *queued) Arrived() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.arrived
}

func (c *queued) pump() {
	defer close(c.in)
	for {
		c.mu.Lock()
		if len(c.q) == 0 {
			c.mu.Unlock()
			select {
			case <-c.wake:
				continue
			case <-c.closing:
				return
			}
		}
		in := c.q[0]
		c.mu.Unlock()
		select {
		case c.in <- in:
		case <-c.closing:
			return
		}
		c.mu.Lock()
		c.q = c.q[1:]
		c.mu.Unlock()
	}
}

func (c *queued) Incoming() <-chan transport.Incoming { return c.in }
func (c *queued) Err() error                          { return nil }
func (c *queued) Close() error {
	c.once.Do(func() { close(c.closing) })
	c.done.Wait()
	return nil
}

// TestAnswerInTimeWhileTheActorSends: a request whose answer the
// connection had read well within the timeout is answered, not timed
// out, when the actor was busy sending (a target slow to take a request,
// its stdin full) until after the deadline: the deadline timer and the
// answers waiting on the connection are both ready then, and the actor
// takes what had arrived before it judges a deadline. Here 400 requests
// are answered at once, and the Sends of the 200th and the last take 3s
// each (synctest's clock): the first 199 are due by 5s, and the actor is
// back at 6s.
func TestAnswerInTimeWhileTheActorSends(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 400
		its := calls(t, n)
		slow := map[string]bool{string(its[2*200].Out): true, string(its[2*n].Out): true}
		c := newQueued(slow, 3*time.Second)
		e := env(t, &dialer{c: c}, fast)
		e.Order = OrderNone
		s, err := replay(t, e, its)
		if err != nil {
			t.Fatal(err)
		}
		var timedOut []int64
		for seq, o := range s.bySeq() {
			if o.Timeout {
				timedOut = append(timedOut, seq)
			}
		}
		slices.Sort(timedOut)
		if len(timedOut) > 0 {
			t.Errorf("%d requests timed out (seqs %v), want none: each answer was read at once, within the 5s timeout", len(timedOut), timedOut)
		}
	})
}
