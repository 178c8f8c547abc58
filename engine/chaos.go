package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// chaosWait bounds the wait for an answer to a faulted message: a server
// may rightly say nothing to a line that is not JSON.
const chaosWait = 300 * time.Millisecond

// Unsupported faults: planned, not injected yet; refused up front.
var unsupportedFaults = []chaos.Kind{chaos.Reorder, chaos.SlowWrite, chaos.Disconnect}

// CheckFaults refuses the kinds of fault the engine cannot inject yet.
func CheckFaults(kinds []chaos.Kind) error {
	for _, k := range kinds {
		if slices.Contains(unsupportedFaults, k) {
			return fmt.Errorf("chaos fault %q is not injected yet (supported: all but reorder, slow-write and disconnect)", k)
		}
	}
	return nil
}

// faultFor decides, in the transform stage, whether a client message gets
// a fault: a pure function of the plan, the session, the seq and how many
// calls of the method came before in the session (nth counts them).
// The handshake is never faulted: a session without it tells nothing
// about how the server copes with faults.
func (e *Engine) faultFor(it *Item, nth map[string]int) {
	method := it.RPC.Method
	if method == "initialize" || method == "notifications/initialized" {
		return
	}
	key := it.Rec.Session + "\x00" + method
	nth[key]++
	f, ok := e.cfg.Chaos.Decide(chaos.Msg{Session: it.Rec.Session, Seq: it.Rec.Seq, Method: method, Kind: it.RPC.Kind.String(), Nth: nth[key]})
	if ok {
		it.Fault = &f
	}
}

// sendFaulted sends a client message with its outbound fault: mutated,
// twice, not at all, or followed by a cancellation. It reports whether the
// message was sent in a way that can be answered (false for drop).
func (x *executor) sendFaulted(ctx context.Context, ss *session, it *Item) (bool, error) {
	f := *it.Fault
	if f.Kind == chaos.Drop {
		return false, nil
	}
	msgs, err := chaos.MutateWithPrev(f, it.Out, ss.prevID)
	if errors.Is(err, chaos.ErrNotApplicable) || f.Kind == chaos.Burst {
		msgs = [][]byte{it.Out} // burst is the schedule's; the message goes as it is
	} else if err != nil {
		return false, fmt.Errorf("chaos %s on seq %d: %w", f.Kind, it.Rec.Seq, err)
	}
	ss.faultCount++
	ss.lastFault = it.Fault
	for _, m := range msgs {
		if err := ss.conn.Send(ctx, m); err != nil {
			return false, err
		}
	}
	return true, nil
}

// faultedAnswer applies an inbound fault to the answer of p as it
// arrives. It reports whether the answer is kept (false: withheld or lost).
func (x *executor) faultedAnswer(ctx context.Context, p *pend, inc *transport.Incoming) (bool, error) {
	f := *p.req.Fault
	switch f.Kind {
	case chaos.Timeout: // withheld past the deadline: the request times out
		return false, x.timeOut(ctx, p)
	case chaos.NetworkError: // lost on the way: retried if retries are allowed
		p.sess.inflight-- // this answer is gone; a resend counts anew
		if x.e.cfg.MaxRetries > 0 && p.attempts == 0 {
			return false, x.resend(ctx, p)
		}
		p.sendErr = fmt.Errorf("injected network error (chaos): the answer was lost")
		return false, x.finishIfDone(ctx, p)
	case chaos.InvalidResponse, chaos.ErrorResponse:
		m, err := chaos.MutateAnswer(f, inc.Msg)
		if err != nil {
			return true, nil
		}
		inc.Msg = m
	}
	return true, nil
}

// chaosVerdict judges a message that carried an outbound fault by what a
// surviving server does with it, not by the recording.
func chaosVerdict(r *report.Result, f chaos.Fault, answer []byte) {
	want := chaos.Expect(f)
	code, answered := errorCode(answer), answer != nil
	ok := false
	switch want.Want {
	case chaos.WantError:
		ok = code != nil && *code == want.Code
	case chaos.WantNoAnswer:
		ok = !answered
	default:
		ok = true // any answer, or none: the survival verdict says the rest
	}
	got := "no answer"
	switch {
	case code != nil:
		got = "error " + strconv.Itoa(*code)
	case answered:
		got = "a result"
	}
	r.Differences = nil
	if ok {
		r.Verdict, r.Err = report.Passed, ""
	} else {
		r.Verdict, r.Err = report.Warned, fmt.Sprintf("chaos %s: %s, a good server gives %s", f.Kind, got, want)
	}
}

// errorCode is the JSON-RPC error code of an answer, nil for none.
func errorCode(answer []byte) *int {
	if answer == nil {
		return nil
	}
	rpc, err := jsonrpc.Parse(answer)
	if err != nil || rpc.Kind != jsonrpc.KindError {
		return nil
	}
	raw := rpc.Error()
	var e struct {
		Code *int `json:"code"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return nil
	}
	return e.Code
}

// died marks a session whose server died in a chaos replay: what it had in
// flight fails, what comes later for it is skipped, the other sessions go
// on, and the survival verdict says which fault broke it.
func (x *executor) died(ctx context.Context, ss *session, cause error) error {
	if ss.dead {
		return nil
	}
	ss.dead = true
	x.e.log.Warn().Str("session", ss.name).Err(cause).Msg("the server died under chaos")
	// The fault sent last before the death is the one that killed it.
	if err := x.emit(ctx, &outcome{Req: &Item{Rec: tapeMessage(ss.name), Fault: ss.lastFault}, Died: true, Err: cause}); err != nil {
		return err
	}
	var lost []*pend
	for _, p := range ss.sent {
		if !p.answered() {
			lost = append(lost, p)
		}
	}
	slices.SortFunc(lost, func(a, b *pend) int { return a.sent.Compare(b.sent) })
	for _, p := range lost {
		p.sendErr = fmt.Errorf("the server died: %w", cause)
		ss.inflight--
		if err := x.finish(ctx, p); err != nil {
			return err
		}
	}
	return x.drain(ctx, ss)
}

// chaosDeadline times p out at t unless it is answered by then.
func (x *executor) chaosDeadline(p *pend, t time.Time) {
	x.chaosTimers = append(x.chaosTimers, time.AfterFunc(time.Until(t), func() {
		select {
		case x.chaosExpired <- p:
		case <-x.done:
		}
	}))
}

// tapeMessage is the stand-in recorded message of a session-wide event.
func tapeMessage(session string) tape.Message {
	return tape.Message{Seq: -1, Session: session, Dir: tape.S2C}
}

// refusal is an HTTP server's refusal of a message as the answer it
// stands for: its body when that is a JSON-RPC message, else an error
// that names the status.
func refusal(he *transport.HTTPError) *transport.Incoming {
	body := []byte(he.Body)
	if rpc, err := jsonrpc.Parse(body); err != nil || !jsonrpc.IsResponseKind(rpc.Kind) {
		msg, _ := json.Marshal(fmt.Sprintf("HTTP %d", he.Status))
		code := -32600
		if he.Status >= 500 {
			code = -32603
		}
		body = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":null,"error":{"code":%d,"message":%s}}`, code, msg)
	}
	return &transport.Incoming{Msg: body, At: time.Now(), HTTP: &tape.HTTPMeta{Status: he.Status}}
}
