package controller

import (
	"fmt"
	"slices"
)

// Breakpoint is a breakpoint as commands report it.
type Breakpoint struct {
	ID   int
	Spec string
	Kind string // KindSeq, KindMethod or KindExpr
	Hits int    // times it stopped the replay
	// Err is the first run-time error of its condition, if any; a failing
	// condition counts as no match.
	Err string
}

type breakpoint struct {
	Breakpoint
	cond *Condition
}

// handle runs a command on the controller's goroutine. Commands that wait
// for the pipeline (Pause, Step, WaitStop) are answered by settle.
func (c *Controller) handle(cmd command) {
	switch cmd.kind {
	case cmdStart:
		if c.state == Idle {
			if c.startRunning {
				c.state, c.reason = Running, ""
			} else {
				c.pause("start")
			}
		}
	case cmdPause, cmdInterrupt:
		if cmd.kind == cmdInterrupt && c.step != nil {
			c.step.reply <- reply{results: c.step.results, err: ErrInterrupted}
			c.step = nil
		}
		if c.state == Running || c.state == Idle {
			c.pause("pause")
		}
		c.pausers = append(c.pausers, cmd.reply)
		return
	case cmdResume:
		if c.state == Ended {
			cmd.reply <- reply{err: fmt.Errorf("resume: %w", ErrEnded)}
			return
		}
		c.state, c.reason, c.budget = Running, "", 0
	case cmdStep:
		if err := c.canStep(); err != nil {
			cmd.reply <- reply{err: fmt.Errorf("step %d: %w", cmd.n, err)}
			return
		}
		c.state, c.reason, c.budget = Running, "step", cmd.n
		c.step = &stepRun{reply: cmd.reply}
		return
	case cmdSeekBegin:
		c.seeking++
		if c.step != nil {
			c.step.reply <- reply{results: c.step.results, err: ErrInterrupted}
			c.step = nil
		}
		if c.budget > 0 {
			c.pause("seek")
		}
		cmd.reply <- reply{base: c.minEpoch}
		return
	case cmdSeekEnd:
		c.seeking--
		if cmd.err == nil {
			c.seekDone(cmd)
		}
	case cmdSpeed:
		c.speed = cmd.speed
		c.r.SetSpeed(cmd.speed)
	case cmdAddBP:
		c.lastBP++
		bp := &breakpoint{Breakpoint: Breakpoint{ID: c.lastBP, Spec: cmd.cond.Spec(), Kind: cmd.cond.Kind()}, cond: cmd.cond}
		c.bps = append(c.bps, bp)
		cmd.reply <- reply{bp: bp.Breakpoint}
		return
	case cmdDelBP:
		i := slices.IndexFunc(c.bps, func(b *breakpoint) bool { return b.ID == cmd.n })
		if i < 0 {
			cmd.reply <- reply{err: fmt.Errorf("delete breakpoint %d: %w (list them with breakpoints)", cmd.n, ErrNoBreakpoint)}
			return
		}
		c.bps = slices.Delete(c.bps, i, i+1)
	case cmdListBP:
		bps := make([]Breakpoint, len(c.bps))
		for i, b := range c.bps {
			bps[i] = b.Breakpoint
		}
		cmd.reply <- reply{bps: bps}
		return
	case cmdModify:
		c.modify = cmd.msg
	case cmdWaitStop:
		c.waiters = append(c.waiters, cmd.reply)
		return
	case cmdPosition:
		seq := c.next
		if len(c.held) > 0 {
			seq = c.held[0].m.Seq + 1
		}
		cmd.reply <- reply{seq: seq}
		return
	}
	st := c.status()
	if cmd.kind == cmdStatus {
		st.Dropped = c.subs.dropped()
	}
	cmd.reply <- reply{status: st}
}

func (c *Controller) canStep() error {
	switch {
	case c.step != nil:
		return ErrBusy
	case c.state == Ended:
		return ErrEnded
	case c.state == Running:
		return ErrRunning
	}
	return nil
}

// seekDone applies a successful Replay.Seek: messages of the epochs before
// it are stale; what was released before it will be neither sent nor
// judged; the replay goes on from seq.
func (c *Controller) seekDone(cmd command) {
	c.minEpoch = max(c.minEpoch, cmd.base+1)
	c.unsent.reset()
	c.unjudged.reset()
	c.next = cmd.seq
	c.standOn = -1
	switch c.state {
	case Ended, Idle, Paused:
		c.pause(fmt.Sprintf("seek %d", cmd.seq))
		c.standOn = cmd.seq // continue sends it, as from a breakpoint stop
	}
}
