package scheduler

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrPaused is returned by Wait on a paused Pacer that has no pause control
// channel to wait for a resume on: call Resume first.
var ErrPaused = errors.New("scheduler: Wait on a paused pacer: call Resume first, or give New a WithPauseControl channel")

// Timing is when an item was due and when it was released.
type Timing struct {
	Due      time.Time     // the scheduled time; for Fast and Stepped, Released
	Released time.Time     // when Wait returned it
	Lag      time.Duration // Released-Due when positive, else 0
}

// Stats counts what a Pacer released.
type Stats struct {
	Released int64         // items released
	Behind   int64         // items already late when Wait was called: released at once
	TotalLag time.Duration // sum of Timing.Lag
	MaxLag   time.Duration // largest Timing.Lag
}

// event is a change recorded between two Waits, folded into the clock when
// the next item's offset is known.
type event struct {
	at    time.Time
	speed Speed         // a speed change at `at`
	shift time.Duration // or, when non-zero, a pause of this length
}

// Pacer releases items at their due times with real timers. It is owned by
// one goroutine: its methods must not be called concurrently. Speed and pause
// changes from other goroutines come in on the channels given by WithControl
// and WithPauseControl, which Wait reads while it blocks.
type Pacer struct {
	speed   Speed
	clock   Clock
	started bool
	index   int64 // items released since Start

	paused   bool
	pausedAt time.Time
	pending  []event
	rebase   bool  // the next item is due when Wait is called
	err      error // an invalid speed was set

	spin    time.Duration
	speedCh <-chan Speed
	pauseCh <-chan bool
	timer   *time.Timer
	stats   Stats
}

// New returns a Pacer for speed s. It starts on Start, or on the first Wait.
// An invalid s (see Speed.Validate) makes every Wait return its error.
func New(s Speed, opts ...Option) *Pacer {
	p := &Pacer{speed: s, spin: DefaultSpin}
	if err := s.Validate(); err != nil {
		p.err = fmt.Errorf("scheduler: %w", err)
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Start starts (or restarts) the schedule at now: the item with offset 0 is
// due at now, and the item count goes back to 0. Stats are kept.
func (p *Pacer) Start(now time.Time) {
	p.clock = NewClock(p.speed, now)
	p.started, p.index, p.pending, p.rebase = true, 0, nil, false
	if p.paused {
		p.pausedAt = now // replay time starts frozen
	}
}

// Speed returns the current speed.
func (p *Pacer) Speed() Speed { return p.speed }

// Paused reports whether the pacer is paused.
func (p *Pacer) Paused() bool { return p.paused }

// Stats returns the counts so far. Call it from the owning goroutine, or
// after that goroutine is done.
func (p *Pacer) Stats() Stats { return p.stats }

// SetSpeed changes the speed at now; the next item's due time follows the
// rule of Clock.WithSpeed. While paused the change counts from the moment of
// the pause, since replay time stands still. An invalid s makes later Waits
// return its error.
func (p *Pacer) SetSpeed(s Speed, now time.Time) {
	if err := s.Validate(); err != nil {
		p.err = fmt.Errorf("scheduler: set speed: %w", err)
		return
	}
	p.speed = s
	if !p.started {
		return
	}
	if p.paused {
		now = p.pausedAt
	}
	p.pending = append(p.pending, event{at: now, speed: s})
}

// Pause stops replay time at now. Until Resume, Wait releases nothing (except
// in Stepped mode, where the controller's gate holds items). Pausing a paused
// pacer does nothing.
func (p *Pacer) Pause(now time.Time) {
	if p.paused {
		return
	}
	p.paused, p.pausedAt = true, now
}

// Resume restarts replay time at now: every due time moves by the length of
// the pause, so pacing goes on as if no time had passed. Resuming a running
// pacer does nothing.
func (p *Pacer) Resume(now time.Time) {
	if !p.paused {
		return
	}
	p.paused = false
	if d := now.Sub(p.pausedAt); p.started && d > 0 {
		p.pending = append(p.pending, event{at: now, shift: d})
	}
}

// Rebase makes the next item due at the moment Wait is called for it, with
// later items following the speed from there: the schedule after a seek.
func (p *Pacer) Rebase() { p.rebase = true }

// Anchor makes the item recorded at offset due at now, with later items
// following the speed from it: the schedule of a session whose handshake
// has just completed (see the package doc, "A clock per session"). Changes
// waiting to be folded are applied first; a paused pacer stays paused,
// counting the pause from now.
func (p *Pacer) Anchor(now time.Time, offset time.Duration) {
	if !p.started {
		p.Start(now)
	}
	p.fold(offset, now)
	p.clock = p.clock.Rebased(now, offset, p.index)
	if p.paused {
		p.pausedAt = now
	}
}

// fold applies the changes recorded since the last Wait, in order, now that
// the next item's offset is known.
func (p *Pacer) fold(offset time.Duration, now time.Time) {
	for _, ev := range p.pending {
		if ev.shift != 0 {
			p.clock = p.clock.Shifted(ev.shift)
		} else {
			p.clock = p.clock.WithSpeed(ev.speed, ev.at, offset, p.index)
		}
	}
	p.pending = p.pending[:0]
	if p.rebase {
		p.clock = p.clock.Rebased(now, offset, p.index)
		p.rebase = false
	}
}

// Wait blocks until the next item, recorded at offset, is due, and returns
// its Timing; the item is then counted as released. Behind schedule it
// returns at once and the lag is in the Timing. Fast and Stepped return at
// once. On entry, and while it blocks, it applies the speed and pause changes
// waiting on the control channels. It returns ctx.Err() as soon as ctx is done, ErrPaused when paused
// with no pause channel, or the error of an invalid speed.
func (p *Pacer) Wait(ctx context.Context, offset time.Duration) (Timing, error) {
	if err := ctx.Err(); err != nil {
		return Timing{}, err
	}
	if !p.started {
		p.Start(time.Now())
	}
	p.poll()
	behind := true // no wait was needed
	for {
		if p.err != nil {
			return Timing{}, p.err
		}
		p.fold(offset, time.Now())
		if p.paused && p.speed.Mode != Stepped {
			if p.pauseCh == nil {
				return Timing{}, ErrPaused
			}
			if err := p.await(ctx, nil); err != nil {
				return Timing{}, err
			}
			behind = false
			continue
		}
		due := p.clock.Due(offset, p.index)
		now := time.Now()
		if due.IsZero() || !now.Before(due) {
			return p.release(due, now, behind && !due.IsZero()), nil
		}
		behind = false
		if wait := due.Sub(now); wait > p.spin {
			if err := p.sleep(ctx, wait-p.spin); err != nil {
				return Timing{}, err
			}
			continue // a control change may have moved the due time
		}
		if err := spinUntil(ctx, due); err != nil {
			return Timing{}, err
		}
		return p.release(due, time.Now(), false), nil
	}
}

func (p *Pacer) release(due, now time.Time, behind bool) Timing {
	if due.IsZero() {
		due = now
	}
	t := Timing{Due: due, Released: now, Lag: max(now.Sub(due), 0)}
	p.index++
	p.stats.Released++
	if behind && t.Lag > 0 {
		p.stats.Behind++
	}
	p.stats.TotalLag += t.Lag
	p.stats.MaxLag = max(p.stats.MaxLag, t.Lag)
	return t
}

// sleep blocks for d, or until a control change or ctx is done.
func (p *Pacer) sleep(ctx context.Context, d time.Duration) error {
	if p.timer == nil {
		p.timer = time.NewTimer(d)
	} else {
		p.timer.Reset(d)
	}
	err := p.await(ctx, p.timer.C)
	p.timer.Stop() // since Go 1.23 no stale tick can be left in the channel
	return err
}

// await blocks until tick fires (nil: never), a control change arrives and is
// applied, or ctx is done.
func (p *Pacer) await(ctx context.Context, tick <-chan time.Time) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tick:
	case s, ok := <-p.speedCh:
		p.onSpeed(s, ok)
	case v, ok := <-p.pauseCh:
		p.onPause(v, ok)
	}
	return nil
}

// poll applies the control changes already waiting, without blocking.
func (p *Pacer) poll() {
	for {
		select {
		case s, ok := <-p.speedCh:
			p.onSpeed(s, ok)
		case v, ok := <-p.pauseCh:
			p.onPause(v, ok)
		default:
			return
		}
	}
}

// onSpeed applies a value received from the speed control channel; a closed
// channel is no longer read.
func (p *Pacer) onSpeed(s Speed, ok bool) {
	if !ok {
		p.speedCh = nil
		return
	}
	p.SetSpeed(s, time.Now())
}

// onPause applies a value received from the pause control channel: true
// pauses, false resumes. A closed channel resumes and is no longer read, so
// that a pacer can never stay paused with nobody left to resume it.
func (p *Pacer) onPause(pause, ok bool) {
	now := time.Now()
	switch {
	case !ok:
		p.pauseCh = nil
		p.Resume(now)
	case pause:
		p.Pause(now)
	default:
		p.Resume(now)
	}
}
