package engine

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

// due reports whether a paced message may go now by the session's clock;
// if not, the pace timer is set for its due time. Without per-session
// pacing the schedule stage has released it already.
//
// The session's clock starts when the session can talk: its first message
// is due when the connection is ready, and the clock is anchored again
// when the live handshake completes (see anchorHandshake). Every due time
// counts from the anchor: anchor + (recorded offset − anchor's offset) ÷
// speed, never "the gap since the previous message".
func (x *actor) due(ctx context.Context, ss *session, it *Item) (bool, error) {
	if !x.e.perSession {
		return true, nil
	}
	if it.Timing.Due.IsZero() {
		now := time.Now()
		if !ss.clockSet {
			ss.anchor(x.e.speed(), now, it.Rec.TUS)
		}
		for _, c := range ss.speedChanges { // later messages follow the new speed
			ss.clock = ss.clock.WithSpeed(c.speed, c.at, usec(it.Rec.TUS), 0)
		}
		ss.speedChanges = ss.speedChanges[:0]
		due := ss.clock.Due(usec(it.Rec.TUS), 0)
		if ss.burst > 0 { // a burst fault: sent at once, not when due
			ss.burst--
			due, it.burst = now, true
		} else if f := it.Fault; f != nil && f.Kind == chaos.Burst {
			ss.burst = f.BurstSize() - 1
		}
		it.Timing.Due = due.Add(it.Delay) // add_delay: later than due, on purpose
	}
	wait := time.Until(it.Timing.Due)
	if wait <= 0 {
		return true, nil
	}
	spin := x.spin()
	if wait > spin {
		x.setPace(it.Timing.Due.Add(-spin))
		return false, nil
	}
	if err := scheduler.SpinUntil(ctx, it.Timing.Due); err != nil {
		return false, err
	}
	return true, nil
}

// spin is how long before a due time the actor stops sleeping on a timer
// and yields in a loop instead (timers can fire up to a millisecond
// late). Only while there are no more sessions than processors: beyond
// that the spinning would take the time other sessions need.
func (x *actor) spin() time.Duration {
	if x.e.actorsLive.Load() > int64(runtime.GOMAXPROCS(0)) {
		return 0
	}
	return scheduler.DefaultSpin
}

// setPace points the pace timer at t.
func (x *actor) setPace(t time.Time) {
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
// live one. It tells a globally paced schedule too (see
// Engine.waitHandshake).
func (x *actor) anchorHandshake(p *pend) {
	if p.req.Injected || p.req.RPC.Method != mcp.MethodInitialize || p.anchored || !p.answered() {
		return
	}
	at := time.Now()
	if p.actual != nil {
		at = p.actual.At
	}
	if !x.e.perSession { // the schedule stage paces, and waits for this
		p.anchored = true
		x.event(at, event.Anchored, p.req)
		x.e.handshook(handshake{session: x.ss.name, epoch: p.req.Epoch, at: at})
		return
	}
	if p.expected == nil {
		return // anchored when the recorded answer comes
	}
	p.anchored = true
	x.event(at, event.Anchored, p.req)
	x.ss.anchor(x.e.speed(), at, p.expected.Rec.TUS)
}

// usec is a tape offset in microseconds as a duration.
func usec(us int64) time.Duration { return time.Duration(us) * time.Microsecond }

// setSpeed changes the pace of the session's clock at now: the next
// message's due time follows the rule of scheduler.Clock.WithSpeed, later
// ones the new speed from it.
func (x *actor) setSpeed(s scheduler.Speed, now time.Time) {
	ss := x.ss
	if !x.e.perSession || !ss.clockSet {
		return
	}
	if len(ss.backlog) > 0 && !ss.backlog[0].Timing.Due.IsZero() {
		// The head's due time was set by the old speed: set it again.
		head := ss.backlog[0]
		ss.clock = ss.clock.WithSpeed(s, now, usec(head.Rec.TUS), 0)
		if !head.burst {
			head.Timing.Due = ss.clock.Due(usec(head.Rec.TUS), 0).Add(head.Delay)
		}
		x.paceAt = time.Time{}
		x.pace.Stop()
		x.e.log.Debug().Str("session", ss.name).Str("speed", s.String()).Msg("speed changed")
		return
	}
	ss.speedChanges = append(ss.speedChanges, speedChange{speed: s, at: now})
}

// speedChange is a change of speed not yet applied to a session's clock:
// it is, once the next message's offset is known.
type speedChange struct {
	speed scheduler.Speed
	at    time.Time
}
