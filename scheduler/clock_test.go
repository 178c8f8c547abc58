package scheduler

import (
	"math"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

const ms = time.Millisecond

func at(d time.Duration) time.Time { return t0.Add(d) }

func TestClockDue(t *testing.T) {
	tests := []struct {
		name   string
		speed  Speed
		offset time.Duration
		index  int64
		want   time.Time
	}{
		{"realtime start", Speed{Mode: Realtime}, 0, 0, at(0)},
		{"realtime", Speed{Mode: Realtime}, 1500 * ms, 7, at(1500 * ms)},
		{"scaled 2x", Speed{Mode: Scaled, Factor: 2}, 300 * ms, 2, at(150 * ms)},
		{"scaled 10x", Speed{Mode: Scaled, Factor: 10}, 1 * ms, 1, at(100 * time.Microsecond)},
		{"scaled 0.5x", Speed{Mode: Scaled, Factor: 0.5}, 300 * ms, 2, at(600 * ms)},
		{"scaled 3x rounds to ns", Speed{Mode: Scaled, Factor: 3}, 1 * ms, 0, at(333333)},
		{"scaled 1e-300x clamps", Speed{Mode: Scaled, Factor: 1e-300}, time.Second, 0, at(math.MaxInt64)},
		{"scaled negative offset", Speed{Mode: Scaled, Factor: 2}, -100 * ms, 0, at(-50 * ms)},
		{"fixed ignores offset", Speed{Mode: Fixed, Interval: 50 * ms}, 9 * time.Hour, 3, at(150 * ms)},
		{"fixed first", Speed{Mode: Fixed, Interval: 50 * ms}, 0, 0, at(0)},
		{"fixed clamps", Speed{Mode: Fixed, Interval: time.Hour}, 0, math.MaxInt64, at(math.MaxInt64)},
		{"rate 500", Speed{Mode: Rate, RPS: 500}, 0, 5, at(10 * ms)},
		{"rate 12.5", Speed{Mode: Rate, RPS: 12.5}, time.Hour, 3, at(240 * ms)},
		{"rate 3 rounds", Speed{Mode: Rate, RPS: 3}, 0, 1, at(333333333)},
		{"fast", Speed{Mode: Fast}, time.Hour, 10, time.Time{}},
		{"stepped", Speed{Mode: Stepped}, time.Hour, 10, time.Time{}},
		{"invalid is realtime", Speed{Mode: Scaled, Factor: -1}, 40 * ms, 1, at(40 * ms)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NewClock(tt.speed, t0).Due(tt.offset, tt.index)
			if !got.Equal(tt.want) {
				t.Errorf("Due(%v, %d) = %v, want %v", tt.offset, tt.index, got.Sub(t0), tt.want.Sub(t0))
			}
		})
	}
}

func TestClockWithSpeed(t *testing.T) {
	x := func(f float64) Speed { return Speed{Mode: Scaled, Factor: f} }
	tests := []struct {
		name   string
		from   Speed
		to     Speed
		now    time.Duration // since t0
		offset time.Duration // next item
		index  int64
		want   time.Duration // next item's new due, since t0
		then   time.Duration // offset of a later item (index+1)
		thenAt time.Duration // its due
	}{
		{
			// 1x, next item at 10s, change at 6s: 4s left become 1s at 4x;
			// an item 2s of recording later comes 0.5s after it.
			name: "faster keeps scaled remaining", from: Speed{}, to: x(4),
			now: 6000 * ms, offset: 10000 * ms, index: 3, want: 7000 * ms,
			then: 12000 * ms, thenAt: 7500 * ms,
		},
		{
			name: "slower keeps scaled remaining", from: x(2), to: x(0.5),
			now: 1000 * ms, offset: 3000 * ms, index: 1, want: 3000 * ms, // due 1.5s: 0.5s left, ×4
			then: 3100 * ms, thenAt: 3200 * ms,
		},
		{
			name: "already due is due now", from: x(1), to: x(0.1),
			now: 5000 * ms, offset: 1000 * ms, index: 1, want: 5000 * ms,
			then: 1100 * ms, thenAt: 6000 * ms,
		},
		{
			name: "fixed to rate scales by gaps", from: Speed{Mode: Fixed, Interval: time.Second}, to: Speed{Mode: Rate, RPS: 2},
			now: 2200 * ms, offset: 0, index: 3, want: 2600 * ms, // due 3s: 0.8s left at 1s/item → 0.4s at 0.5s/item
			then: 0, thenAt: 3100 * ms,
		},
		{
			name: "scaled to rate capped by one gap", from: x(1), to: Speed{Mode: Rate, RPS: 100},
			now: 0, offset: 60 * time.Second, index: 1, want: 10 * ms,
			then: 0, thenAt: 20 * ms,
		},
		{
			name: "scaled to rate below one gap kept", from: x(1), to: Speed{Mode: Rate, RPS: 1},
			now: 0, offset: 300 * ms, index: 1, want: 300 * ms,
			then: 0, thenAt: 1300 * ms,
		},
		{
			name: "fixed to scaled keeps remaining", from: Speed{Mode: Fixed, Interval: time.Second}, to: x(10),
			now: 700 * ms, offset: 5 * time.Second, index: 1, want: 1000 * ms,
			then: 6 * time.Second, thenAt: 1100 * ms,
		},
		{
			name: "fast to scaled counts from now", from: Speed{Mode: Fast}, to: x(2),
			now: 9000 * ms, offset: 4000 * ms, index: 40, want: 9000 * ms,
			then: 5000 * ms, thenAt: 9500 * ms,
		},
		{
			name: "scaled to stepped", from: x(1), to: Speed{Mode: Stepped},
			now: 0, offset: time.Hour, index: 1, want: -1,
			then: 2 * time.Hour, thenAt: -1,
		},
		{
			name: "invalid speed ignored", from: x(2), to: x(0),
			now: 0, offset: 1000 * ms, index: 0, want: 500 * ms,
			then: 2000 * ms, thenAt: 1000 * ms,
		},
	}
	due := func(d time.Duration) time.Time {
		if d < 0 {
			return time.Time{}
		}
		return at(d)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewClock(tt.from, t0).WithSpeed(tt.to, at(tt.now), tt.offset, tt.index)
			if got := c.Due(tt.offset, tt.index); !got.Equal(due(tt.want)) {
				t.Errorf("next item due %v, want %v", got.Sub(t0), tt.want)
			}
			if got := c.Due(tt.then, tt.index+1); !got.Equal(due(tt.thenAt)) {
				t.Errorf("later item due %v, want %v", got.Sub(t0), tt.thenAt)
			}
		})
	}
}

func TestClockShifted(t *testing.T) {
	tests := []struct {
		name  string
		speed Speed
		want  time.Duration // due of (offset 400ms, index 2) after a 1s shift
	}{
		{"scaled", Speed{Mode: Scaled, Factor: 2}, 1200 * ms},
		{"fixed", Speed{Mode: Fixed, Interval: 100 * ms}, 1200 * ms},
		{"rate", Speed{Mode: Rate, RPS: 4}, 1500 * ms},
		{"realtime", Speed{}, 1400 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewClock(tt.speed, t0).Shifted(time.Second)
			if got := c.Due(400*ms, 2); !got.Equal(at(tt.want)) {
				t.Errorf("got %v, want %v", got.Sub(t0), tt.want)
			}
		})
	}
	// A shift after a speed change moves the re-based schedule too.
	c := NewClock(Speed{}, t0).WithSpeed(Speed{Mode: Scaled, Factor: 2}, at(time.Second), 2*time.Second, 1).Shifted(3 * time.Second)
	if got, want := c.Due(4*time.Second, 2), at(5500*ms); !got.Equal(want) { // base 1.5s (1s left → 0.5s), +3s, +2s÷2
		t.Errorf("got %v, want %v", got.Sub(t0), want.Sub(t0))
	}
	if got := NewClock(Speed{Mode: Fast}, t0).Shifted(time.Second).Due(time.Hour, 1); !got.IsZero() {
		t.Errorf("fast after shift: got %v, want the zero time", got)
	}
}

func TestClockRebased(t *testing.T) {
	c := NewClock(Speed{Mode: Scaled, Factor: 4}, t0).Rebased(at(time.Minute), 30*time.Second, 50)
	if got, want := c.Due(30*time.Second, 50), at(time.Minute); !got.Equal(want) {
		t.Errorf("got %v, want %v", got.Sub(t0), want.Sub(t0))
	}
	if got, want := c.Due(34*time.Second, 51), at(time.Minute+time.Second); !got.Equal(want) {
		t.Errorf("got %v, want %v", got.Sub(t0), want.Sub(t0))
	}
	if got, want := c.Speed(), (Speed{Mode: Scaled, Factor: 4}); got != want {
		t.Errorf("speed %v, want %v", got, want)
	}
}
