package event

import (
	"time"

	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/validator"
)

// Type is what an event tells.
type Type string

// The event types. Every event carries its type, its time (TUS) and, where
// it applies, the session, the message's seq and method.
const (
	// Dialled: the session's connection is open. Detail: how long the
	// dial took.
	Dialled Type = "dialled"
	// Anchored: the session's live handshake completed and its clock was
	// anchored on the answer: the schedule of later messages counts from
	// TUS. Seq and Method are the initialize request's.
	Anchored Type = "anchored"
	// Due: a client message fell due by the schedule; TUS is its due
	// time, which may be earlier than the event's emission when it was
	// held.
	Due Type = "due"
	// Held: the session's next message waits for the target. Reason:
	// "handshake" (initialize's answer, which every order waits for),
	// "order" (an answer the recording had before it), "inflight" (the
	// in-flight limit), "server_request" (a request the recorded server
	// asked first), "connection" (the connection is not ready). Earlier
	// versions told the handshake's wait as "order".
	Held Type = "held"
	// Sent: the message went out. Held is how long it waited past its due
	// time for the target.
	Sent Type = "sent"
	// Answered: the live answer to a request arrived; TUS is when it was
	// read.
	Answered Type = "answered"
	// Judged: the message's verdict. Kind and Dir say what it was;
	// Verdict, Differences and Detail (the error) what was found; Lag,
	// Held and Latency the figures the report counts (see HasLag and
	// HasLatency).
	Judged Type = "judged"
	// Fault: a chaos fault was injected into the message. Reason: the
	// fault's kind.
	Fault Type = "fault"
	// Retry: a request is sent again. Attempt counts from 1; Reason says
	// why ("http_status", "validation_rule"), Detail the error.
	Retry Type = "retry"
	// Reconnect: the session's connection was opened again (after an
	// injected disconnect). Detail: why.
	Reconnect Type = "reconnect"
	// SessionEnded: the session has finished. Detail: why it stopped
	// early; empty when it replayed its part of the tape.
	SessionEnded Type = "session_ended"
	// RunEnded: the replay is over; the last event. Detail: why it
	// stopped early, if it did.
	RunEnded Type = "run_ended"
)

// Event is one thing that happened in a replay. Fields a type does not use
// are zero (and absent from its JSON line).
type Event struct {
	Type Type `json:"type"`
	// TUS is when it happened: microseconds since the run's start, by the
	// monotonic clock.
	TUS     int64  `json:"t_us"`
	Session string `json:"session,omitempty"` // the virtual session's name, e.g. "s1#3"
	Seq     int64  `json:"seq"`               // the tape's seq; -1 when no message
	Method  string `json:"method,omitempty"`
	Kind    string `json:"kind,omitempty"` // the message: request, notification, response, error
	Dir     string `json:"dir,omitempty"`  // judged: c2s or s2c
	// Name is what a judged request acts on: the tool of tools/call, the
	// prompt of prompts/get, the uri of resources/read (mcp.RequestName).
	Name string `json:"name,omitempty"`

	Reason  string `json:"reason,omitempty"`
	Detail  string `json:"detail,omitempty"`
	Attempt int    `json:"attempt,omitempty"`

	Verdict     string       `json:"verdict,omitempty"`
	Differences []Difference `json:"differences,omitempty"`
	// Held (sent, judged), Lag and Latency (judged), as the report counts
	// them (report.Figures): Lag when HasLag (a client message sent), Held
	// when HasHeld (sent, with a due time), Latency when HasLatency (a
	// request answered in time). In JSON: held_us, lag_us, latency_us,
	// present only then.
	Held       time.Duration `json:"-"`
	Lag        time.Duration `json:"-"`
	Latency    time.Duration `json:"-"`
	HasLag     bool          `json:"-"`
	HasHeld    bool          `json:"-"`
	HasLatency bool          `json:"-"`

	// Result (judged) is the result itself, as the report counts it, for
	// consumers in Go (the report's collector, the progress line, the
	// debugger); it is not written to JSON, and nil in an event read
	// back. Its bytes (Out, Answer, Recorded) are set in a controlled
	// replay only (the debugger shows them): a buffered event keeps no
	// answer alive otherwise. Shared by every consumer: read it, do not
	// change it.
	Result *report.Result `json:"-"`
	// Fault (judged) is the chaos fault injected into the message, as the
	// report lists it; nil when none. Not in JSON (see the fault event).
	Fault *report.Fault `json:"-"`
}

// Difference is one place where a live answer differs from the recorded
// one: a JSON path, the expected and actual values (JSON; nil: absent)
// and the kind of difference, as in the report. It is the validator's
// (an absent value is left out of its JSON).
type Difference = validator.Difference

// Stamp is t as an event time: microseconds since start, rounded.
func Stamp(start, t time.Time) int64 { return micros(t.Sub(start)) }

// micros is d in whole microseconds, rounded half away from zero as
// d.Round(time.Microsecond) does (the report's histograms), without its
// general case.
func micros(d time.Duration) int64 {
	if d < 0 {
		return -int64((-d + 500) / 1000)
	}
	return int64((d + 500) / 1000)
}
