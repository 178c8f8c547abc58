package controller

import (
	"fmt"

	"github.com/replayctl/replayctl/report"
)

// State is where the replay is.
type State string

// The states of a replay.
const (
	// Idle: Start has not been called; the gate holds everything.
	Idle State = "idle"
	// Running: the gate lets messages through (during a step too: Status
	// then says "step").
	Running State = "running"
	// Paused: the gate is closed; nothing more reaches the target.
	Paused State = "paused"
	// Ended: the tape is finished (End was called). Seek to go on.
	Ended State = "ended"
	// Stopped: the controller is gone; every command returns ErrStopped.
	Stopped State = "stopped"
)

// Status is a snapshot of the replay, as Status returns it and subscribers
// receive it. It is a value; Last is shared and must not be changed.
type Status struct {
	State State
	// Seq is the next message to be sent: the one held at the gate, or
	// one past the last released (the target of the last seek).
	Seq int64
	// Reason says why the replay is paused or running a step:
	// "start", "pause", "step",
	// "breakpoint 2 (method tools/call)", "error at seq 12", "seek 5".
	Reason string
	Speed  string
	// Last is the last judged result, or nil.
	Last *report.Result
	// Released counts messages the gate let through, Sent those on the
	// wire, Judged those with a verdict, since the start.
	Released, Sent, Judged int64
	// Dropped counts the updates this subscriber lost because it did not
	// read them in time (Status: summed over all subscribers).
	Dropped int64
	// Note reports, once, a breakpoint condition that failed at run time.
	Note string
}

// OnError is what the controller does when a message is judged an error.
type OnError int

// The on-error policies.
const (
	// OnErrorPause pauses the replay at a message judged failed, error or
	// timeout. The gate then runs in lockstep: it releases a message only
	// when every message it released before has been judged, so the
	// replay stops at the failing message, before the next one is sent.
	// The default (the controller is the debugger's).
	OnErrorPause OnError = iota
	// OnErrorContinue only records the verdict.
	OnErrorContinue
)

// ParseOnError reads an --on-error value: "pause" or "continue".
func ParseOnError(s string) (OnError, error) {
	switch s {
	case "pause", "":
		return OnErrorPause, nil
	case "continue":
		return OnErrorContinue, nil
	}
	return 0, fmt.Errorf("on-error %q: want pause or continue", s)
}

// String returns the name ParseOnError reads.
func (o OnError) String() string {
	if o == OnErrorContinue {
		return "continue"
	}
	return "pause"
}

// pausesOn reports whether a judged result pauses the replay under policy.
func pausesOn(policy OnError, r report.Result) bool {
	if policy != OnErrorPause {
		return false
	}
	switch r.Verdict {
	case report.Failed, report.Error, report.Timeout:
		return true
	}
	return false
}

// gateAction is what the gate does with a message.
type gateAction uint8

const (
	actHold  gateAction = iota // keep it; decide again when the state changes
	actPass                    // let it through
	actCheck                   // let it through unless a breakpoint matches
	actStale                   // of an epoch before the last seek: drop it
	actStop                    // the controller stopped
)

var actionNames = [...]string{"hold", "pass", "check", "stale", "stop"}

func (a gateAction) String() string {
	if int(a) < len(actionNames) {
		return actionNames[a]
	}
	return fmt.Sprintf("action(%d)", int(a))
}

// gateView is what the gate decision needs of the controller's state.
type gateView struct {
	State    State
	Seeking  bool   // a Seek is under way
	MinEpoch uint64 // messages of an older epoch are stale
	Lockstep bool   // release only when everything released is judged
	Unjudged int    // released, not yet judged
}

// decideGate is the gate's rule for one message of epoch epoch. checked
// says the message was already held by a closed gate (or stopped at a
// breakpoint): when the gate opens it goes through without being checked
// against the breakpoints again, as a debugger's continue does not stop at
// the line it stands on.
func decideGate(v gateView, epoch uint64, checked bool) gateAction {
	switch {
	case v.State == Stopped:
		return actStop
	case epoch < v.MinEpoch:
		return actStale
	case v.Seeking, v.State == Idle, v.State == Paused:
		return actHold
	case v.Lockstep && v.Unjudged > 0:
		return actHold
	case checked:
		return actPass
	}
	return actCheck
}

// stepDone reports whether a step can reply: no release left to make and
// every message it released judged.
func stepDone(budget, outstanding int) bool { return budget == 0 && outstanding == 0 }
