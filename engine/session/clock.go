package session

// The actor's side of its session's pacing (pacing.go): it reads the
// clock, takes the shared tickets and sets the pace timer.

import (
	"context"
	"runtime"
	"time"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/scheduler"
)

// due reports whether a paced message may go now by its session's
// pacing; if not, the pace timer is set for when to look again.
//
// Every session paces itself. At speeds that pace by recorded time
// (realtime, Nx) by its clock (pacing.due); at speeds that pace by count
// (fixed, rps) the session takes the next of the tickets all sessions
// share when it falls due; fast and stepped do not wait (a stepped
// message waits at the gate instead). While replay time stands still (a
// controller paused) nothing is due; the actor looks again at the resume.
//
// now is a clock read the caller shares (zero: none yet): due reads the
// clock into it if it has not, and zeroes it after a spin, when it is
// stale.
func (x *Actor) due(ctx context.Context, ss *session, it *Item, now *time.Time) (bool, error) {
	timing := x.env.Timing
	if resumed := timing.Paused(); resumed != nil {
		x.resumed = resumed
		return false, nil
	}
	x.resumed = nil
	frozen := timing.Frozen()
	if d := frozen - ss.pacing.frozen; d > 0 && !it.Due.IsZero() {
		it.Due = it.Due.Add(d) // it waited while replay time stood still
	}
	if now.IsZero() {
		*now = time.Now()
	}
	if it.Due.IsZero() {
		m := pacedOf(it)
		sp := x.env.Speed()
		p, due, v := ss.pacing.due(m, sp, *now, frozen)
		if v == dueTicket {
			var spin time.Duration // only speeds by count take a ticket ahead of time
			if sp.Mode == scheduler.Fixed || sp.Mode == scheduler.Rate {
				spin = x.spin(ss)
			}
			var ok bool
			if due, ok = timing.Take(*now, spin, it.Epoch); !ok {
				// No ticket yet: look again when the next one falls due.
				ss.pacing = p
				x.pace.set(due.Add(-spin))
				return false, nil
			}
			p, due = p.ticketed(m, due)
		}
		ss.pacing, it.Due, it.burst = p, due, v == dueBurst
	} else {
		ss.pacing = ss.pacing.thawed(frozen)
	}
	// One clock read per message: the due time just computed from now
	// is compared with the same now.
	wait := it.Due.Sub(*now)
	if wait <= 0 {
		return true, nil
	}
	// Rarely here at the speeds that do not wait (fast, stepped): the
	// spin, which reads GOMAXPROCS under the runtime's lock, only now.
	spin := x.spin(ss)
	if wait > spin {
		if spin == 0 && x.env.Spin > 0 && spinFor(x.env.Spin, x.env.Live(), false) > 0 {
			// It would spin but for the answers it awaits over the
			// network: the timer until the spin's stretch, then a
			// wake-up the kernel times, to the microsecond, with the
			// processor free for the answers.
			if wait > x.env.Spin {
				x.pace.set(it.Due.Add(-x.env.Spin))
			} else {
				x.pace.setKernel(it.Due)
			}
			return false, nil
		}
		x.pace.set(it.Due.Add(-spin))
		return false, nil
	}
	*now = time.Time{} // stale once spun
	if err := x.flush(ctx); err != nil {
		return false, err
	}
	if err := scheduler.SpinUntil(ctx, it.Due); err != nil {
		return false, err
	}
	return true, nil
}

// spin is how long before its next due time the actor spins (spinFor).
func (x *Actor) spin(ss *session) time.Duration {
	awaiting := ss.inflight > 0 && ss.conn != nil && !ss.instant
	return spinFor(x.env.Spin, x.env.Live(), awaiting)
}

// spinFor is how long before a due time an actor stops sleeping on a
// timer and yields in a loop instead (timers can fire up to a millisecond
// late): spin (Env.Spin), with live sessions connected, and awaiting
// whether the session waits for answers the runtime's network poller
// brings (HTTP, a pipe: every target but the in-process mock).
//
// Only while there are no more sessions than processors: beyond that the
// spinning would take the time other sessions need. And not while
// awaiting: a goroutine that yields in a loop is always runnable, and a
// processor with a runnable goroutine does not poll the network, so with
// every processor busy (one, for a client pinned to a core) an answer, or
// a connection being made, waited for the runtime's monitor to poll, up
// to 10 ms: calls sent on time at 10x arrived 42 ms late (BENCHMARKS.md,
// issue 24, third round). Sleeping on the timer instead lets the network
// in, at the timer's precision (up to 1 ms late).
func spinFor(spin time.Duration, live int64, awaiting bool) time.Duration {
	if awaiting || live > int64(runtime.GOMAXPROCS(0)) {
		return 0
	}
	return spin
}

// alarm is a timer pointed at a time, set again only when the time moves
// (the runtime's timer lock is not taken on every look). setKernel
// points it at a time by a wake-up the kernel times (kernelWake) where
// one can be made: for a session that would spin but for the answers it
// awaits over the network.
type alarm struct {
	t      *time.Timer
	at     time.Time // zero: not set
	kernel bool      // at is kept by w, not t
	w      *kernelWake
	tried  bool      // newKernelWake was called
	last   time.Time // the clock when w was last set
}

func newAlarm() alarm { return alarm{t: stoppedTimer()} }

// C is the channel that ticks when the alarm's time comes.
func (a *alarm) C() <-chan time.Time {
	if a.kernel {
		return a.w.c
	}
	return a.t.C
}

// set points the alarm at t.
func (a *alarm) set(t time.Time) { a.point(t, false) }

// setKernel points the alarm at t by the kernel's wake-up, or by the
// timer where there is none, or where time stands still between two
// settings (testing/synctest's fake clock, which the kernel does not
// keep; as scheduler.SpinUntil does).
func (a *alarm) setKernel(t time.Time) {
	if !a.tried {
		a.tried, a.w = true, newKernelWake()
	}
	now := time.Now()
	kernel := a.w != nil && now.After(a.last)
	if kernel {
		a.last = now
	}
	a.point(t, kernel)
}

func (a *alarm) point(t time.Time, kernel bool) {
	if a.at.Equal(t) && a.kernel == kernel {
		return
	}
	a.disarm()
	a.at, a.kernel = t, kernel
	if kernel {
		a.w.arm(time.Until(t))
		return
	}
	a.t.Reset(time.Until(t))
}

func (a *alarm) disarm() {
	if a.kernel {
		a.w.stop()
		a.kernel = false
		return
	}
	a.t.Stop()
}

// fired is called when the alarm's channel gave a tick.
func (a *alarm) fired() { a.at = time.Time{} }

// stop stops the alarm.
func (a *alarm) stop() {
	a.disarm()
	a.at = time.Time{}
}

// close stops the alarm for good.
func (a *alarm) close() {
	a.stop()
	if a.w != nil {
		a.w.close()
	}
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
	speed := x.env.Speed()
	if speed.ByTime() && p.expected == nil {
		return // anchored when the recorded answer comes
	}
	p.anchored = true
	x.ev.message(at, event.Anchored, p.req)
	if speed.ByTime() {
		// No message after the handshake has a due time yet: every order
		// holds the session at initialize until its answer (see
		// receiver.recorded), so none was found due by the clock before
		// this anchor (TestScheduleHoldsAfterLateAnswers/none).
		x.ss.pacing = x.ss.pacing.anchored(speed, at, p.expected.Rec.TUS, p.req.Epoch, x.env.Timing.Frozen())
	}
}

// movableHead is the session's next message if its due time may still
// move: not a burst, not let through by the gate, not waiting at it.
func (x *Actor) movableHead() *Item {
	ss := x.ss
	if it := ss.head(); it != nil && !it.burst && !it.admitted && ss.gating != it {
		return it
	}
	return nil
}

// setSpeed changes the pace of the session at now (pacing.speedChange).
func (x *Actor) setSpeed(s scheduler.Speed, now time.Time) {
	ss := x.ss
	var head *paced
	var due time.Time
	if it := x.movableHead(); it != nil {
		m := pacedOf(it)
		head, due = &m, it.Due
	}
	p, newDue := ss.pacing.speedChange(s, now, head, due)
	ss.pacing = p
	if head != nil && !newDue.Equal(due) {
		ss.head().Due = newDue
		x.pace.stop()
	}
	x.env.Log.Debug().Str("session", ss.name).Str("speed", s.String()).Msg("speed changed")
}
