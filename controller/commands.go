package controller

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/replayctl/replayctl/internal/jsonscan"
	"github.com/replayctl/replayctl/internal/match"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
)

type cmdKind uint8

const (
	cmdStart cmdKind = iota
	cmdPause
	cmdResume
	cmdStep
	cmdSeekBegin
	cmdSeekEnd
	cmdSpeed
	cmdAddBP
	cmdDelBP
	cmdListBP
	cmdModify
	cmdStatus
	cmdWaitStop
	cmdPosition
	cmdInterrupt
)

// command is a request to the controller's goroutine. reply is buffered,
// so the controller never blocks on a caller that gave up.
type command struct {
	kind  cmdKind
	n     int
	seq   int64
	base  uint64 // cmdSeekEnd: the epoch floor when the seek began
	err   error  // cmdSeekEnd: what Replay.Seek returned
	speed scheduler.Speed
	cond  *Condition
	msg   []byte
	reply chan reply
}

type reply struct {
	err     error
	status  Status
	results []report.Result
	bp      Breakpoint
	bps     []Breakpoint
	seq     int64
	base    uint64
}

// do sends cmd and waits for its reply, ctx, or the end of Run.
func (c *Controller) do(ctx context.Context, cmd command) (reply, error) {
	cmd.reply = make(chan reply, 1)
	select {
	case c.cmds <- cmd:
	case <-ctx.Done():
		return reply{}, ctx.Err()
	case <-c.done:
		return reply{}, ErrStopped
	}
	select {
	case r := <-cmd.reply:
		return r, r.err
	case <-ctx.Done():
		return reply{}, ctx.Err()
	case <-c.done:
		return reply{}, ErrStopped
	}
}

// Start begins the replay: the gate opens (WithStartRunning) or the
// replay pauses before the first message, Status saying "start". Starting
// a started replay does nothing. It returns when the state has changed.
func (c *Controller) Start(ctx context.Context) error {
	_, err := c.do(ctx, command{kind: cmdStart})
	return err
}

// Pause closes the gate and returns when every message it has let through
// has been Sent: once Pause has returned, nothing more reaches the target
// until Resume or Step. Pausing a paused replay waits the same way. A step
// in progress releases nothing more.
func (c *Controller) Pause(ctx context.Context) error {
	_, err := c.do(ctx, command{kind: cmdPause})
	return err
}

// Interrupt is Pause for a user who will not wait (Ctrl-C): a step under
// way returns at once, with the results so far and ErrInterrupted, even
// while an answer is awaited; its messages in flight are still judged
// (Status, Subscribe and the engine's results report them). It returns as
// Pause does.
func (c *Controller) Interrupt(ctx context.Context) error {
	_, err := c.do(ctx, command{kind: cmdInterrupt})
	return err
}

// Resume (continue) opens the gate and returns at once; WaitStop waits
// until the replay pauses again or ends. Resuming an idle replay starts
// it. It returns ErrEnded when the tape is finished.
func (c *Controller) Resume(ctx context.Context) error {
	_, err := c.do(ctx, command{kind: cmdResume})
	return err
}

// Step lets n messages through, one at a time, and returns the results of
// those that went, once each has been judged. It stops early, with fewer
// results and no error, at a breakpoint, a paused-on error, Pause or the
// end of the tape. It returns ErrRunning when the replay is running,
// ErrBusy when a step is under way, ErrInterrupted (with the results so
// far) when a Seek or an Interrupt cuts it short, and ctx.Err() when ctx is done (the step
// then goes on).
func (c *Controller) Step(ctx context.Context, n int) ([]report.Result, error) {
	if n < 1 {
		return nil, fmt.Errorf("controller: step %d: want 1 or more", n)
	}
	r, err := c.do(ctx, command{kind: cmdStep, n: n})
	return r.results, err
}

// Seek repositions the replay at seq: the engine's loader goes on from
// there in a new epoch, and nothing of the older one is sent after Seek
// returns (the gate drops it with ErrStale). A running replay goes on
// running from seq; a paused or ended one is paused before seq. A step
// under way returns ErrInterrupted.
func (c *Controller) Seek(ctx context.Context, seq int64) error {
	if seq < 0 {
		return fmt.Errorf("controller: seek %d: a seq is 0 or more", seq)
	}
	r, err := c.do(ctx, command{kind: cmdSeekBegin, seq: seq})
	if err != nil {
		return fmt.Errorf("seek %d: %w", seq, err)
	}
	serr := c.r.Seek(ctx, seq)
	// The end of the seek must reach the controller even when ctx is done,
	// or the gate would stay shut; it only waits for Run.
	_, err = c.do(context.WithoutCancel(ctx), command{kind: cmdSeekEnd, seq: seq, base: r.base, err: serr})
	if serr != nil {
		return fmt.Errorf("seek %d: %w", seq, serr)
	}
	if err != nil {
		return fmt.Errorf("seek %d: %w", seq, err)
	}
	return nil
}

// SeekMatch seeks to the next client message after the current one that
// matches spec (a breakpoint spec: seq, method or expression), read with
// Replay.Lookup, and returns its seq. ErrNoMatch when none does.
func (c *Controller) SeekMatch(ctx context.Context, spec string) (int64, error) {
	cond, err := ParseCondition(spec)
	if err != nil {
		return 0, err
	}
	r, err := c.do(ctx, command{kind: cmdPosition})
	if err != nil {
		return 0, err
	}
	var env match.Env
	for seq := r.seq; ; seq++ {
		if seq%1024 == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		m, ok := c.r.Lookup(seq)
		if !ok {
			return 0, fmt.Errorf("seek to %q from seq %d: %w", cond.Spec(), r.seq, ErrNoMatch)
		}
		if m.Dir == report.DirS2C {
			continue
		}
		env.Reset(m)
		if ok, _ := cond.MatchEnv(&env); ok {
			return seq, c.Seek(ctx, seq)
		}
	}
}

// SetSpeed changes the pacing (Replay.SetSpeed) and what Status reports.
func (c *Controller) SetSpeed(ctx context.Context, s scheduler.Speed) error {
	if err := s.Validate(); err != nil {
		return fmt.Errorf("controller: set speed: %w", err)
	}
	_, err := c.do(ctx, command{kind: cmdSpeed, speed: s})
	return err
}

// AddBreakpoint adds a breakpoint (see ParseCondition for spec) and
// returns it with its id.
func (c *Controller) AddBreakpoint(ctx context.Context, spec string) (Breakpoint, error) {
	cond, err := ParseCondition(spec)
	if err != nil {
		return Breakpoint{}, err
	}
	r, err := c.do(ctx, command{kind: cmdAddBP, cond: cond})
	return r.bp, err
}

// RemoveBreakpoint removes breakpoint id; ErrNoBreakpoint if there is none.
func (c *Controller) RemoveBreakpoint(ctx context.Context, id int) error {
	_, err := c.do(ctx, command{kind: cmdDelBP, n: id})
	return err
}

// Breakpoints returns the breakpoints, by id.
func (c *Controller) Breakpoints(ctx context.Context) ([]Breakpoint, error) {
	r, err := c.do(ctx, command{kind: cmdListBP})
	return r.bps, err
}

// Inject sends msg (a JSON object), which is not on the tape, on session's
// connection through Replay.Inject, and returns what it returned.
func (c *Controller) Inject(ctx context.Context, session string, msg []byte) error {
	if err := checkObject(msg); err != nil {
		return fmt.Errorf("inject into session %q: %w", session, err)
	}
	if _, err := c.do(ctx, command{kind: cmdStatus}); err != nil {
		return err
	}
	if err := c.r.Inject(ctx, session, msg); err != nil {
		return fmt.Errorf("inject into session %q: %w", session, err)
	}
	return nil
}

// ModifyNext makes the next message the gate lets through go out as msg (a
// JSON object) instead: a one-off transform. A second call replaces it.
func (c *Controller) ModifyNext(ctx context.Context, msg []byte) error {
	if err := checkObject(msg); err != nil {
		return fmt.Errorf("modify next message: %w", err)
	}
	_, err := c.do(ctx, command{kind: cmdModify, msg: append([]byte(nil), msg...)})
	return err
}

// Status returns a snapshot of the replay.
func (c *Controller) Status(ctx context.Context) (Status, error) {
	r, err := c.do(ctx, command{kind: cmdStatus})
	return r.status, err
}

// WaitStop blocks until the replay is at rest — paused (breakpoint, error,
// step done, Pause) with every released message Sent, or ended — and
// returns the status then. It returns at once if it already is.
func (c *Controller) WaitStop(ctx context.Context) (Status, error) {
	r, err := c.do(ctx, command{kind: cmdWaitStop})
	return r.status, err
}

// Stop stops the controller and waits until Run has returned, or ctx is
// done. It can be called any number of times, from any goroutine.
func (c *Controller) Stop(ctx context.Context) error {
	c.stopOnce.Do(func() { close(c.quit) })
	select {
	case <-c.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// checkObject accepts valid JSON whose top level is an object.
func checkObject(msg []byte) error {
	if !json.Valid(msg) {
		return fmt.Errorf("%w: invalid JSON", ErrBadMessage)
	}
	if err := jsonscan.Members(msg, func(jsonscan.Member) bool { return false }); err != nil {
		return fmt.Errorf("%w: %v", ErrBadMessage, err)
	}
	return nil
}

// Lookup returns the tape's message with that seq, as the replay reads it
// (Replay.Lookup), for a front end's list and print: the bytes as
// recorded, credentials and secrets included (hide them before showing
// it). It does not go through Run's goroutine and may be called at any
// time, from any goroutine.
func (c *Controller) Lookup(seq int64) (Msg, bool) { return c.r.Lookup(seq) }

// NextClient returns the first client message of the tape at or after
// seq (Lookup's bytes), false when none is left: where a replay whose
// Status.Seq is seq stands for a person, since a Seq may be a server
// message the replay does not send (an answer). Every front end (the
// REPL's status, the browser view) says "before" this message. Like
// Lookup, it may be called from any goroutine.
func (c *Controller) NextClient(seq int64) (Msg, bool) {
	for s := max(seq, 0); s < seq+nextClientScan; s++ {
		m, ok := c.r.Lookup(s)
		if !ok {
			return Msg{}, false
		}
		if m.Dir == report.DirC2S {
			return m, true
		}
	}
	return Msg{}, false
}

// nextClientScan bounds NextClient's scan past server messages.
const nextClientScan = 10000
