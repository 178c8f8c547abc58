package scheduler

import (
	"math"
	"time"
)

// Clock is the pure schedule: it maps an item (its recorded offset and its
// index) to the wall time it is due. It is a value: no goroutines, no
// time.Now, no timers; every method returns a new Clock.
//
// A Clock counts from a base: the item (baseOffset, baseIndex) is due at base.
// NewClock puts the base at (0, 0) at the start time; WithSpeed moves it to
// the item waiting when the speed changed; Shifted moves base in time.
type Clock struct {
	speed      Speed
	base       time.Time
	baseOffset time.Duration
	baseIndex  int64
}

// NewClock returns the schedule of speed s starting at start: the item with
// offset 0 and index 0 is due at start. An invalid s (see Speed.Validate) is
// treated as Realtime; callers that want an error call Validate first.
func NewClock(s Speed, start time.Time) Clock {
	if s.Validate() != nil {
		s = Speed{Mode: Realtime}
	}
	return Clock{speed: s, base: start}
}

// Speed returns the clock's speed.
func (c Clock) Speed() Speed { return c.speed }

// Due returns the time the item is due. offset is the item's recorded time
// since the tape's start; index is its 0-based position (the number of items
// released before it). By mode:
//
//	Realtime, Scaled: base + (offset-baseOffset)/factor
//	Fixed:            base + (index-baseIndex)*interval
//	Rate:             base + (index-baseIndex)/rps
//	Fast, Stepped:    the zero time, meaning "now" (Stepped: the gate decides)
//
// A due time in the past means the item is behind schedule: it goes at once
// and its lag is counted. Due never panics; results beyond ±292 years are
// clamped.
func (c Clock) Due(offset time.Duration, index int64) time.Time {
	switch c.speed.Mode {
	case Realtime:
		return c.base.Add(offset - c.baseOffset)
	case Scaled:
		return c.base.Add(scale(float64(offset)-float64(c.baseOffset), 1/c.speed.Factor))
	case Fixed:
		return c.base.Add(scale(float64(index-c.baseIndex), float64(c.speed.Interval)))
	case Rate:
		return c.base.Add(scale(float64(index-c.baseIndex), float64(time.Second)/c.speed.RPS))
	}
	return time.Time{}
}

// scale returns x*k nanoseconds, clamped to the range of time.Duration
// (converting an out-of-range float to an integer is undefined in Go).
func scale(x, k float64) time.Duration {
	ns := math.Round(x * k)
	switch {
	case ns >= math.MaxInt64:
		return math.MaxInt64
	case ns <= math.MinInt64:
		return math.MinInt64
	case math.IsNaN(ns):
		return 0
	}
	return time.Duration(ns)
}

// pace describes how a speed spaces items: by recorded time (byTime, gap =
// wall nanoseconds per recorded nanosecond) or by count (byIndex, gap = wall
// nanoseconds per item). Fast and Stepped do not wait (none).
type paceKind int

const (
	none paceKind = iota
	byTime
	byIndex
)

func pace(s Speed) (paceKind, float64) {
	switch s.Mode {
	case Realtime:
		return byTime, 1
	case Scaled:
		return byTime, 1 / s.Factor
	case Fixed:
		return byIndex, float64(s.Interval)
	case Rate:
		return byIndex, float64(time.Second) / s.RPS
	}
	return none, 0
}

// WithSpeed returns the clock after a change to speed s at time now, while
// the next item to release is (offset, index). Later items follow s, counted
// from that item. The next item is due:
//
//   - at now, if it was already due (or the old speed did not wait);
//   - else its remaining wait, scaled by the ratio of the paces when both
//     speeds space items the same way (4s left at 1x become 1s at 4x; 2s left
//     at fixed:1s become 1s at rps:2);
//   - else, from a recorded-time speed to a count speed (10x to rps:500), its
//     remaining wait but no more than one gap of the new speed;
//   - else (count to recorded time) its remaining wait, unchanged;
//   - for Fast and Stepped, whenever: they do not wait.
//
// The choice keeps a change from releasing an item early at a slower speed
// and from holding one long at a faster one. An invalid s leaves c unchanged.
func (c Clock) WithSpeed(s Speed, now time.Time, offset time.Duration, index int64) Clock {
	if s.Validate() != nil {
		return c
	}
	var remaining time.Duration
	if due := c.Due(offset, index); !due.IsZero() && due.After(now) {
		remaining = due.Sub(now)
		oldKind, oldGap := pace(c.speed)
		newKind, newGap := pace(s)
		switch {
		case newKind == none:
			remaining = 0
		case oldKind == newKind:
			remaining = scale(float64(remaining), newGap/oldGap)
		case newKind == byIndex:
			remaining = min(remaining, scale(1, newGap))
		}
	}
	return Clock{speed: s, base: now.Add(remaining), baseOffset: offset, baseIndex: index}
}

// Shifted returns the clock with every due time moved d later: after a pause
// of d, pacing goes on as if no time had passed.
func (c Clock) Shifted(d time.Duration) Clock {
	c.base = c.base.Add(d)
	return c
}

// Rebased returns the clock with the item (offset, index) due at now and
// later items following the same speed from there: the schedule after a seek.
func (c Clock) Rebased(now time.Time, offset time.Duration, index int64) Clock {
	return Clock{speed: c.speed, base: now, baseOffset: offset, baseIndex: index}
}
