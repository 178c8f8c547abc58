package session

// What an actor reports when its target fails, and where the time of a
// send is read.

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/replayctl/replayctl/transport"
)

// dyingConn is a scripted connection that reports a failure (Err) once
// it is closed, as a server process that exited does.
type dyingConn struct{ *scripted }

func (d dyingConn) Err() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errors.New("target exited")
	}
	return nil
}

// TestTargetFailureKeepsOutcomeOrder: when the target fails, the
// requests abandoned in flight are reported after the answers the actor
// had judged already, with a sink that takes batches as with one that
// takes outcomes one by one: in the order they were sent.
func TestTargetFailureKeepsOutcomeOrder(t *testing.T) {
	run := func(s Sink) error {
		var c *scripted
		c = &scripted{in: make(chan transport.Incoming, 8), answer: func(msg []byte) [][]byte {
			if string(msg) == pingReq { // the target exits on the ping, unanswered
				c.Close()
				return nil
			}
			return echo(msg)
		}}
		a := New(env(t, &dialer{c: dyingConn{c}}, fast), s, "s1", time.Now())
		for _, it := range msgs(t, "c2s", initReq, "s2c", initResp, "c2s", listReq, "s2c", listResp, "c2s", pingReq, "s2c", pingResp) {
			a.Put(it)
		}
		a.Close()
		return a.Run(context.Background())
	}
	one := &recSink{}
	if err := run(one); !errors.Is(err, ErrTarget) {
		t.Fatalf("one by one: Run = %v, want an error wrapping ErrTarget", err)
	}
	var want []int64
	for _, o := range one.outcomes {
		want = append(want, o.Req.Rec.Seq)
	}
	if !slices.IsSorted(want) || len(want) != 3 {
		t.Fatalf("one by one: seqs %v, want the three requests' in order", want)
	}
	b := &batchSink{}
	if err := run(b); !errors.Is(err, ErrTarget) {
		t.Fatalf("in batches: Run = %v, want an error wrapping ErrTarget", err)
	}
	if got := b.seqs(); !slices.Equal(got, want) {
		t.Errorf("in batches: seqs %v, want %v (as one by one)", got, want)
	}
	last := b.bySeq()[want[2]]
	if last == nil || !errors.Is(last.Err, ErrTarget) {
		t.Errorf("the abandoned ping's outcome %+v, want its error to wrap ErrTarget", last)
	}
}

// heldConn is a scripted connection whose Send holds its caller until
// the target answers (Streamable HTTP's: transport.ConcurrentSender), and
// fails as such a Send does once its ctx is done. It records when each
// message was sent.
type heldConn struct {
	*scripted
	mu    sync.Mutex
	times []time.Time
}

func (c *heldConn) SendsConcurrently() bool { return true }

func (c *heldConn) Send(ctx context.Context, msg []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	c.times = append(c.times, time.Now())
	c.mu.Unlock()
	return c.scripted.Send(ctx, msg)
}

// slowSink takes each outcome handed on alone after a while, as a
// validate stage backed up behind a lossless event consumer does.
type slowSink struct {
	batchSink
	delay time.Duration
}

func (s *slowSink) Outcome(ctx context.Context, o *Outcome) error {
	time.Sleep(s.delay)
	return s.batchSink.Outcome(ctx, o)
}

const initializedNote = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

// TestBlockedFlushIsNotSendTime: before a Send that holds it, the actor
// hands on what it kept, which may wait for the sink; that wait is not
// the message's send time and does not eat into its deadline. The
// outcome says the message was sent when the connection got it, and the
// Send got its whole time.
func TestBlockedFlushIsNotSendTime(t *testing.T) {
	for _, tc := range []struct {
		name  string
		delay time.Duration // the sink's, in the flush before the note
	}{
		{"within the timeout", 2 * time.Second},
		{"beyond the timeout", 6 * time.Second}, // env's Timeout is 5s
	} {
		t.Run(tc.name, func(t *testing.T) { blockedFlush(t, tc.delay) })
	}
}

func blockedFlush(t *testing.T, delay time.Duration) {
	synctest.Test(t, func(t *testing.T) {
		c := &heldConn{scripted: &scripted{in: make(chan transport.Incoming, 8), answer: echo}}
		e := env(t, &dialer{c: c}, fast)
		s := &slowSink{delay: delay}
		a := New(e, s, "s1", time.Now())
		for _, it := range msgs(t, "c2s", initReq, "s2c", initResp, "c2s", initializedNote) {
			a.Put(it)
		}
		a.Close()
		if err := a.Run(context.Background()); err != nil {
			t.Fatalf("Run = %v, want nil", err)
		}
		note := s.bySeq()[2]
		if note == nil {
			t.Fatalf("no outcome for the note; outcomes %v", s.seqs())
		}
		if note.Err != nil {
			t.Errorf("the note's outcome: error %v, want none", note.Err)
		}
		if len(c.times) != 2 {
			t.Fatalf("the connection got %d messages, want 2", len(c.times))
		}
		if !note.Sent.Equal(c.times[1]) {
			t.Errorf("the note's outcome says sent at %v, the connection got it at %v", note.Sent, c.times[1])
		}
	})
}
