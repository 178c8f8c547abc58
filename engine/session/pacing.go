package session

// A session's pacing as a value: when each of its messages is due. The
// rules are plain functions over values (table-tested in pacing_test.go);
// the actor only keeps the value and reads the clock (clock.go).

import (
	"time"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/scheduler"
)

// pacing is the state of a session's pacing (see package scheduler, "A
// clock per session"). At speeds that pace by recorded time due times
// count from an anchor: set at the session's first message (when the
// connection is ready), again when the live handshake completes (anchor),
// and again at the first message of a later epoch (a seek).
type pacing struct {
	clock   scheduler.Clock
	set     bool          // clock is anchored
	epoch   uint64        // the epoch the clock was anchored in
	frozen  time.Duration // the replay time stood still that the clock has moved by
	burst   int           // chaos: messages still to send at once
	changes []speedChange // speed changes waiting for the next message's offset
}

// speedChange is a change of speed not yet applied to a session's clock:
// it is, once the next message's offset is known.
type speedChange struct {
	speed scheduler.Speed
	at    time.Time
}

// paced is what the pacing reads of a message.
type paced struct {
	tUS   int64         // recorded offset, µs
	epoch uint64        // the epoch it was loaded in
	delay time.Duration // add_delay: sent this much after it is due
	burst int           // a burst fault's size (0: none): it and burst-1 more go at once
}

// pacedOf is what the pacing reads of it.
func pacedOf(it *Item) paced {
	m := paced{tUS: it.Rec.TUS, epoch: it.Epoch, delay: it.delay()}
	if f := it.Fault; f != nil && f.Kind == chaos.Burst {
		m.burst = f.BurstSize()
	}
	return m
}

// verdict is when a message is due, as pacing.due decides.
type verdict int

const (
	dueAt     verdict = iota // due at the time given
	dueBurst                 // a burst fault's: due at once (now + its delay)
	dueTicket                // due by the next shared ticket (speeds that pace by count)
)

// due decides when m is due at speed, at now, with replay time having
// stood still for frozen in all. For dueTicket the caller takes the next
// ticket and calls ticketed with its due time.
func (p pacing) due(m paced, speed scheduler.Speed, now time.Time, frozen time.Duration) (pacing, time.Time, verdict) {
	p = p.thawed(frozen)
	if p.burst > 0 { // a burst fault: sent at once, not when due
		p.burst--
		return p, now.Add(m.delay), dueBurst
	}
	if !speed.ByTime() {
		p.changes = p.changes[:0]
		return p, time.Time{}, dueTicket
	}
	if !p.set || p.epoch != m.epoch || !p.clock.Speed().ByTime() {
		p = p.anchored(speed, now, m.tUS, m.epoch, frozen)
	}
	for _, c := range p.changes { // later messages follow the new speed
		p.clock = p.clock.WithSpeed(c.speed, c.at, usec(m.tUS), 0)
	}
	p.changes = p.changes[:0]
	return p.bursting(m), p.clock.Due(usec(m.tUS), 0).Add(m.delay), dueAt
}

// ticketed is the pacing after m took a shared ticket due at due, and m's
// due time.
func (p pacing) ticketed(m paced, due time.Time) (pacing, time.Time) {
	return p.bursting(m), due.Add(m.delay)
}

// bursting starts a burst fault's run: the next burst-1 messages go at once.
func (p pacing) bursting(m paced) pacing {
	if m.burst > 0 {
		p.burst = m.burst - 1
	}
	return p
}

// thawed moves the clock by the replay time that stood still (frozen in
// all) since it last looked.
func (p pacing) thawed(frozen time.Duration) pacing {
	if d := frozen - p.frozen; d > 0 {
		p.frozen = frozen
		p.clock = p.clock.Shifted(d)
	}
	return p
}

// anchored starts the clock: the message recorded at tUS is due at now,
// later ones at their recorded distance from it ÷ speed.
func (p pacing) anchored(speed scheduler.Speed, now time.Time, tUS int64, epoch uint64, frozen time.Duration) pacing {
	p.clock = scheduler.NewClock(speed, now).Rebased(now, usec(tUS), 0)
	p.set, p.epoch, p.frozen = true, epoch, frozen
	return p
}

// speedChange is what a change of speed to s at now does to the pacing,
// with head the session's next message if its due time may still move
// (nil: none, or it may not), and due that time (zero: not set yet). It
// returns the pacing and the head's new due time (zero: due again by the
// new speed when it is looked at). At a speed that paces by recorded time
// the head's due time follows scheduler.Clock.WithSpeed, later ones the
// new speed from it; a speed that paces by count takes the shared
// tickets, and the clock starts again at the next message when a speed
// that paces by recorded time comes back.
func (p pacing) speedChange(s scheduler.Speed, now time.Time, head *paced, due time.Time) (pacing, time.Time) {
	byClock := p.set && p.clock.Speed().ByTime() // the clock sets due times
	switch {
	case !s.ByTime() || !byClock:
		p.set, p.changes = false, p.changes[:0]
		if head != nil && (byClock || due.IsZero()) {
			return p, time.Time{}
		}
		return p, due
	case head != nil && !due.IsZero():
		p.clock = p.clock.WithSpeed(s, now, usec(head.tUS), 0)
		return p, p.clock.Due(usec(head.tUS), 0).Add(head.delay)
	}
	p.changes = append(p.changes, speedChange{speed: s, at: now})
	return p, due
}

// usec is a tape offset in microseconds as a duration.
func usec(us int64) time.Duration { return time.Duration(us) * time.Microsecond }
