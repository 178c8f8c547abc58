package session

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/replayctl/replayctl/transport"
)

// batchSink is a recSink that takes batches too (BatchSink), and counts
// its hand-offs: each call of Outcome or Outcomes.
type batchSink struct {
	recSink
	mu       sync.Mutex
	handoffs int
	sizes    []int
}

var _ BatchSink = (*batchSink)(nil)

func (s *batchSink) Outcome(ctx context.Context, o *Outcome) error {
	s.count(1)
	return s.recSink.Outcome(ctx, o)
}

func (s *batchSink) Outcomes(ctx context.Context, b []*Outcome) error {
	s.count(len(b))
	for _, o := range b {
		if err := s.recSink.Outcome(ctx, o); err != nil {
			return err
		}
	}
	return nil
}

func (s *batchSink) count(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handoffs++
	s.sizes = append(s.sizes, n)
}

func (s *batchSink) seqs() []int64 {
	s.recSink.mu.Lock()
	defer s.recSink.mu.Unlock()
	var seqs []int64
	for _, o := range s.outcomes {
		seqs = append(seqs, o.Req.Rec.Seq)
	}
	return seqs
}

// calls is a session of n ping requests, each followed by its recorded
// answer, after the handshake.
func calls(t testing.TB, n int) []*Item {
	lines := []string{"c2s", initReq, "s2c", initResp}
	for i := 1; i <= n; i++ {
		lines = append(lines, "c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i),
			"s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, i))
	}
	return msgs(t, lines...)
}

// TestOutcomesHandedOnInBatches: with a sink that takes batches, an actor
// whose target answers at once hands its outcomes on in a few batches
// (at most maxBatch each), not one by one; each outcome once, in the
// order a sink that takes them one by one gets them.
func TestOutcomesHandedOnInBatches(t *testing.T) {
	const n = 500
	run := func(s Sink) {
		its := calls(t, n)
		c := &scripted{in: make(chan transport.Incoming, 8), answer: echo}
		a := New(env(t, &dialer{c: c}, fast), s, "s1", time.Now())
		for _, it := range its { // all in the mailbox before the actor runs
			a.Put(it)
		}
		a.Close()
		if err := a.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	one := &recSink{}
	run(one)
	batched := &batchSink{}
	run(batched)
	var want []int64
	for _, o := range one.outcomes {
		want = append(want, o.Req.Rec.Seq)
	}
	if got := batched.seqs(); !slices.Equal(got, want) {
		t.Fatalf("batched outcomes in seq order %v, want %v (as one by one)", got, want)
	}
	if len(want) != n+1 { // a request's outcome carries its recorded answer
		t.Fatalf("%d outcomes, want %d", len(want), n+1)
	}
	// 501 outcomes in batches of up to 64: 8 hand-offs, and a few more
	// where the actor waited (for its connection, at the end).
	if batched.handoffs > len(want)/maxBatch+8 {
		t.Errorf("%d hand-offs for %d outcomes (sizes %v), want at most %d", batched.handoffs, len(want), batched.sizes, len(want)/maxBatch+8)
	}
	for _, size := range batched.sizes {
		if size > maxBatch {
			t.Errorf("a batch of %d outcomes, want at most %d", size, maxBatch)
		}
	}
}

// TestOutcomesHandedOnBeforeTheActorWaits: an outcome kept for a batch
// goes on as soon as the actor has nothing more to do, not when a batch
// is full: here the first request's verdict reaches the sink while the
// actor waits for the second request's answer, which does not come.
func TestOutcomesHandedOnBeforeTheActorWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &scripted{in: make(chan transport.Incoming, 8), answer: func(msg []byte) [][]byte {
			if string(msg) == pingReq { // the second request: no answer
				return nil
			}
			return echo(msg)
		}}
		e := env(t, &dialer{c: c}, fast)
		s := &batchSink{}
		a := New(e, s, "s1", time.Now())
		done := make(chan error, 1)
		go func() { done <- a.Run(context.Background()) }()
		for _, it := range msgs(t, "c2s", initReq, "s2c", initResp, "c2s", listReq, "s2c", listResp, "c2s", pingReq, "s2c", pingResp) {
			a.Put(it)
		}
		synctest.Wait() // the actor waits for ping's answer (or its timeout, 5s of fake time away)
		got := s.bySeq()
		if got[0] == nil || got[2] == nil || got[0].Actual == nil || got[2].Actual == nil {
			t.Errorf("while the actor waits: outcomes %v, want initialize (seq 0) and tools/list (seq 2) answered", s.seqs())
		}
		if got[4] != nil {
			t.Errorf("ping (seq 4) reported before its answer or timeout: %+v", got[4])
		}
		a.Close()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if o := s.bySeq()[4]; o == nil || !o.Timeout {
			t.Errorf("ping: %+v, want timed out", o)
		}
	})
}

// refusingSink is a batchSink that takes nothing while its caller's ctx
// may still be cancelled: it waits for ctx to be done and refuses. A ctx
// that cannot be cancelled (the actor's last flush) it takes.
type refusingSink struct {
	batchSink
	refused chan struct{} // closed at the first refusal
	once    sync.Once
}

func (s *refusingSink) refuse(ctx context.Context) error {
	if ctx.Done() == nil {
		return nil
	}
	<-ctx.Done()
	s.once.Do(func() { close(s.refused) })
	return ctx.Err()
}

func (s *refusingSink) Outcome(ctx context.Context, o *Outcome) error {
	if err := s.refuse(ctx); err != nil {
		return err
	}
	return s.batchSink.Outcome(ctx, o)
}

func (s *refusingSink) Outcomes(ctx context.Context, b []*Outcome) error {
	if err := s.refuse(ctx); err != nil {
		return err
	}
	return s.batchSink.Outcomes(ctx, b)
}

// TestOutcomesKeptWhenTheSinkRefuses: outcomes the sink did not take
// before the replay was interrupted are handed on at the actor's return,
// every one, in order: a verdict reached before an interrupt is not lost.
func TestOutcomesKeptWhenTheSinkRefuses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &scripted{in: make(chan transport.Incoming, 8), answer: echo}
		s := &refusingSink{refused: make(chan struct{})}
		a := New(env(t, &dialer{c: c}, fast), s, "s1", time.Now())
		for _, it := range calls(t, 3) {
			a.Put(it)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- a.Run(ctx) }()
		synctest.Wait() // the actor waits for the sink to take its outcomes
		cancel()
		<-s.refused
		<-done
		if got, want := s.seqs(), []int64{0, 2, 4, 6}; !slices.Equal(got, want) {
			t.Errorf("outcomes after the interrupt: seqs %v, want %v", got, want)
		}
	})
}
