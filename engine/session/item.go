package session

import (
	"bytes"
	"time"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transformer"
	"github.com/replayctl/replayctl/transport"
	"github.com/replayctl/replayctl/validator"
)

// Item is one recorded message on its way down the pipeline.
type Item struct {
	Epoch uint64
	Rec   tape.Message    // as recorded
	RPC   jsonrpc.Message // the view of Rec.Msg
	// Out is what the session's actor sends (c2s items): Rec.Msg with a
	// fresh id, or as recorded.
	Out    []byte
	SentID []byte // the id on the wire, for requests
	// Due is when it falls due by the schedule, zero until its session's
	// actor works it out (or for what is not paced). An item carried the
	// pacer's whole scheduler.Timing once; only Due was ever set.
	Due time.Time
	// Held is how long it waited, past its due time, for the target (the
	// order rule, the in-flight limit, the connection): set when sent.
	Held time.Duration

	// Rules is what transformation rules decided (Config.Rules), nil when
	// none did anything but let it through (kept out of line: two items
	// are built per request, and most replays have no such rules).
	Rules *Ruled

	// Fault is the chaos fault the message carries (Config.Chaos), or nil.
	Fault *chaos.Fault
	// After is the last fault of its session, sent before it, that
	// altered what the server got (chaos.Kind.Alters): a wrong answer to
	// this message is put down to that fault.
	After *chaos.Fault

	// Injected: not from the tape (a controller's inject); its answer is
	// reported as it comes.
	Injected bool
	// End marks the end of the tape in its epoch: the router gives it to
	// every session's actor, and the last actor to be done with what came
	// before it passes it on to validate (actor.passEnd).
	End       bool
	Rewritten bool // Out is not the recorded bytes (Config.Rules)
	reordered bool // a reorder fault already held it back
	burst     bool // a burst fault made it due at once
	admitted  bool // the gate let it through (gate.go)
}

// Ruled is what add_delay, inject_error and set_result rules decided for
// an item.
type Ruled struct {
	Delay       time.Duration      // add_delay: sent this much after it is due
	InjectError []byte             // inject_error: answered with this error object, not sent
	ExpectEdits []transformer.Edit // set_result: edits of the recorded answer
}

// injectError is the error object an inject_error rule answers it with,
// or nil.
func (it *Item) injectError() []byte {
	if it.Rules == nil {
		return nil
	}
	return it.Rules.InjectError
}

// delay is how much after it is due an add_delay rule sends it.
func (it *Item) delay() time.Duration {
	if it.Rules == nil {
		return 0
	}
	return it.Rules.Delay
}

// expectEdits is what set_result rules change in its recorded answer.
func (it *Item) expectEdits() []transformer.Edit {
	if it.Rules == nil {
		return nil
	}
	return it.Rules.ExpectEdits
}

// detached returns a copy of it that shares no memory with it: items and
// their bytes come in shared blocks (the loader's, transform's, the tape
// reader's), and an item a session keeps for its whole life (its
// handshake) would keep its blocks alive with it.
func (it *Item) detached() *Item {
	h := *it
	h.Rec = it.Rec.Detached() // Msg and the tape reader's view of it
	if rpc, err := jsonrpc.Parse(h.Rec.Msg); err == nil {
		h.RPC = rpc
	} else {
		h.RPC = jsonrpc.Message{}
	}
	h.Out = bytes.Clone(it.Out)
	h.SentID = bytes.Clone(it.SentID)
	return &h
}

// Subject is what a validator rule is matched against for the message it.
func Subject(it *Item) validator.Subject {
	return validator.Subject{Seq: it.Rec.Seq, Session: it.Rec.Session, Method: it.RPC.Method, Kind: it.RPC.Kind.String(), Request: it.Rec.Msg}
}

// Paced reports whether the scheduler waits for the item: only what the
// client sends of its own accord is paced (and gated by a controller);
// recorded answers pass at once and act as markers, and the client's
// answers to server requests go when the live server asks.
func (it *Item) Paced() bool { return it.Rec.Dir == tape.C2S && !isAnswer(it.RPC.Kind) }

// Outcome is what a session's actor (or the router, for what no session
// takes) hands to validate: one replayed message and, for a request, its
// live answer next to the recorded one.
type Outcome struct {
	Epoch    uint64
	Req      *Item               // the sent message, or the skipped one
	Expected *Item               // the recorded answer, nil if the tape has none
	Actual   *transport.Incoming // the live answer, nil if none came
	Sent     time.Time
	Skipped  string // why the message was not replayed
	Err      error  // transport failure or timeout
	Timeout  bool
	End      bool // the tape is finished (for a controller)
	// SessionEnd: the session's actor has returned (Hooks.OnSessionEnd);
	// Err says why if it stopped early.
	SessionEnd bool
	Note       bool // a server notification, recorded and/or live, to compare
	Died       bool // the session's server died (chaos): Err says how
	Lost       bool // lost in an injected disconnect (chaos)
	Stream     bool // a subscriptions/listen open until the end of the tape
	// Edited is the recorded answer as set_result rules changed it; nil:
	// as recorded.
	Edited []byte
	// AsRecorded: Actual is Expected's recorded bytes (not Edited: there
	// is none) with only the id changed, as the actor found when it
	// parsed it (jsonrpc.Message.Rebase); validate need not compare them
	// again (validator.Validator.CheckSame).
	AsRecorded bool
}

// ExpectedMsg is the recorded answer the live one is compared with.
func (o *Outcome) ExpectedMsg() []byte {
	if o.Edited != nil {
		return o.Edited
	}
	return o.Expected.Rec.Msg
}
