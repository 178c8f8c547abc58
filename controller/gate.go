package controller

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/replayctl/replayctl/internal/match"
	"github.com/replayctl/replayctl/report"
)

// Admission is the gate's answer for a message it let through.
type Admission struct {
	// Replace is a one-off replacement set by ModifyNext: send it instead
	// of the message. nil: send the message as it is.
	Replace []byte
	// HeldFrom and HeldUntil say when the gate held the message closed
	// (paused, idle, seeking); both zero when it passed at once. Replay
	// time stood still meanwhile: the caller's clock should stand still
	// from HeldFrom to HeldUntil, so that later due times move by the
	// hold, as if it had not happened.
	HeldFrom, HeldUntil time.Time
}

// Held returns how long the gate held the message closed.
func (a Admission) Held() time.Duration { return a.HeldUntil.Sub(a.HeldFrom) }

type gateReq struct {
	m     Msg
	epoch uint64
	reply chan gateReply // buffered: the controller never blocks on it
	// owned by Run's goroutine:
	checked  bool      // held by a closed gate or at a breakpoint
	heldAt   time.Time // when a closed gate first held it
	released bool
	answered bool
}

type gateReply struct {
	adm Admission
	err error
}

// Admit is the gate a client message passes, once it falls due, before
// its session's actor sends it. Each actor calls it for its messages, in
// order, with the engine's epoch of the message (see Replay.Seek); with
// several sessions, messages come in the order they fall due. It blocks
// while the replay is idle or paused, lets exactly one message through per
// step, and closes before a message a breakpoint matches (Status then says
// which). It returns ErrStale for a message of an epoch older than the last
// Seek (drop it), ErrStopped once the controller has stopped, and
// ctx.Err() when ctx is done (the message is then not counted as
// released).
//
// Every message Admit lets through must be reported with Sent once it has
// left its session's actor (written, or dropped), and with Judged once it
// has a verdict: Pause and Step wait for them.
func (c *Controller) Admit(ctx context.Context, m Msg, epoch uint64) (Admission, error) {
	g := &gateReq{m: m, epoch: epoch, reply: make(chan gateReply, 1)}
	select {
	case c.gates <- g:
	case <-ctx.Done():
		return Admission{}, ctx.Err()
	case <-c.done:
		return Admission{}, ErrStopped
	}
	select {
	case r := <-g.reply:
		return r.adm, r.err
	case <-c.done:
		return Admission{}, ErrStopped
	case <-ctx.Done():
	}
	select {
	case c.withdraw <- g:
	case <-c.done:
	}
	return Admission{}, ctx.Err()
}

// Sent reports that a message the gate let through has left its session's
// actor: it is on the wire (or was dropped there). It returns at once after
// Stop.
func (c *Controller) Sent(seq int64) { c.post(event{kind: evSent, seq: seq}) }

// Judged reports the verdict of a message (Verdict Timeout when no answer
// came). With OnErrorPause a failed, error or timeout verdict pauses the
// replay. It returns at once after Stop.
func (c *Controller) Judged(r report.Result) { c.post(event{kind: evJudged, result: r}) }

// End reports that the tape is finished: the state becomes Ended and
// WaitStop returns. It returns at once after Stop.
func (c *Controller) End() { c.post(event{kind: evEnd}) }

type evKind uint8

const (
	evSent evKind = iota
	evJudged
	evEnd
)

type event struct {
	kind   evKind
	seq    int64
	result report.Result
}

func (c *Controller) post(ev event) {
	select {
	case c.events <- ev:
	case <-c.done:
	}
}

// admit takes in a message arriving at the gate.
func (c *Controller) admit(g *gateReq) {
	// A loaded message's epoch is never above the engine's current one,
	// so every message older than it is stale.
	c.minEpoch = max(c.minEpoch, g.epoch)
	c.held = append(c.held, g)
}

// unadmit withdraws a message whose Admit gave up (ctx done).
func (c *Controller) unadmit(g *gateReq) {
	if g.released {
		if c.unsent.remove(g.m.Seq) {
			c.released--
		}
		c.unjudged.remove(g.m.Seq)
		if c.step != nil {
			c.step.pending.remove(g.m.Seq)
		}
		return
	}
	for i, h := range c.held {
		if h == g {
			c.held = append(c.held[:i], c.held[i+1:]...)
			break
		}
	}
}

func (c *Controller) view() gateView {
	return gateView{
		State:    c.state,
		Seeking:  c.seeking > 0,
		MinEpoch: c.minEpoch,
		Lockstep: c.onError == OnErrorPause,
		Unjudged: c.unjudged.n,
	}
}

// pump decides for the held messages, oldest first: stale ones are
// dropped wherever they are; the others pass in order until one is held.
func (c *Controller) pump() {
	kept := c.held[:0]
	for _, g := range c.held {
		if decideGate(c.view(), g.epoch, g.checked) == actStale {
			c.answer(g, gateReply{err: fmt.Errorf("seq %d (epoch %d): %w", g.m.Seq, g.epoch, ErrStale)})
			continue
		}
		kept = append(kept, g)
	}
	clear(c.held[len(kept):])
	c.held = kept
	for len(c.held) > 0 {
		g := c.held[0]
		switch decideGate(c.view(), g.epoch, g.checked) {
		case actHold:
			if c.state == Paused && c.seeking == 0 {
				g.checked = true
			}
			if g.heldAt.IsZero() && (c.state != Running || c.seeking > 0) {
				g.heldAt = now()
			}
			return
		case actCheck:
			if g.m.Seq == c.standOn {
				break // a seek stood on it: it was reached, not hit
			}
			if bp := c.hit(g.m); bp != nil {
				bp.Hits++
				c.pause(fmt.Sprintf("breakpoint %d (%s %s)", bp.ID, bp.Kind, bp.Spec))
				g.checked, g.heldAt = true, now()
				c.log.Info().Int64("seq", g.m.Seq).Int("breakpoint", bp.ID).Msg("breakpoint hit")
				return
			}
		case actStop:
			c.answer(g, gateReply{err: ErrStopped})
			c.held = c.held[1:]
			continue
		}
		c.release(g)
		c.held[0] = nil
		c.held = c.held[1:]
	}
}

// release lets g through.
func (c *Controller) release(g *gateReq) {
	seq := g.m.Seq
	c.released++
	c.unsent.add(seq)
	c.unjudged.add(seq)
	var adm Admission
	adm.Replace, c.modify = c.modify, nil
	if !g.heldAt.IsZero() {
		adm.HeldFrom, adm.HeldUntil = g.heldAt, now()
	}
	c.next = seq + 1
	c.standOn = -1
	if c.budget > 0 {
		if c.step != nil {
			c.step.pending.add(seq)
		}
		c.budget--
		if c.budget == 0 {
			c.pause("step")
		}
	}
	g.released = true
	c.answer(g, gateReply{adm: adm})
}

func (c *Controller) answer(g *gateReq, r gateReply) {
	g.answered = true
	g.reply <- r
}

// hit returns the first breakpoint that matches m, or nil. A condition
// that fails at run time does not match; its first error is kept on the
// breakpoint, logged and put in Status.Note.
func (c *Controller) hit(m Msg) *breakpoint {
	if len(c.bps) == 0 {
		return nil
	}
	var env match.Env
	env.Reset(m)
	for _, bp := range c.bps {
		ok, err := bp.cond.MatchEnv(&env)
		if err != nil {
			if bp.Err == "" {
				bp.Err, _, _ = strings.Cut(err.Error(), "\n")
				c.note = fmt.Sprintf("breakpoint %d: %s", bp.ID, bp.Err)
				c.log.Warn().Err(err).Int("breakpoint", bp.ID).Msg("breakpoint condition failed; counted as no match")
			}
			continue
		}
		if ok {
			return bp
		}
	}
	return nil
}

// onEvent takes in a report from the pipeline.
func (c *Controller) onEvent(ev event) {
	switch ev.kind {
	case evSent:
		if c.unsent.remove(ev.seq) {
			c.sent++
		}
	case evJudged:
		r := ev.result
		c.last = &r
		if c.unjudged.remove(r.Seq) {
			c.judged++
			if c.step != nil && c.step.pending.remove(r.Seq) {
				c.step.results = append(c.step.results, r)
			}
		}
		if pausesOn(c.onError, r) && (c.state == Running || c.reason == "step") {
			c.pause(fmt.Sprintf("error at seq %d", r.Seq))
			c.log.Info().Int64("seq", r.Seq).Str("verdict", string(r.Verdict)).Msg("paused on error")
		}
	case evEnd:
		if c.state != Stopped {
			c.state, c.reason, c.budget = Ended, "end", 0
		}
	}
}
