package engine

import (
	"context"
	"runtime"
	"runtime/debug"
	"testing"
	"testing/synctest"
	"time"

	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
)

// TestGCBeforePacedSchedule counts the collections a replay runs with the
// collector's own pacing off (GOGC=off): at a speed that paces the
// messages, one collection is run before the first message is sent, so
// that the start-up's garbage is not marked while the schedule runs (a
// collection's mark assists held answers for milliseconds: BENCHMARKS.md,
// issue 24, third round); at fast, none.
func TestGCBeforePacedSchedule(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	for _, tc := range []struct {
		speed scheduler.Speed
		want  uint32 // collections before the first answer is judged
	}{
		{scheduler.Speed{Mode: scheduler.Scaled, Factor: 10}, 1},
		{scheduler.Speed{Mode: scheduler.Rate, RPS: 1000}, 1},
		{scheduler.Speed{Mode: scheduler.Fast}, 0},
	} {
		t.Run(tc.speed.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e, err := New(withMock(Config{Tape: "../examples/quickstart.jsonl", Speed: tc.speed}))
				if err != nil {
					t.Fatal(err)
				}
				before := numGC()
				var atFirst uint32
				first := true
				e.OnResult(func(r report.Result) {
					if first {
						atFirst, first = numGC(), false
					}
				})
				if _, err := e.Run(context.Background()); err != nil {
					t.Fatal(err)
				}
				if first {
					t.Fatal("no result judged")
				}
				if got := atFirst - before; got != tc.want {
					t.Errorf("%d collections before the first answer was judged, want %d", got, tc.want)
				}
				if got := numGC() - before; got != tc.want {
					t.Errorf("%d collections in the replay, want %d", got, tc.want)
				}
			})
		})
	}
}

func numGC() uint32 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.NumGC
}

// TestSpinOption checks what Config.Spin gives the sessions: the default
// for 0, none for a negative value, else itself.
func TestSpinOption(t *testing.T) {
	for _, tc := range []struct {
		spin, want time.Duration
	}{
		{0, scheduler.DefaultSpin},
		{-1, 0},
		{250 * time.Microsecond, 250 * time.Microsecond},
	} {
		e, err := New(withMock(Config{Tape: "../examples/quickstart.jsonl", Spin: tc.spin}))
		if err != nil {
			t.Fatal(err)
		}
		if got := e.sessionEnv().Spin; got != tc.want {
			t.Errorf("Spin %s: the sessions got %s, want %s", tc.spin, got, tc.want)
		}
	}
}
