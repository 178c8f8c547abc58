package session

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/transport"
)

// slowHandshake is a target that answers initialize after lag (the
// handshake of a server that is slow to start) and every other request
// at once.
type slowHandshake struct {
	lag  time.Duration
	in   chan transport.Incoming
	wg   sync.WaitGroup
	once sync.Once
	done chan struct{}
}

func (c *slowHandshake) Send(ctx context.Context, msg []byte) error {
	ans := echo(msg)
	if len(ans) == 0 {
		return nil
	}
	if rpc, err := jsonrpc.Parse(msg); err == nil && rpc.Method == mcp.MethodInitialize {
		c.wg.Go(func() {
			select {
			case <-time.After(c.lag): // the server's own latency, in synctest's time
			case <-c.done:
				return
			}
			select {
			case c.in <- transport.Incoming{Msg: ans[0], At: time.Now()}:
			case <-c.done:
			}
		})
		return nil
	}
	select {
	case c.in <- transport.Incoming{Msg: ans[0], At: time.Now()}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *slowHandshake) Incoming() <-chan transport.Incoming { return c.in }
func (c *slowHandshake) Err() error                          { return nil }
func (c *slowHandshake) Close() error {
	c.once.Do(func() { close(c.done) })
	c.wg.Wait()
	return nil
}

// TestClockStartsAtTheHandshakesAnswer: at the recorded pace the
// session's clock starts again when the live handshake is answered, in
// every order: the calls recorded after initialize's answer go out at
// their recorded distance from that answer, counted from the live one
// (30 ms, or 1 s: later than the first ping is due by the clock started
// at initialize's send), not from when initialize was sent. Recorded:
// initialize at 0, its answer at 100 ms, ping i at (2i)·100 ms. With
// --order none and a 1 s handshake the pings went out at 200-1000 ms
// before the fix, before initialize was answered.
func TestClockStartsAtTheHandshakesAnswer(t *testing.T) {
	for _, tt := range []struct {
		o   Order
		lag time.Duration
	}{
		{OrderCausal, 30 * time.Millisecond}, {OrderCausal, time.Second},
		{OrderSequential, time.Second},
		{OrderNone, 30 * time.Millisecond}, {OrderNone, time.Second},
	} {
		o, lag := tt.o, tt.lag
		t.Run(fmt.Sprintf("%s/lag=%v", o, lag), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				its := calls(t, 5)
				c := &slowHandshake{lag: lag, in: make(chan transport.Incoming, 16), done: make(chan struct{})}
				e := env(t, &dialer{c: c}, scheduler.Speed{Mode: scheduler.Realtime})
				e.Order = o
				start := time.Now()
				s, err := replay(t, e, its)
				if err != nil {
					t.Fatal(err)
				}
				answered := start.Add(lag) // initialize sent at once, at start
				for seq, o := range s.bySeq() {
					if its[seq].RPC.Method != "ping" {
						continue
					}
					// Due at its recorded distance from the recorded answer (100 ms).
					want := answered.Add(time.Duration(its[seq].Rec.TUS-its[1].Rec.TUS) * time.Microsecond)
					if got := o.Sent; !got.Equal(want) {
						t.Errorf("seq %d sent at %v from the start, want %v (%v after the live answer)", seq, got.Sub(start), want.Sub(start), want.Sub(answered))
					}
				}
			})
		})
	}
}

// TestHandshakeHoldToldAsHandshake: the wait for initialize's answer
// that holds the session in every order is told as hold reason
// "handshake" (events, metrics, the trace and the browser view carry
// it); with --order none it was told as "order", a rule that order does
// not have. The pings held later by the causal and sequential order rule
// are still told as "order".
func TestHandshakeHoldToldAsHandshake(t *testing.T) {
	for _, o := range []Order{OrderCausal, OrderSequential, OrderNone} {
		t.Run(fmt.Sprint(o), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				its := calls(t, 3)
				c := &slowHandshake{lag: time.Second, in: make(chan transport.Incoming, 16), done: make(chan struct{})}
				e := env(t, &dialer{c: c}, scheduler.Speed{Mode: scheduler.Realtime})
				e.Order = o
				var evs []event.Event
				e.Events = event.New(time.Now(), []event.Consumer{{Name: "test", Handle: func(b []event.Event) error {
					evs = append(evs, b...)
					return nil
				}}})
				if _, err := replay(t, e, its); err != nil {
					t.Fatal(err)
				}
				if err := e.Events.Close(); err != nil {
					t.Fatal(err)
				}
				var held []event.Event
				for _, ev := range evs {
					if ev.Type == event.Held {
						held = append(held, ev)
					}
				}
				// The first hold is initialize's answer's (at its recorded
				// answer, seq 1, or the first ping, seq 2: where the order
				// holds the session first); none after it is.
				if len(held) == 0 || held[0].Seq > 2 || held[0].Reason != "handshake" {
					t.Fatalf("holds %+v, want the first at seq 1 or 2 for \"handshake\"", held)
				}
				for _, ev := range held[1:] {
					if ev.Reason == "handshake" {
						t.Errorf("seq %d held for \"handshake\" after the handshake (holds: %+v)", ev.Seq, held)
					}
				}
			})
		})
	}
}
