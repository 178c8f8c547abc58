package controller

import (
	"errors"

	"github.com/replayctl/replayctl/internal/match"
)

// The sentinel errors of the controller. Commands wrap them with %w and
// say what was asked, so callers test them with errors.Is.
var (
	// ErrStopped: the controller has stopped (Stop was called, or Run's
	// context is done). Admit returns it too: the engine should stop.
	ErrStopped = errors.New("controller: stopped")
	// ErrStale: Admit was given a message of an epoch before the last
	// Seek. Drop the message; it must not be sent.
	ErrStale = errors.New("controller: message from before the last seek")
	// ErrInterrupted: a Step was cut short by a Seek or an Interrupt
	// before all the messages it released were judged.
	ErrInterrupted = errors.New("controller: step interrupted")
	// ErrBusy: a Step is already in progress; wait for it (or Pause).
	ErrBusy = errors.New("controller: a step is already in progress")
	// ErrRunning: the command needs a paused replay (step): pause first.
	ErrRunning = errors.New("controller: the replay is running; pause first")
	// ErrEnded: the tape is finished; seek back to replay more.
	ErrEnded = errors.New("controller: the tape is finished")
	// ErrNoBreakpoint: RemoveBreakpoint was given an unknown id; list them
	// with Breakpoints.
	ErrNoBreakpoint = errors.New("controller: no such breakpoint")
	// ErrNoMatch: SeekMatch found no message after the current one that
	// matches the condition.
	ErrNoMatch = errors.New("controller: no later message matches")
	// ErrBadCondition is wrapped by every error of ParseCondition; it is
	// match.ErrBadCondition.
	ErrBadCondition = match.ErrBadCondition
	// ErrBadMessage: Inject or ModifyNext was given bytes that are not a
	// JSON object.
	ErrBadMessage = errors.New("controller: not a JSON object")
	// ErrAlreadyRunning: Run was called twice.
	ErrAlreadyRunning = errors.New("controller: Run already called")
)
