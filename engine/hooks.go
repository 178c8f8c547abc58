package engine

import (
	"bytes"

	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/transformer"
)

// Hooks are functions the engine calls at fixed points of a replay. Any of
// them may be nil. None may block for long: the stage that calls it waits.
type Hooks struct {
	// BeforeSend is called with each message the client sent of its own
	// accord (requests and notifications, not answers to the server), in
	// tape order, from the transform stage: after the config's rules, before
	// the message is paced and sent. It may change m.Raw (the request id is
	// replaced after it, as with any message) or return false to drop the
	// message, which is then not replayed.
	BeforeSend func(m *transformer.Msg) bool
	// OnResult is called with each result the report counts (checked or
	// not: a notification sent, a skip), as it is judged, from the
	// validate stage's goroutine, after the result's judged event was
	// emitted. The hooks stay on the validate goroutine: OnSessionEnd
	// comes after every result of its session, which only validate knows,
	// and they see the bytes, which the stream carries only in a
	// controlled replay.
	OnResult func(report.Result)
	// OnVerdict is called as OnResult is (before it), with the result
	// without its bytes (Out, Answer and Recorded are nil): for what needs
	// the verdict, the figures and the differences only. A replay with no
	// OnResult hook and no controller does not mask the bytes for display
	// at all: nothing would show them.
	OnVerdict func(report.Result)
	// OnFault is called with each injected chaos fault as its message is
	// judged, from the validate stage's goroutine.
	OnFault func(report.Fault)
	// OnSessionEnd is called once per session (each virtual copy too) when
	// it has finished, from the validate stage's goroutine, after every
	// result of the session: err is nil when the session replayed its part
	// of the tape, else why it stopped early.
	OnSessionEnd func(session string, err error)
}

// beforeSend runs the BeforeSend hook over a client message; it reports
// false for a dropped one. The hook gets a copy of the bytes, so that an
// edit in place cannot change the recording the answers are judged by.
func (e *Engine) beforeSend(it *Item) bool {
	raw := it.Rec.Msg
	if it.Out != nil {
		raw = it.Out
	}
	m := transformer.Msg{
		Seq: it.Rec.Seq, Session: it.Rec.Session, Dir: string(it.Rec.Dir),
		Kind: it.RPC.Kind.String(), Method: it.RPC.Method, ID: string(it.RPC.ID), Raw: bytes.Clone(raw),
	}
	if !e.cfg.Hooks.BeforeSend(&m) {
		return false
	}
	if !bytes.Equal(m.Raw, raw) {
		it.Out, it.Rewritten = m.Raw, true
	}
	return true
}
