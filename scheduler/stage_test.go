package scheduler

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

type item struct {
	seq    int
	offset time.Duration
	timing Timing
}

func itemOffset(it item) time.Duration { return it.offset }
func stampItem(it *item, t Timing)     { it.timing = t }

// received is an item as the next stage saw it.
type received struct {
	seq int
	at  time.Duration // since start
	lag time.Duration
}

// stage runs Run over items (fed by a goroutine, sent as fast as Run takes
// them) and collects what comes out and when. control runs alongside, with
// the start time, to send speed or pause changes.
func stage(t *testing.T, ctx context.Context, p *Pacer, offsets []time.Duration, control func(start time.Time)) ([]received, error) {
	t.Helper()
	in, out := make(chan item), make(chan item)
	start := time.Now()
	p.Start(start)
	go func() {
		defer close(in)
		for i, off := range offsets {
			select {
			case in <- item{seq: i, offset: off}:
			case <-ctx.Done():
				return
			}
		}
	}()
	if control != nil {
		go control(start)
	}
	errc := make(chan error, 1)
	go func() { errc <- Run(ctx, p, in, out, itemOffset, stampItem) }()
	var got []received
	for it := range out {
		got = append(got, received{seq: it.seq, at: time.Since(start), lag: it.timing.Lag})
	}
	return got, <-errc
}

func check(t *testing.T, got, want []received) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d items %v, want %d %v", len(got), got, len(want), want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("item %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestRunPaces(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := New(Speed{Mode: Scaled, Factor: 2})
		got, err := stage(t, t.Context(), p, []time.Duration{0, 100 * ms, 300 * ms}, nil)
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		check(t, got, []received{{0, 0, 0}, {1, 50 * ms, 0}, {2, 150 * ms, 0}})
	})
}

func TestRunSpeedChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		speeds := make(chan Speed)
		p := New(Speed{}, WithControl(speeds))
		offsets := []time.Duration{0, time.Second, 2 * time.Second, 6 * time.Second, 8 * time.Second}
		got, err := stage(t, t.Context(), p, offsets, func(start time.Time) {
			time.Sleep(time.Until(start.Add(3 * time.Second)))
			speeds <- Speed{Mode: Scaled, Factor: 4} // item 3 due at 6s: 3s left → 0.75s
			time.Sleep(time.Until(start.Add(4 * time.Second)))
			speeds <- Speed{Mode: Fixed, Interval: 100 * ms}
			close(speeds)
		})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		check(t, got, []received{
			{0, 0, 0}, {1, time.Second, 0}, {2, 2 * time.Second, 0},
			{3, 3750 * ms, 0},
			{4, 4100 * ms, 0}, // due 4.25s at 4x; at 4s fixed:100ms caps the 250ms left at one gap
		})
	})
}

func TestRunPauseResume(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pause := make(chan bool)
		p := New(Speed{}, WithPauseControl(pause))
		offsets := []time.Duration{0, time.Second, 3 * time.Second}
		got, err := stage(t, t.Context(), p, offsets, func(start time.Time) {
			time.Sleep(time.Until(start.Add(1500 * ms)))
			pause <- true
			time.Sleep(time.Until(start.Add(11500 * ms)))
			pause <- false
		})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		check(t, got, []received{{0, 0, 0}, {1, time.Second, 0}, {2, 13 * time.Second, 0}})
	})
}

func TestRunLagWhenDownstreamIsSlow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := New(Speed{Mode: Rate, RPS: 10})
		in, out := make(chan item, 3), make(chan item)
		for i := range 3 {
			in <- item{seq: i}
		}
		close(in)
		start := time.Now()
		p.Start(start)
		errc := make(chan error, 1)
		go func() { errc <- Run(t.Context(), p, in, out, nil, stampItem) }() // rps ignores offsets
		var lags []time.Duration
		for it := range out {
			time.Sleep(250 * ms) // the next stage is slow: items fall behind
			lags = append(lags, it.timing.Lag)
		}
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		// Item 1 is released on time (100ms) and then waits to be sent;
		// item 2, due at 200ms, reaches Wait at 250ms.
		want := []time.Duration{0, 0, 50 * ms}
		for i := range want {
			if lags[i] != want[i] {
				t.Errorf("item %d: lag %v, want %v", i, lags[i], want[i])
			}
		}
		if got := p.Stats(); got.Behind != 1 || got.MaxLag != 50*ms {
			t.Errorf("got %+v, want 1 behind, max lag 50ms", got)
		}
	})
}

func TestRunCancel(t *testing.T) {
	tests := []struct {
		name  string
		speed Speed
		block string // where Run is when ctx is cancelled
	}{
		{"waiting for due time", Speed{}, "wait"},
		{"waiting to send", Speed{Mode: Fast}, "send"},
		{"waiting for input", Speed{Mode: Fast}, "receive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				in, out := make(chan item), make(chan item)
				p := New(tt.speed)
				start := time.Now()
				p.Start(start)
				errc := make(chan error, 1)
				go func() { errc <- Run(ctx, p, in, out, itemOffset, nil) }()
				if tt.block != "receive" {
					in <- item{offset: time.Hour}
				}
				time.Sleep(time.Second)
				synctest.Wait()
				cancel()
				if err := <-errc; !errors.Is(err, context.Canceled) {
					t.Errorf("got %v, want context.Canceled", err)
				}
				if got := time.Since(start); got != time.Second {
					t.Errorf("stopped after %v, want 1s", got)
				}
				if _, ok := <-out; ok {
					t.Errorf("out delivered an item after cancel, want it closed")
				}
			})
		})
	}
}

func TestRunEmptyInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in, out := make(chan item), make(chan item)
		close(in)
		if err := Run(t.Context(), New(Speed{}), in, out, itemOffset, nil); err != nil {
			t.Errorf("got %v, want nil", err)
		}
		if _, ok := <-out; ok {
			t.Errorf("out not closed")
		}
	})
}

func TestRunPausedWithoutChannel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in, out := make(chan item, 1), make(chan item)
		in <- item{}
		p := New(Speed{})
		p.Pause(time.Now())
		if err := Run(t.Context(), p, in, out, itemOffset, nil); !errors.Is(err, ErrPaused) {
			t.Errorf("got %v, want ErrPaused", err)
		}
	})
}
