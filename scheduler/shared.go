package scheduler

import (
	"sync"
	"sync/atomic"
	"time"
)

// Shared is what the sessions of a replay share of its timing; each
// session paces itself by its own Clock, and asks Shared for the rest:
//
//   - Tickets, at the speeds that pace by count (fixed, rps): item i of the
//     whole replay, whichever session sends it, is due at base + i×gap. A
//     session takes the next ticket when it falls due (Take), so the replay
//     as a whole keeps the rate however many sessions there are; a speed
//     change (SetSpeed) moves every ticket not yet taken.
//   - Replay time: a pause (Pause, Resume) or a gate that held a message
//     (Hold) stops it for every session. Frozen says how long it has stood
//     still in all; a session moves its clock by what it has not yet
//     counted, and Paused gives a channel to wait on for the resume.
//
// Shared is safe for use by many goroutines: every method that changes
// it takes its mutex, held only to compute a value (no waiting under it).
// What every session asks for each message (Paused, Frozen, and Take at a
// speed that does not pace by count) is read without the mutex, from
// copies it keeps: a replay of many sessions does not queue on it.
type Shared struct {
	mu sync.Mutex // guards the fields below
	t  tickets
	// paused: replay time stands still since pausedAt; resumed is closed
	// by Resume.
	paused   bool
	pausedAt time.Time
	resumed  chan struct{}

	// Written under mu, read without it:
	byCount atomic.Bool             // t.speed paces by count (Take needs mu)
	frozen  atomic.Int64            // t.frozen
	pause   atomic.Pointer[pausing] // nil while replay time runs
}

// pausing is a pause going on: resumed is closed by Resume.
type pausing struct{ resumed chan struct{} }

// tickets is the state of Shared's tickets, and its rules as methods on a value
// (table-tested without goroutines).
type tickets struct {
	speed   Speed
	clock   Clock
	started bool
	next    int64         // the index of the next ticket
	epoch   uint64        // the epoch of the last ticket taken
	heldTo  time.Time     // Hold has moved the schedule for the time until this
	frozen  time.Duration // how long replay time has stood still in all
}

// NewShared returns the shared timing of a replay at speed s. The tickets
// start at the first Take: the first ticket is due then.
func NewShared(s Speed) *Shared {
	tk := &Shared{t: tickets{speed: s}}
	tk.byCount.Store(s.byCount())
	return tk
}

// byCount reports whether s paces by count: by the shared tickets.
func (s Speed) byCount() bool { return s.Mode == Fixed || s.Mode == Rate }

// publish copies what is read without the mutex; called with mu held.
func (tk *Shared) publish() {
	tk.byCount.Store(tk.t.speed.byCount())
	tk.frozen.Store(int64(tk.t.frozen))
	if tk.paused {
		tk.pause.Store(&pausing{resumed: tk.resumed})
	} else {
		tk.pause.Store(nil)
	}
}

// Take takes the next ticket if it is due by now+within, and returns its
// due time and true; else it returns the time the next ticket falls due,
// and false (try again then). The first ticket of a later epoch (after a
// seek) is due at now, with later ones following the speed from it. Speeds
// that do not pace by count always give a ticket due at now.
func (tk *Shared) Take(now time.Time, within time.Duration, epoch uint64) (time.Time, bool) {
	if !tk.byCount.Load() {
		// Due at once, as take says; the count of tickets taken matters
		// only from a change to a speed by count, which counts from its
		// own next ticket (withSpeed, take's first ticket).
		return now, true
	}
	tk.mu.Lock()
	defer tk.mu.Unlock()
	var due time.Time
	var ok bool
	tk.t, due, ok = tk.t.take(now, within, epoch)
	return due, ok
}

// SetSpeed changes the speed at now: the next ticket's due time follows
// Clock.WithSpeed, later ones the new speed from it.
func (tk *Shared) SetSpeed(s Speed, now time.Time) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	tk.t = tk.t.withSpeed(s, now)
	tk.publish()
}

// Hold stops replay time for the part of [from, until] that an earlier
// Hold or pause has not already counted: the time a gate held a message
// (a debugger paused). Every ticket not yet taken moves by it, and Frozen
// counts it. Holds of several sessions at once overlap, and count once.
func (tk *Shared) Hold(from, until time.Time) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	if tk.paused && until.After(tk.pausedAt) { // the pause counts the rest at its resume
		until = tk.pausedAt
	}
	tk.t = tk.t.held(from, until)
	tk.publish()
}

// Pause stops replay time at now, until Resume. Pausing a paused replay
// does nothing.
func (tk *Shared) Pause(now time.Time) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	if tk.paused {
		return
	}
	tk.paused, tk.pausedAt, tk.resumed = true, now, make(chan struct{})
	tk.publish()
}

// Resume starts replay time again at now: the pause counts as a Hold.
// Resuming a running replay does nothing.
func (tk *Shared) Resume(now time.Time) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	if !tk.paused {
		return
	}
	tk.t = tk.t.held(tk.pausedAt, now)
	tk.paused = false
	tk.publish()
	close(tk.resumed)
}

// Paused returns nil while replay time runs, and while it is paused a
// channel that Resume closes.
func (tk *Shared) Paused() <-chan struct{} {
	p := tk.pause.Load()
	if p == nil {
		return nil
	}
	return p.resumed
}

// Frozen is how long replay time has stood still so far (pauses and
// holds, overlaps counted once; a pause still going on not yet).
func (tk *Shared) Frozen() time.Duration { return time.Duration(tk.frozen.Load()) }

// take is Take's rule.
func (t tickets) take(now time.Time, within time.Duration, epoch uint64) (tickets, time.Time, bool) {
	if t.speed.Mode != Fixed && t.speed.Mode != Rate {
		t.next++
		return t, now, true
	}
	switch {
	case !t.started:
		t.clock, t.started, t.epoch = NewClock(t.speed, now).Rebased(now, 0, t.next), true, epoch
	case epoch > t.epoch:
		t.clock, t.epoch = t.clock.Rebased(now, 0, t.next), epoch
	}
	due := t.clock.Due(0, t.next)
	if due.After(now.Add(within)) {
		return t, due, false
	}
	t.next++
	return t, due, true
}

// withSpeed is SetSpeed's rule.
func (t tickets) withSpeed(s Speed, now time.Time) tickets {
	if s.Validate() != nil {
		return t
	}
	byCount := t.speed.Mode == Fixed || t.speed.Mode == Rate
	t.speed = s
	if !t.started {
		return t
	}
	if !byCount { // the clock stood still: the next ticket is due now
		t.clock = NewClock(s, now).Rebased(now, 0, t.next)
		return t
	}
	t.clock = t.clock.WithSpeed(s, now, 0, t.next)
	return t
}

// held is Hold's rule.
func (t tickets) held(from, until time.Time) tickets {
	if from.Before(t.heldTo) {
		from = t.heldTo
	}
	if !until.After(from) {
		return t
	}
	t.clock = t.clock.Shifted(until.Sub(from))
	t.heldTo = until
	t.frozen += until.Sub(from)
	return t
}
