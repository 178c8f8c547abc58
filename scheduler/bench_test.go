package scheduler

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// BenchmarkPacer10x replays a tape of messages 1ms apart at 10x (items due
// 100µs apart) on the real clock, one loop iteration per tape, and reports
// the schedule lag (p50, p99, max, in µs) and the total duration against the
// ideal one, in percent over. Sub-benchmarks compare spin thresholds.
//
//	go test -run '^$' -bench Pacer10x -benchtime 5x ./scheduler/
func BenchmarkPacer10x(b *testing.B) {
	benchPacer(b, Speed{Mode: Scaled, Factor: 10}, 5000,
		[]time.Duration{0, 50 * time.Microsecond, 200 * time.Microsecond, time.Millisecond})
}

// BenchmarkPacerRealtime is the same at 1x (items due 1ms apart), where the
// timer, not the spin, does most of the waiting.
//
//	go test -run '^$' -bench PacerRealtime -benchtime 5x ./scheduler/
func BenchmarkPacerRealtime(b *testing.B) {
	benchPacer(b, Speed{}, 1000,
		[]time.Duration{0, 200 * time.Microsecond, 500 * time.Microsecond, time.Millisecond, 2 * time.Millisecond})
}

// benchPacer replays msgs items recorded 1ms apart at speed, once per loop
// iteration, for each spin threshold.
func benchPacer(b *testing.B, speed Speed, msgs int, spins []time.Duration) {
	for _, spin := range spins {
		b.Run(fmt.Sprintf("spin=%v/msgs=%d", spin, msgs), func(b *testing.B) {
			b.ReportAllocs()
			lags := make([]time.Duration, 0, msgs*8)
			var total, ideal time.Duration
			for b.Loop() {
				p := New(speed, WithSpin(spin))
				start := time.Now()
				p.Start(start)
				var last Timing
				for i := range msgs {
					tm, err := p.Wait(b.Context(), time.Duration(i)*time.Millisecond)
					if err != nil {
						b.Fatal(err)
					}
					lags = append(lags, tm.Lag)
					last = tm
				}
				total += last.Released.Sub(start)
				ideal += last.Due.Sub(start)
			}
			slices.Sort(lags)
			q := func(f float64) float64 {
				return float64(lags[int(f*float64(len(lags)-1))]) / float64(time.Microsecond)
			}
			b.ReportMetric(q(0.50), "lag-p50-µs")
			b.ReportMetric(q(0.99), "lag-p99-µs")
			b.ReportMetric(q(1), "lag-max-µs")
			b.ReportMetric(100*float64(total-ideal)/float64(ideal), "%-over-ideal")
		})
	}
}

// BenchmarkClockDue is the cost of the pure schedule per item.
func BenchmarkClockDue(b *testing.B) {
	c := NewClock(Speed{Mode: Scaled, Factor: 10}, time.Now())
	b.ReportAllocs()
	var i int64
	for b.Loop() {
		_ = c.Due(time.Duration(i)*time.Millisecond, i)
		i++
	}
}
