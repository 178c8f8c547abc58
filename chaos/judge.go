package chaos

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/replayctl/replayctl/internal/english"
)

// Observation is what happened after one fault, as the engine saw it.
type Observation struct {
	Fault    Fault
	Answered bool // an answer to the faulted message came back
	// ErrorCode is the answer's JSON-RPC error code; nil for a result (or
	// no answer).
	ErrorCode *int
	// ServerAlive: the target was still up after the fault (the process
	// running, the endpoint answering; after a reconnect for disconnect).
	ServerAlive bool
	// LaterOK: the messages after the fault still got correct answers.
	LaterOK bool
	// Attributed counts the later answers that differed from the
	// recording and were put down to this fault (it Alters what the
	// server got), not to the server.
	Attributed int
}

// Verdict is one session's survival.
type Verdict struct {
	Session  string
	Survived bool
	// FirstBreak is the earliest fault (by seq) after which the server was
	// down or its later answers were wrong; nil when it survived.
	FirstBreak *Fault
	// Notes says, fault by fault, what was not as a good server does it:
	// "seq 12 malformed: answered -32603, want -32700 (tolerated: the
	// server stayed up)".
	Notes []string
}

// Judge gives session's verdict from the observations of its faults, in
// any order. The server survived when it stayed up and later messages got
// correct answers after every fault; a wrong error code, an answer where
// none was due or a missing one is a note, not a failure.
func Judge(session string, obs []Observation) Verdict {
	obs = slices.Clone(obs)
	slices.SortStableFunc(obs, func(a, b Observation) int {
		switch {
		case a.Fault.Seq < b.Fault.Seq:
			return -1
		case a.Fault.Seq > b.Fault.Seq:
			return 1
		}
		return 0
	})
	v := Verdict{Session: session, Survived: true}
	for _, o := range obs {
		f := o.Fault
		where := fmt.Sprintf("seq %d %s", f.Seq, f.Kind)
		if o.Attributed > 0 {
			v.Notes = append(v.Notes, fmt.Sprintf("%s: %d later %s differed, as they may when the server %s (put down to the fault, not the server)",
				where, o.Attributed, english.Plural(int64(o.Attributed), "answer"), altered(f.Kind)))
		}
		if (!o.ServerAlive || !o.LaterOK) && !f.Kind.Reaches() {
			// The server never got this message: it cannot have broken it.
			continue
		}
		if !o.ServerAlive || !o.LaterOK {
			why := "the server went down"
			if o.ServerAlive {
				why = "later messages got wrong answers"
			}
			if v.Survived {
				v.Survived = false
				v.FirstBreak = &f
				why += " (first break: the server did not survive)"
			}
			v.Notes = append(v.Notes, where+": "+why)
			continue
		}
		if got, ok := mismatch(Expect(f), o); !ok {
			v.Notes = append(v.Notes, where+": "+got+", want "+Expect(f).String()+" (tolerated: the server stayed up)")
		}
	}
	return v
}

// altered says what a fault that Alters did to the server.
func altered(k Kind) string {
	switch k {
	case Drop, NetworkError:
		return "never got the message"
	case Duplicate:
		return "got the message twice"
	case DuplicateID:
		return "got a request under another request's id"
	case Cancel:
		return "was told to cancel the request"
	case Disconnect:
		return "lost its connection (and, over stdio, its state)"
	}
	return "got the fault"
}

// mismatch compares an answer with the expectation; ok is false when they
// differ, and got then says what came.
func mismatch(e Expectation, o Observation) (got string, ok bool) {
	switch {
	case !o.Answered:
		got = "no answer"
	case o.ErrorCode != nil:
		got = "answered " + strconv.Itoa(*o.ErrorCode)
	default:
		got = "answered with a result"
	}
	switch e.Want {
	case WantError:
		return got, o.Answered && o.ErrorCode != nil && *o.ErrorCode == e.Code
	case WantNoAnswer:
		return got, !o.Answered
	case WantRecorded:
		return got, o.Answered
	}
	return got, true
}
