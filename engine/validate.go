package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/replayctl/replayctl/engine/session"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/validator"
)

// validate compares each live answer with the recorded one and gives
// each verdict to the event stream (a judged event, which the report's
// collector reads: see events.go) and to the hooks.
//
// It reads until in is closed (the router closes it once every session
// has returned), even after ctx is done or it has decided to stop the run:
// what the sessions report while they stop (requests lost with a failed
// target) is in the report, and no session waits on it for ever.
func (e *Engine) validate(ctx context.Context, in <-chan outcomes, v *validator.Validator) error {
	var stopped error // OnErrorStop: the run was told to stop; the rest is drained
	take := func(o *outcome) {
		if o.SessionEnd { // even after a stop: every session ends
			e.cfg.Hooks.OnSessionEnd(o.Req.Rec.Session, o.Err)
			return
		}
		if stopped == nil {
			stopped = e.add(o, v)
		}
	}
	judged := 0 // since gcHold.repace last ran
	for b := range in {
		// One clock read for what one receive brought: a session's batch
		// is judged within moments, after every answer in it came.
		e.judgedAt = time.Now()
		if b.one != nil {
			take(b.one)
			judged++
		}
		for _, o := range b.many {
			take(o)
		}
		e.emitJudged()
		if judged += len(b.many); judged >= repaceEvery {
			judged = 0
			gcHold.repace()
		}
	}
	if stopped != nil {
		return stopped
	}
	// The replay is over when the last answer is judged, not when the
	// target has shut down.
	e.finished = time.Now()
	return ctx.Err()
}

// add judges one outcome and emits the verdict. With OnErrorStop, a bad
// verdict stops the run: the error says why.
func (e *Engine) add(o *outcome, v *validator.Validator) error {
	if o.Epoch < e.epoch.Load() && o.Req.Rec.Seq >= 0 {
		return nil
	}
	if o.End {
		if e.ctl != nil {
			e.ctl.End()
		}
		return nil
	}
	if o.Died {
		e.survival.died(o.Req.Rec.Session, o.Err, o.Req.Fault)
		r := e.newResult()
		*r = report.Result{Seq: -1, Session: o.Req.Rec.Session, Dir: report.DirS2C, Verdict: report.Error, ErrKind: "target", Err: o.Err.Error()}
		e.scrub(r)
		e.judgedEvent(r, nil)
		return nil
	}
	r := e.newResult()
	judge(r, o, v, &e.names)
	var fault *report.Fault
	if e.cfg.Chaos != nil {
		fault = e.survival.observe(r, o)
	}
	e.scrub(r)
	if e.cfg.Hooks.OnVerdict != nil || e.cfg.Hooks.OnResult != nil {
		e.judgedPublished(r, fault)
	} else {
		e.judgedEvent(r, fault)
		e.onFault(fault)
	}
	if o.Req.RPC.Method == mcp.MethodInitialize {
		e.checkProtocol(o)
	}
	if r.Verdict == report.Failed && o.Actual != nil {
		e.checkEra(o)
		e.checkRounds(o)
	}
	if e.ctl != nil && o.Req.Paced() && !o.Req.Injected {
		e.ctl.Judged(*r)
	}
	if e.cfg.OnError == OnErrorStop && bad(r.Verdict) {
		err := fmt.Errorf("%w: seq %d (%s) %s", ErrStoppedOnError, r.Seq, r.Method, r.Verdict)
		e.stopRun(err)
		return err
	}
	return nil
}

// judgedPublished is judgedEvent, onFault, then the hooks told of r as it
// was before judgedEvent cleared its bytes: a copy of its own, made only
// when there are hooks (not inlined: add's frame would hold, and zero,
// the 320 bytes of the copy for every result).
//
//go:noinline
func (e *Engine) judgedPublished(r *report.Result, fault *report.Fault) {
	hooked := *r
	e.judgedEvent(r, fault)
	e.onFault(fault)
	e.publish(hooked)
}

// onFault tells the OnFault hook of the fault injected into a judged
// message (nil: none).
func (e *Engine) onFault(fault *report.Fault) {
	if fault != nil && e.cfg.Hooks.OnFault != nil {
		e.cfg.Hooks.OnFault(*fault)
	}
}

// scrub hides what no one may see of a judged result: the user's secrets
// and the credentials under sensitive names. It comes after judging and
// before the result leaves the engine. The bytes (Out, Answer, Recorded)
// are masked only for what shows them, a result hook or a controller;
// with neither they leave the engine with no one (issue 24: masking them
// cost more than a tenth of a replay against the mock). Without the bytes,
// differences or a user's redactor there is nothing to mask, and r is
// left as it is (report.Redact would copy it back unchanged).
func (e *Engine) scrub(r *report.Result) {
	if e.ctl == nil && e.cfg.Hooks.OnResult == nil {
		r.Out, r.Answer, r.Recorded = nil, nil, nil
		if e.cfg.Redactor == nil && len(r.Differences) == 0 {
			return
		}
	}
	*r = report.Redact(e.cfg.Redactor, *r)
}

// judge turns an outcome into a report result, in r (a zero one): a pure
// function but for names, which keeps the strings of the names it has
// made.
func judge(r *report.Result, o *outcome, v *validator.Validator, names *mcp.Names) {
	it := o.Req
	// Field by field into the zero r: a whole literal was built aside and
	// copied in (r might alias what it is built of).
	r.Seq, r.Session, r.Method = it.Rec.Seq, it.Rec.Session, it.RPC.Method
	r.Name = names.RequestName(it.RPC.Method, it.RPC.Params())
	r.Dir, r.Kind = string(it.Rec.Dir), it.RPC.Kind.String()
	r.Due, r.Sent = it.Due, o.Sent
	if r.Due.IsZero() {
		r.Due = o.Sent
	}
	// Lateness is measured at the send, not at the pacer's release, and
	// split: the time the target held the message up (the order rule, the
	// in-flight limit: Held) and the replayer's own lateness (Lag).
	if !o.Sent.IsZero() {
		r.Held = it.Held
		r.Lag = max(o.Sent.Sub(r.Due)-it.Held, 0)
	}
	if o.Actual != nil {
		r.Answered, r.Answer = o.Actual.At, o.Actual.Msg
	}
	if !o.Sent.IsZero() {
		r.Out = it.Out
	}
	if o.Expected != nil {
		r.Recorded = o.ExpectedMsg()
	}
	switch {
	case o.Skipped != "":
		r.Verdict, r.Err = report.Skipped, o.Skipped
	case o.Timeout:
		r.Verdict, r.ErrKind, r.Err = report.Timeout, "timeout", o.Err.Error()
	case o.Err != nil && !o.Note:
		r.Verdict, r.ErrKind, r.Err = report.Error, "target", o.Err.Error()
	case o.Note && (o.Expected == nil || o.Actual == nil):
		// A recorded notification that never came, or one not recorded.
		d := report.Difference{Path: "$", Kind: "removed", Expected: it.Rec.Msg}
		if o.Actual != nil {
			d = report.Difference{Path: "$", Kind: "added", Actual: o.Actual.Msg}
		}
		r.Verdict, r.Differences, r.Err = report.Failed, report.BoundDifferences([]report.Difference{d}), o.Err.Error()
	case o.Note:
		r.Verdict, r.Differences, r.ErrKind, r.Err = check(v, it, o.Expected.Rec.Msg, o.Actual.Msg, false)
	case it.RPC.Kind != jsonrpc.KindRequest:
		r.Verdict = report.Sent
	case o.Stream:
		r.Verdict, r.Err = report.Sent, "a subscriptions/listen stream, open as recorded until the end of the tape"
	case o.Actual == nil:
		r.Verdict, r.ErrKind, r.Err = report.Error, "no_answer", "no answer came"
	case o.Expected == nil:
		r.Verdict, r.Err = report.Sent, "the tape has no recorded answer to compare with"
	case session.IsPoll(o):
		r.Verdict = report.Passed // a task poll: judged by the task's end
	default:
		r.Verdict, r.Differences, r.ErrKind, r.Err = check(v, it, o.ExpectedMsg(), o.Actual.Msg, o.AsRecorded)
	}
}

// check judges a live message against the recorded one, by the
// validation rule that applies to it; the rule's on_failure decides what
// a difference means (a retry rule that got here has no retries left).
// same: actual is expected with only its id changed (Outcome.AsRecorded).
func check(v *validator.Validator, it *Item, expected, actual []byte, same bool) (verdict report.Verdict, diffs []report.Difference, errKind, errMsg string) {
	var vd validator.Verdict
	var err error
	if same {
		vd, err = v.CheckSame(subject(it), expected, actual)
	} else {
		vd, err = v.Check(subject(it), expected, actual)
	}
	if err != nil {
		return report.Error, nil, "invalid_answer", err.Error()
	}
	if !vd.Failed() {
		return report.Passed, nil, "", ""
	}
	// Each value is kept as the report keeps it (an excerpt of a huge
	// one), in memory of its own: the controller, the debugger and the
	// hooks see the same, and none of them keeps the answer alive.
	diffs = report.BoundDifferences(report.FromValidator(vd.Diffs))
	switch vd.OnFailure {
	case validator.OnFailureIgnore:
		return report.Passed, nil, "", ""
	case validator.OnFailureWarn:
		return report.Warned, diffs, "", ""
	case validator.OnFailureSkip:
		return report.Skipped, nil, "", "not judged (on_failure: skip)"
	}
	return report.Failed, diffs, "", ""
}

// subject is what validation rules look at of a message.
func subject(it *Item) validator.Subject {
	return validator.Subject{Seq: it.Rec.Seq, Session: it.Rec.Session, Method: it.RPC.Method, Kind: it.RPC.Kind.String(), Request: it.Rec.Msg}
}

// ErrStoppedOnError ends a replay run with OnError stop at the first
// message that failed validation or got no answer.
var ErrStoppedOnError = errors.New("stopped at the first failure (on error: stop)")

func bad(v report.Verdict) bool {
	return v == report.Failed || v == report.Error || v == report.Timeout
}

// checkProtocol notes, once, a server that negotiated another protocol
// version than the recording: the replay goes on, the report says so.
func (e *Engine) checkProtocol(o *outcome) {
	if o.Expected == nil || o.Actual == nil {
		return
	}
	recorded, live := protocolVersion(o.Expected.Rec.Msg), protocolVersion(o.Actual.Msg)
	if recorded == "" || live == "" || recorded == live {
		return
	}
	note := fmt.Sprintf("session %s: the tape was recorded with protocol version %.80s; the server negotiated %.80s (answers may differ for that reason alone)", o.Req.Rec.Session, recorded, live)
	if !slices.Contains(e.notes, note) && len(e.notes) < 100 {
		e.notes = append(e.notes, note)
		e.log.Warn().Msg(note)
	}
}

// protocolVersion reads result.protocolVersion of an initialize answer.
func protocolVersion(msg []byte) string {
	m, err := jsonrpc.Parse(msg)
	if err != nil {
		return ""
	}
	return mcp.InitializeVersion(m.Result())
}

// checkRounds explains a multi-round request (2026-07-28) whose live
// server asked for input where the recorded one had answered, or answered
// where it had asked: the rounds are judged one by one, so the replay
// fails at the first round that differs.
func (e *Engine) checkRounds(o *outcome) {
	if !mcp.HasMRTR(o.Req.RPC.Method) || o.Expected == nil {
		return
	}
	rec, live := mcp.ResultType(session.Result(o.ExpectedMsg())), mcp.ResultType(session.Result(o.Actual.Msg))
	if rec == live || (rec != mcp.ResultInputRequired && live != mcp.ResultInputRequired) {
		return
	}
	note := fmt.Sprintf("session %s seq %d %s: the server's rounds differ from the recording's (recorded %s, live %s): multi-round requests are replayed round by round with the client's recorded input, so a server that needs other input, or fewer rounds, fails there",
		o.Req.Rec.Session, o.Req.Rec.Seq, o.Req.RPC.Method, cmp.Or(rec, "a final answer"), cmp.Or(live, "a final answer"))
	if len(e.notes) < 100 {
		e.notes = append(e.notes, note)
	}
}

// checkEra names both revisions when the live server refuses a message
// for the revision the tape speaks: a stateless (2026-07-28) tape against
// a server that only speaks the session-based revisions answers -32022
// with the versions it supports, or does not know server/discover at all.
func (e *Engine) checkEra(o *outcome) {
	live, err := jsonrpc.Parse(o.Actual.Msg)
	if err != nil || live.Error() == nil {
		return
	}
	tapeVersion := mcp.MetaVersion(o.Req.RPC.Params())
	var note string
	if requested, supported, ok := mcp.UnsupportedVersion(live.Error()); ok {
		if requested == "" {
			requested = tapeVersion
		}
		note = fmt.Sprintf("the tape speaks MCP %s (%s); the server supports only %s: replay against a server of the tape's revision, or record the session again against this one",
			requested, mcp.EraOf(requested), strings.Join(supported, ", "))
	} else if code, _ := mcp.ErrorCode(live.Error()); code == mcp.CodeMethodNotFound && o.Req.RPC.Method == mcp.MethodDiscover {
		note = fmt.Sprintf("the tape speaks MCP %s (stateless: server/discover, no initialize); the server does not know server/discover, so it speaks only a session-based revision (2025-11-25 or older): replay against a server of the tape's revision",
			cmp.Or(tapeVersion, mcp.V20260728))
	}
	if note != "" && !slices.Contains(e.notes, note) && len(e.notes) < 100 {
		e.notes = append(e.notes, note)
		e.log.Warn().Msg(note)
	}
}
