package session

// What an actor reports when its target fails, and where the time of a
// send is read.

import (
	"context"
	"errors"
	"slices"
	"testing"
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
