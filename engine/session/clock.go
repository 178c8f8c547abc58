package session

// A session's clock: when each of its messages is due, anchored when the
// session can talk (see package scheduler, "A clock per session").

import (
	"context"
	"runtime"
	"time"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/scheduler"
)

// due reports whether a paced message may go now by its session's
// pacing; if not, the pace timer is set for when to look again.
//
// Every session paces itself. At speeds that pace by recorded time
// (realtime, Nx) the session's clock starts when the session can talk:
// its first message is due when the connection is ready, and the clock
// is anchored again when the live handshake completes (see
// anchorHandshake), and again at the first message of a later epoch (a
// seek). Every due time counts from the anchor: anchor + (recorded offset
// − anchor's offset) ÷ speed, never "the gap since the previous message".
// At speeds that pace by count (fixed, rps) the session takes the next
// of the tickets all sessions share when it falls due; fast and stepped
// do not wait (a stepped message waits at the gate instead).
func (x *Actor) due(ctx context.Context, ss *session, it *Item) (bool, error) {
	if resumed := x.env.Timing.Paused(); resumed != nil {
		x.resumed = resumed // replay time stands still: drain again at the resume
		return false, nil
	}
	x.resumed = nil
	if d := x.env.Timing.Frozen() - ss.frozen; d > 0 { // replay time stood still for d
		ss.frozen += d
		ss.clock = ss.clock.Shifted(d)
		if !it.Timing.Due.IsZero() {
			it.Timing.Due = it.Timing.Due.Add(d)
		}
	}
	spin := x.spin()
	if it.Timing.Due.IsZero() {
		now := time.Now()
		due, ok := x.dueTime(ss, it, now, spin)
		if !ok { // no ticket yet: look again when the next one falls due
			x.setPace(due.Add(-spin))
			return false, nil
		}
		it.Timing.Due = due
	}
	wait := time.Until(it.Timing.Due)
	if wait <= 0 {
		return true, nil
	}
	if wait > spin {
		x.setPace(it.Timing.Due.Add(-spin))
		return false, nil
	}
	if err := scheduler.SpinUntil(ctx, it.Timing.Due); err != nil {
		return false, err
	}
	return true, nil
}

// dueTime is when it is due at the current speed, at now: burst and
// add_delay included. false: it waits for a ticket, the next of which
// falls due at the time returned.
func (x *Actor) dueTime(ss *session, it *Item, now time.Time, spin time.Duration) (time.Time, bool) {
	speed := x.env.Speed()
	var due time.Time
	switch {
	case ss.burst > 0: // a burst fault: sent at once, not when due
		ss.burst--
		it.burst = true
		return now.Add(it.Delay), true
	case speed.ByTime():
		if !ss.clockSet || ss.clockEpoch != it.Epoch || !ss.clock.Speed().ByTime() {
			ss.anchor(speed, now, it.Rec.TUS)
			ss.clockEpoch, ss.frozen = it.Epoch, x.env.Timing.Frozen()
		}
		for _, c := range ss.speedChanges { // later messages follow the new speed
			ss.clock = ss.clock.WithSpeed(c.speed, c.at, usec(it.Rec.TUS), 0)
		}
		ss.speedChanges = ss.speedChanges[:0]
		due = ss.clock.Due(usec(it.Rec.TUS), 0)
	default:
		ss.speedChanges = ss.speedChanges[:0]
		var ok bool
		if due, ok = x.env.Timing.Take(now, spin, it.Epoch); !ok {
			return due, false
		}
	}
	if f := it.Fault; f != nil && f.Kind == chaos.Burst {
		ss.burst = f.BurstSize() - 1
	}
	return due.Add(it.Delay), true // add_delay: later than due, on purpose
}

// spin is how long before a due time the actor stops sleeping on a timer
// and yields in a loop instead (timers can fire up to a millisecond
// late). Only while there are no more sessions than processors: beyond
// that the spinning would take the time other sessions need.
func (x *Actor) spin() time.Duration {
	if x.env.Live() > int64(runtime.GOMAXPROCS(0)) {
		return 0
	}
	return scheduler.DefaultSpin
}

// setPace points the pace timer at t.
func (x *Actor) setPace(t time.Time) {
	if x.paceAt.Equal(t) {
		return
	}
	x.pace.Stop()
	x.paceAt = t
	x.pace.Reset(time.Until(t))
}

// anchorHandshake starts the session's clock again when its live
// handshake has completed: the message recorded after the handshake goes
// out at its recorded gap after the recorded answer, counted from the
// live one. Speeds that pace by count have no anchor: the event is told.
func (x *Actor) anchorHandshake(p *pend) {
	if p.req.Injected || p.req.RPC.Method != mcp.MethodInitialize || p.anchored || !p.answered() {
		return
	}
	at := time.Now()
	if p.actual != nil {
		at = p.actual.At
	}
	if !x.env.Speed().ByTime() {
		p.anchored = true
		x.ev.message(at, event.Anchored, p.req)
		return
	}
	if p.expected == nil {
		return // anchored when the recorded answer comes
	}
	p.anchored = true
	x.ev.message(at, event.Anchored, p.req)
	x.ss.anchor(x.env.Speed(), at, p.expected.Rec.TUS)
	x.ss.clockEpoch, x.ss.frozen = p.req.Epoch, x.env.Timing.Frozen()
}

// usec is a tape offset in microseconds as a duration.
func usec(us int64) time.Duration { return time.Duration(us) * time.Microsecond }

// setSpeed changes the pace of the session at now. At a speed that
// paces by recorded time the next message's due time follows the rule of
// scheduler.Clock.WithSpeed, later ones the new speed from it. Speeds that
// pace by count take the shared tickets, which Engine.SetSpeed moves; the
// session's clock starts again at its next message when a speed that paces
// by recorded time comes back.
func (x *Actor) setSpeed(s scheduler.Speed, now time.Time) {
	ss := x.ss
	head := x.head()
	// movable: the head's due time may still change (not a burst, not
	// let through by the gate, not waiting at it).
	movable := head != nil && !head.burst && !head.admitted && ss.gating != head
	byClock := ss.clockSet && ss.clock.Speed().ByTime() // the session's clock sets due times
	switch {
	case !s.ByTime() || !byClock:
		ss.clockSet, ss.speedChanges = false, ss.speedChanges[:0]
		if movable && (byClock || head.Timing.Due.IsZero()) {
			head.Timing.Due = time.Time{} // due again by the new speed
			x.paceAt = time.Time{}
			x.pace.Stop()
		}
	case movable && !head.Timing.Due.IsZero():
		// The head's due time was set by the old speed: set it again.
		ss.clock = ss.clock.WithSpeed(s, now, usec(head.Rec.TUS), 0)
		head.Timing.Due = ss.clock.Due(usec(head.Rec.TUS), 0).Add(head.Delay)
		x.paceAt = time.Time{}
		x.pace.Stop()
	default:
		ss.speedChanges = append(ss.speedChanges, speedChange{speed: s, at: now})
	}
	x.env.Log.Debug().Str("session", ss.name).Str("speed", s.String()).Msg("speed changed")
}

// head is the session's next message, or nil.
func (x *Actor) head() *Item {
	if len(x.ss.backlog) == 0 {
		return nil
	}
	return x.ss.backlog[0]
}

// speedChange is a change of speed not yet applied to a session's clock:
// it is, once the next message's offset is known.
type speedChange struct {
	speed scheduler.Speed
	at    time.Time
}
