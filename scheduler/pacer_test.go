package scheduler

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// step is one Wait call in a pacer script: sleep first (fake time), then
// Wait for an item at offset, and expect its release time and lag.
type step struct {
	sleep    time.Duration // before the Wait
	offset   time.Duration
	released time.Duration // since start
	lag      time.Duration
}

func runSteps(t *testing.T, p *Pacer, start time.Time, steps []step) {
	t.Helper()
	for i, s := range steps {
		time.Sleep(s.sleep)
		tm, err := p.Wait(t.Context(), s.offset)
		if err != nil {
			t.Fatalf("item %d: Wait: %v", i, err)
		}
		if got := tm.Released.Sub(start); got != s.released {
			t.Errorf("item %d (offset %v): released at %v, want %v", i, s.offset, got, s.released)
		}
		if tm.Lag != s.lag {
			t.Errorf("item %d: lag %v, want %v", i, tm.Lag, s.lag)
		}
		if got, want := tm.Released.Sub(tm.Due), tm.Lag; got != want {
			t.Errorf("item %d: released-due %v, want the lag %v", i, got, want)
		}
	}
}

func TestPacerModes(t *testing.T) {
	tests := []struct {
		name  string
		speed Speed
		steps []step
	}{
		{"2x", Speed{Mode: Scaled, Factor: 2}, []step{
			{offset: 0, released: 0},
			{offset: 100 * ms, released: 50 * ms},
			{offset: 300 * ms, released: 150 * ms},
		}},
		{"realtime catches up without drift", Speed{}, []step{
			{offset: 0, released: 0},
			{sleep: 200 * ms, offset: 100 * ms, released: 200 * ms, lag: 100 * ms},
			{offset: 300 * ms, released: 300 * ms},
			{offset: 301 * ms, released: 301 * ms},
		}},
		{"fixed", Speed{Mode: Fixed, Interval: 50 * ms}, []step{
			{offset: time.Hour, released: 0},
			{offset: 0, released: 50 * ms},
			{sleep: 120 * ms, offset: 0, released: 170 * ms, lag: 70 * ms},
			{offset: 0, released: 170 * ms, lag: 20 * ms},
			{offset: 0, released: 200 * ms},
		}},
		{"rps", Speed{Mode: Rate, RPS: 4}, []step{
			{released: 0}, {released: 250 * ms}, {released: 500 * ms}, {released: 750 * ms},
		}},
		{"fast", Speed{Mode: Fast}, []step{
			{offset: time.Hour, released: 0},
			{sleep: 5 * ms, offset: 2 * time.Hour, released: 5 * ms},
		}},
		{"stepped", Speed{Mode: Stepped}, []step{
			{offset: time.Hour, released: 0}, {offset: 2 * time.Hour, released: 0},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := New(tt.speed)
				start := time.Now()
				p.Start(start)
				runSteps(t, p, start, tt.steps)
				if got, want := p.Stats().Released, int64(len(tt.steps)); got != want {
					t.Errorf("released %d, want %d", got, want)
				}
			})
		})
	}
}

func TestPacerStats(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := New(Speed{})
		start := time.Now()
		runSteps(t, p, start, []step{ // the first Wait starts the pacer
			{offset: 0, released: 0},
			{sleep: 30 * ms, offset: 10 * ms, released: 30 * ms, lag: 20 * ms},
			{sleep: 50 * ms, offset: 20 * ms, released: 80 * ms, lag: 60 * ms},
			{offset: 100 * ms, released: 100 * ms},
		})
		want := Stats{Released: 4, Behind: 2, TotalLag: 80 * ms, MaxLag: 60 * ms}
		if got := p.Stats(); got != want {
			t.Errorf("got %+v, want %+v", got, want)
		}
	})
}

func TestPacerSetSpeedBetweenWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := New(Speed{})
		start := time.Now()
		p.Start(start)
		runSteps(t, p, start, []step{{offset: 0, released: 0}})
		time.Sleep(6 * time.Second)
		p.SetSpeed(Speed{Mode: Scaled, Factor: 4}, time.Now()) // next item at 10s: 4s left → 1s
		runSteps(t, p, start, []step{
			{offset: 10 * time.Second, released: 7 * time.Second},
			{offset: 14 * time.Second, released: 8 * time.Second},
		})
		if got, want := p.Speed(), (Speed{Mode: Scaled, Factor: 4}); got != want {
			t.Errorf("speed %v, want %v", got, want)
		}
	})
}

func TestPacerControlDuringWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		speeds := make(chan Speed)
		p := New(Speed{}, WithControl(speeds))
		start := time.Now()
		p.Start(start)
		go func() {
			time.Sleep(6 * time.Second)
			speeds <- Speed{Mode: Scaled, Factor: 4}
			time.Sleep(500 * ms)
			speeds <- Speed{Mode: Fast} // the item is due at 7s: fast releases it now
			close(speeds)
		}()
		runSteps(t, p, start, []step{{offset: 10 * time.Second, released: 6500 * ms}})
		synctest.Wait()
		if _, err := p.Wait(t.Context(), 0); err != nil { // fast: only polls
			t.Fatal(err)
		}
		if p.speedCh != nil {
			t.Errorf("closed control channel still read")
		}
	})
}

func TestPacerPauseResume(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := New(Speed{Mode: Scaled, Factor: 2})
		start := time.Now()
		p.Start(start)
		runSteps(t, p, start, []step{{offset: 0, released: 0}})
		time.Sleep(time.Second)
		p.Pause(time.Now())
		p.Pause(time.Now()) // no effect
		if _, err := p.Wait(t.Context(), 4*time.Second); !errors.Is(err, ErrPaused) {
			t.Fatalf("Wait while paused: got %v, want ErrPaused", err)
		}
		time.Sleep(5 * time.Second)
		p.SetSpeed(Speed{Mode: Scaled, Factor: 1}, time.Now()) // counts from the pause: 1s left at 2x → 2s
		p.Resume(time.Now())
		p.Resume(time.Now()) // no effect
		runSteps(t, p, start, []step{
			{offset: 4 * time.Second, released: 8 * time.Second},
			{offset: 5 * time.Second, released: 9 * time.Second},
		})
	})
}

func TestPacerPauseControlDuringWait(t *testing.T) {
	tests := []struct {
		name     string
		speed    Speed
		released time.Duration
	}{
		// Due at 10s; paused at 4s with 6s left; resumed at 20s → 26s.
		{"realtime", Speed{}, 26 * time.Second},
		{"fast holds while paused", Speed{Mode: Fast}, 20 * time.Second},
		{"stepped ignores pause", Speed{Mode: Stepped}, 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				pause := make(chan bool)
				p := New(tt.speed, WithPauseControl(pause))
				start := time.Now()
				p.Start(start)
				go func() {
					time.Sleep(4 * time.Second)
					pause <- true
					time.Sleep(time.Until(start.Add(20 * time.Second)))
					pause <- false
				}()
				if tt.speed.Mode != Realtime {
					// Wait does not block in these modes: call it after
					// the pause was sent, so that its poll takes it.
					time.Sleep(5 * time.Second)
				}
				tm, err := p.Wait(t.Context(), 10*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				if got := tm.Released.Sub(start); got != tt.released {
					t.Errorf("released at %v, want %v", got, tt.released)
				}
				if tt.speed.Mode == Stepped {
					if !p.Paused() {
						t.Errorf("the pause was not applied")
					}
					<-pause // the resume, that no Wait was there to read
				}
			})
		})
	}
}

func TestPacerClosedPauseChannelResumes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pause := make(chan bool, 1)
		p := New(Speed{}, WithPauseControl(pause))
		start := time.Now()
		p.Start(start)
		pause <- true
		go func() {
			time.Sleep(3 * time.Second)
			close(pause)
		}()
		runSteps(t, p, start, []step{{offset: time.Second, released: 4 * time.Second}})
	})
}

func TestPacerRebase(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := New(Speed{Mode: Scaled, Factor: 2})
		start := time.Now()
		p.Start(start)
		runSteps(t, p, start, []step{{offset: 2 * time.Second, released: time.Second}})
		p.Rebase()
		runSteps(t, p, start, []step{
			{sleep: 5 * time.Second, offset: time.Minute, released: 6 * time.Second},
			{offset: time.Minute + 2*time.Second, released: 7 * time.Second},
		})
	})
}

func TestPacerCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		p := New(Speed{})
		start := time.Now()
		go func() {
			time.Sleep(2 * time.Second)
			cancel()
		}()
		_, err := p.Wait(ctx, time.Hour)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, want context.Canceled", err)
		}
		if got := time.Since(start); got != 2*time.Second {
			t.Errorf("returned after %v, want 2s", got)
		}
		if _, err := p.Wait(ctx, 0); !errors.Is(err, context.Canceled) {
			t.Errorf("Wait on a done ctx: got %v, want context.Canceled", err)
		}
		if got := p.Stats().Released; got != 0 {
			t.Errorf("released %d, want 0", got)
		}
	})
}

func TestPacerInvalidSpeed(t *testing.T) {
	tests := []struct {
		name string
		p    func() *Pacer
	}{
		{"New", func() *Pacer { return New(Speed{Mode: Rate}) }},
		{"SetSpeed", func() *Pacer {
			p := New(Speed{})
			p.SetSpeed(Speed{Mode: Fixed, Interval: -1}, time.Now())
			return p
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.p().Wait(t.Context(), 0)
			var se *SpeedError
			if !errors.As(err, &se) {
				t.Errorf("got %v, want a *SpeedError", err)
			}
		})
	}
}

// TestPacerRealClockNeverEarly runs on the real clock: whatever the spin
// setting, no item is released before its due time.
func TestPacerRealClockNeverEarly(t *testing.T) {
	for _, spin := range []time.Duration{0, 50 * time.Microsecond, time.Millisecond} {
		t.Run(spin.String(), func(t *testing.T) {
			p := New(Speed{Mode: Scaled, Factor: 10}, WithSpin(spin))
			p.Start(time.Now())
			for i := range 50 {
				tm, err := p.Wait(t.Context(), time.Duration(i)*ms)
				if err != nil {
					t.Fatal(err)
				}
				if tm.Released.Before(tm.Due) {
					t.Fatalf("item %d released %v before its due time", i, tm.Due.Sub(tm.Released))
				}
			}
		})
	}
}
