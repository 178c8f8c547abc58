package controller

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// TestAdmitWithdraw: an Admit whose ctx is done leaves the gate; the
// controller does not count it, and Pause does not wait for it.
func TestAdmitWithdraw(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New(&fakeEngine{})
		var wg sync.WaitGroup
		defer wg.Wait()
		wg.Go(func() { _ = c.Run(t.Context()) })
		defer c.Stop(t.Context())
		if err := c.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		m := newTape(4, 0)[3].Msg
		ctx, cancel := context.WithCancel(t.Context())
		errc := make(chan error, 1)
		go func() { _, err := c.Admit(ctx, m, 0); errc <- err }()
		synctest.Wait()
		st, _ := c.Status(t.Context())
		if st.Seq != 3 {
			t.Fatalf("held: got seq %d, want 3", st.Seq)
		}
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
		if err := c.Pause(t.Context()); err != nil {
			t.Errorf("Pause: %v", err)
		}
		st, _ = c.Status(t.Context())
		if st.Seq != 0 || st.Released != 0 {
			t.Errorf("after withdraw: got seq %d released %d, want 0 and 0", st.Seq, st.Released)
		}
	})
}

func TestRunTwiceAndStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New(&fakeEngine{})
		// Stop before Run waits for Run (here: until ctx is done).
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		if err := c.Stop(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Stop before Run: got %v, want DeadlineExceeded", err)
		}
		if err := c.Run(t.Context()); err != nil {
			t.Errorf("Run after Stop: got %v, want nil at once", err)
		}
		if err := c.Run(t.Context()); !errors.Is(err, ErrAlreadyRunning) {
			t.Errorf("second Run: got %v, want ErrAlreadyRunning", err)
		}
		if err := c.Stop(t.Context()); err != nil {
			t.Errorf("Stop after Run: got %v, want nil", err)
		}
		if _, err := c.Admit(t.Context(), Msg{}, 0); !errors.Is(err, ErrStopped) {
			t.Errorf("Admit after Stop: got %v, want ErrStopped", err)
		}
		c.Sent(1) // must not block
		c.End()
		ch, unsub := c.Subscribe(0)
		defer unsub()
		st, ok := <-ch
		if !ok || st.State != Stopped {
			t.Errorf("Subscribe after Stop: got %v %v, want the stopped status", st.State, ok)
		}
		if _, ok := <-ch; ok {
			t.Errorf("Subscribe after Stop: got an open channel, want it closed")
		}
		if _, ok := <-c.PauseEvents(); ok {
			t.Errorf("PauseEvents after Stop: got an open channel, want it closed")
		}
	})
}

// TestInterruptStep: Interrupt cuts short a step that waits for its
// answer (Pause would wait for it); the answer is still counted when it
// comes, and the next step is not refused as busy.
func TestInterruptStep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New(&fakeEngine{})
		var wg sync.WaitGroup
		defer wg.Wait()
		wg.Go(func() { _ = c.Run(t.Context()) })
		defer c.Stop(t.Context())
		if err := c.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		tp := newTape(2, 0)
		admitted := make(chan error, 2)
		admit := func(m Msg) { _, err := c.Admit(t.Context(), m, 0); admitted <- err }
		go admit(tp[0].Msg)
		type stepped struct {
			n   int
			err error
		}
		steps := make(chan stepped, 1)
		go func() { rs, err := c.Step(t.Context(), 1); steps <- stepped{len(rs), err} }()
		if err := <-admitted; err != nil {
			t.Fatalf("Admit: %v", err)
		}
		c.Sent(0) // on the wire; its answer is awaited
		synctest.Wait()
		select {
		case s := <-steps:
			t.Fatalf("step returned %+v before its answer", s)
		default:
		}
		if err := c.Interrupt(t.Context()); err != nil {
			t.Fatalf("Interrupt: %v", err)
		}
		if s := <-steps; !errors.Is(s.err, ErrInterrupted) || s.n != 0 {
			t.Fatalf("interrupted step: got %d results and %v, want 0 and ErrInterrupted", s.n, s.err)
		}
		c.Judged(resultFor(tp[0].Msg))
		st, _ := c.Status(t.Context())
		if st.State != Paused || st.Judged != 1 {
			t.Errorf("after the late answer: got %s judged %d, want paused judged 1", st.State, st.Judged)
		}
		go admit(tp[1].Msg)
		go func() { rs, err := c.Step(t.Context(), 1); steps <- stepped{len(rs), err} }()
		if err := <-admitted; err != nil {
			t.Fatalf("Admit: %v", err)
		}
		c.Sent(1)
		c.Judged(resultFor(tp[1].Msg))
		if s := <-steps; s.err != nil || s.n != 1 {
			t.Errorf("next step: got %d results and %v, want 1 and no error", s.n, s.err)
		}
	})
}
