package engine

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/report"
)

// faultFor decides, in the transform stage, whether a client message gets
// a fault: a pure function of the plan, the session, the seq and how many
// calls of the method came before in the session (nth counts them).
// The handshake is never faulted: a session without it tells nothing
// about how the server copes with faults.
func (e *Engine) faultFor(it *Item, nth map[string]int) {
	method := it.RPC.Method
	if mcp.IsHandshake(method) {
		return
	}
	key := it.Rec.Session + "\x00" + method
	nth[key]++
	f, ok := e.cfg.Chaos.Decide(chaos.Msg{Session: it.Rec.Session, Seq: it.Rec.Seq, Method: method, Kind: it.RPC.Kind.String(), Nth: nth[key]})
	if ok {
		it.Fault = &f
	}
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
