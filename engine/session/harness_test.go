package session

// A harness that runs one actor against a real target (the built-in mock,
// which answers from the tape) or a scripted connection, and records what
// it reports.

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mock"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

const quickstart = "../../examples/quickstart.jsonl"

// recSink records what an actor reports.
type recSink struct {
	mu       sync.Mutex
	outcomes []*Outcome
	released int
	counts   map[Counter]int
	sent     []int64
	ends     int
	ended    int
}

func (s *recSink) Outcome(_ context.Context, o *Outcome) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.outcomes = append(s.outcomes, o)
	return nil
}

func (s *recSink) Release(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.released += n
}

func (s *recSink) Count(c Counter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.counts == nil {
		s.counts = make(map[Counter]int)
	}
	s.counts[c]++
}

func (s *recSink) Sent(it *Item) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, it.Rec.Seq)
}

func (s *recSink) End(uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ends++
	return true
}

func (s *recSink) Ended(*Actor) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended++
}

// bySeq is the outcome of each seq (the last one, for seq -1).
func (s *recSink) bySeq() map[int64]*Outcome {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := make(map[int64]*Outcome)
	for _, o := range s.outcomes {
		m[o.Req.Rec.Seq] = o
	}
	return m
}

// env is a test environment: fast, causal, a 5s timeout, the target d.
func env(t testing.TB, d transport.Dialer, speed scheduler.Speed) *Env {
	var live atomic.Int64
	var epoch atomic.Uint64
	return &Env{
		Dialer: d, Timeout: 5 * time.Second, AskWait: 5 * time.Second, MaxInflight: 1000, MaxRetries: 3, Spin: scheduler.DefaultSpin,
		Order: OrderCausal, Log: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.WarnLevel),
		Timing: scheduler.NewShared(speed),
		Speed:  func() scheduler.Speed { return speed },
		Epoch:  epoch.Load,
		Live:   live.Load,
	}
}

var fast = scheduler.Speed{Mode: scheduler.Fast}

// items reads a tape's messages as the engine's transform stage hands
// them on (each request keeps its recorded id).
func items(t testing.TB, path string) []*Item {
	t.Helper()
	r, err := tape.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []*Item
	for {
		m, err := r.Next()
		if err != nil {
			break
		}
		rpc, err := jsonrpc.Parse(m.Msg)
		if err != nil {
			t.Fatal(err)
		}
		it := &Item{Rec: m, RPC: rpc, Out: m.Msg}
		if m.Dir == tape.C2S && rpc.Kind == jsonrpc.KindRequest {
			it.SentID = rpc.ID
		}
		out = append(out, it)
	}
	return out
}

// replay runs one actor for session "s1" over its, returning the sink
// and Run's error.
func replay(t testing.TB, e *Env, its []*Item) (*recSink, error) {
	t.Helper()
	s, _, err := replayed(t, e, its)
	return s, err
}

// replayed is replay, with the actor too: its state may be looked at once
// Run has returned.
func replayed(t testing.TB, e *Env, its []*Item) (*recSink, *Actor, error) {
	t.Helper()
	s := &recSink{}
	a := New(e, s, "s1", time.Now())
	done := make(chan error, 1)
	go func() { done <- a.Run(context.Background()) }()
	for _, it := range its {
		if !a.Put(it) {
			break // it has returned (Run's error says why)
		}
	}
	a.Close()
	err := <-done
	if s.ended != 1 {
		t.Errorf("Ended %d times, want once", s.ended)
	}
	return s, a, err
}

// mockOf is the built-in mock of a tape.
func mockOf(path string) transport.Dialer { return mock.FromSource(tape.File(path)) }

// scripted is a connection that answers each request with answer(msg)
// (nil: no answer) and can fail sends.
type scripted struct {
	mu     sync.Mutex
	in     chan transport.Incoming
	answer func(msg []byte) [][]byte
	fail   func(n int, msg []byte) error // the nth send (from 1)
	sends  int
	got    [][]byte
	closed bool
	own    bool // a server of its own (stdio's): transport.OwnServer
}

// OwnServer says whether c stands for a connection to a server of its
// own (stdio), one a reconnect does not reach again.
func (c *scripted) OwnServer() bool { return c.own }

func (c *scripted) Send(ctx context.Context, msg []byte) error {
	c.mu.Lock()
	c.sends++
	n := c.sends
	c.got = append(c.got, slices.Clone(msg))
	c.mu.Unlock()
	if c.fail != nil {
		if err := c.fail(n, msg); err != nil {
			return err
		}
	}
	if c.answer == nil {
		return nil
	}
	for _, a := range c.answer(msg) {
		select {
		case c.in <- transport.Incoming{Msg: a, At: time.Now()}:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (c *scripted) Incoming() <-chan transport.Incoming { return c.in }
func (c *scripted) Err() error                          { return nil }
func (c *scripted) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.closed = true
		close(c.in)
	}
	return nil
}

func (c *scripted) sent() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.got)
}

// dialer gives c to the first Dial, and fails later ones.
type dialer struct{ c transport.Conn }

func (d *dialer) Dial(context.Context, string) (transport.Conn, error) {
	if d.c == nil {
		return nil, errors.New("no more connections")
	}
	c := d.c
	d.c = nil
	return c, nil
}

// echo answers a request with a result that echoes nothing; notifications
// get no answer.
func echo(msg []byte) [][]byte {
	rpc, err := jsonrpc.Parse(msg)
	if err != nil || rpc.Kind != jsonrpc.KindRequest {
		return nil
	}
	return [][]byte{[]byte(`{"jsonrpc":"2.0","id":` + string(rpc.ID) + `,"result":{}}`)}
}
