package engine

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
)

// TestPacingUnderFakeTime replays the example tape through the whole
// pipeline on synctest's fake clock: the session's clock starts when its
// live handshake completes (the mock answers at once), and every later
// client message is sent exactly at its recorded distance from the
// recorded handshake answer divided by the speed; the replay lasts exactly
// as long as that makes the tape's last client message.
func TestPacingUnderFakeTime(t *testing.T) {
	for _, tc := range []struct {
		speed  scheduler.Speed
		factor float64
	}{
		{scheduler.Speed{Mode: scheduler.Realtime}, 1},
		{scheduler.Speed{Mode: scheduler.Scaled, Factor: 10}, 10},
		{scheduler.Speed{Mode: scheduler.Scaled, Factor: 0.5}, 0.5},
	} {
		t.Run(tc.speed.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e, err := New(withMock(Config{Tape: "../examples/quickstart.jsonl", Speed: tc.speed}))
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				var sent []report.Result
				e.OnResult(func(r report.Result) {
					if r.Dir == "c2s" {
						sent = append(sent, r)
					}
				})
				rep, err := e.Run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				// Recorded client send times, in µs from the recorded
				// initialize answer (t_us 2100), from the tape.
				want := map[int64]int64{0: 0, 2: 900, 3: 147900, 5: 417900, 7: 697900, 10: 977900, 12: 1247900, 14: 1497900, 16: 1797900}
				if len(sent) != len(want) {
					t.Fatalf("%d client messages judged, want %d", len(sent), len(want))
				}
				for _, r := range sent {
					us, ok := want[r.Seq]
					if !ok {
						t.Fatalf("unexpected seq %d", r.Seq)
					}
					wantAt := start.Add(time.Duration(float64(us)/tc.factor) * time.Microsecond)
					if !r.Sent.Equal(wantAt) || r.Lag != 0 {
						t.Errorf("seq %d sent at +%s (lag %s), want +%s and no lag", r.Seq, r.Sent.Sub(start), r.Lag, wantAt.Sub(start))
					}
				}
				if got, want := time.Since(start), time.Duration(1797900/tc.factor)*time.Microsecond; got != want {
					t.Errorf("replay took %s of fake time, want %s", got, want)
				}
				if rep.Validation.Passed != 8 {
					t.Errorf("passed %d, want 8", rep.Validation.Passed)
				}
			})
		})
	}
}

// TestSpeedChangeWhileRunning switches from realtime to 10x half a second
// in: what was due later keeps its order and comes ten times sooner.
func TestSpeedChangeWhileRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e, err := New(withMock(Config{Tape: "../examples/quickstart.jsonl"}))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		sentAt := map[int64]time.Duration{}
		e.OnResult(func(r report.Result) {
			if r.Dir == "c2s" {
				sentAt[r.Seq] = r.Sent.Sub(start)
			}
		})
		go func() {
			time.Sleep(500 * time.Millisecond)
			e.SetSpeed(scheduler.Speed{Mode: scheduler.Scaled, Factor: 10})
		}()
		if _, err := e.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		// The clock counts from the recorded initialize answer (2.1ms).
		us := func(n int64) time.Duration { return time.Duration(n) * time.Microsecond }
		want := map[int64]time.Duration{
			3: us(147900), 5: us(417900), // before the change
			7:  us(519790), // 197.9ms left at 1x → 19.79ms at 10x
			10: us(547790), 12: us(574790), 14: us(599790), 16: us(629790),
		}
		for seq, w := range want {
			if got := sentAt[seq]; got != w {
				t.Errorf("seq %d sent at +%s, want +%s", seq, got, w)
			}
		}
	})
}

// TestCountSpeedsShareOneRate: at rps and fixed every session paces
// itself by the tickets all sessions share, so the replay as a whole
// keeps the rate: with 4 virtual copies of the example tape at rps:50,
// every client message is due 20ms after another (each due time taken
// once), and nothing is late on the fake clock.
func TestCountSpeedsShareOneRate(t *testing.T) {
	for _, speed := range []scheduler.Speed{
		{Mode: scheduler.Rate, RPS: 50},
		{Mode: scheduler.Fixed, Interval: 20 * time.Millisecond},
	} {
		t.Run(speed.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e, err := New(withMock(Config{Tape: "../examples/quickstart.jsonl", Speed: speed, Sessions: 4}))
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				due := map[time.Duration]int64{}
				e.OnResult(func(r report.Result) {
					if r.Dir != "c2s" {
						return
					}
					if r.Lag != 0 {
						t.Errorf("%s seq %d: lag %s, want none", r.Session, r.Seq, r.Lag)
					}
					at := r.Due.Sub(start)
					if prev, ok := due[at]; ok {
						t.Errorf("%s seq %d due at +%s, as was seq %d", r.Session, r.Seq, at, prev)
					}
					due[at] = r.Seq
				})
				if _, err := e.Run(context.Background()); err != nil {
					t.Fatal(err)
				}
				const n = 4 * 9 // 9 client messages a session
				if len(due) != n {
					t.Fatalf("%d due times, want %d", len(due), n)
				}
				for i := range n {
					if _, ok := due[time.Duration(i)*20*time.Millisecond]; !ok {
						t.Errorf("no message due at +%s", time.Duration(i)*20*time.Millisecond)
					}
				}
			})
		})
	}
}
