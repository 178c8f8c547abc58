package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/streamhold"
	"github.com/replayctl/replayctl/scheduler"
)

// TestInterruptedMockReadHeld: a run against the built-in mock, which
// streams the tape to the replay while it indexes it, returns when its
// ctx is done while the mock's read of the tape is still held, not once
// the read has ended: neither the loader (waiting for the next batch)
// nor the session-end scan (asking the mock for each session's last
// seq) waits for the rest of the tape.
func TestInterruptedMockReadHeld(t *testing.T) {
	path := writeTape(t, t.TempDir(), 2000, 10, nil)
	held := make(chan struct{}, 1)
	gate := make(chan struct{})
	streamhold.Batch = func(halted <-chan struct{}) {
		select {
		case held <- struct{}{}:
		default:
		}
		select {
		case <-gate:
		case <-halted:
		}
	}
	released := false
	release := func() {
		if !released {
			released = true
			close(gate)
		}
	}
	defer func() { streamhold.Batch = nil }() // after Run has returned: its end waits for the read
	defer release()

	e, err := New(withMock(Config{Tape: path, Speed: scheduler.Speed{Mode: scheduler.Fast}}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := e.Run(ctx)
		done <- err
	}()
	<-held // the read holds after its first batch handed over
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second): // a bound, not a wait: Run returns at once or never
		t.Error("Run still waits for the mock's held read of the tape, want it to return when its ctx is done")
		release()
		<-done
	}
}
