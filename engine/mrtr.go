package engine

import (
	"bytes"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
)

// Multi-round-trip requests (MCP 2026-07-28): a tools/call, prompts/get or
// resources/read may be answered with resultType "input_required" and an
// opaque requestState, which the client echoes in its retry. The server
// may make a new state each time (a nonce, a signature), so the recorded
// retry would carry a state the live server never gave: the session
// remembers, per recorded state, the live one given in its place, and
// sends retries with the live one.

// learnState notes the live requestState given where the recording had
// another, from a request's recorded and live answers.
func (x *actor) learnState(ss *session, p *pend) {
	if p.actual == nil || p.expected == nil || !mcp.HasMRTR(p.req.RPC.Method) ||
		!bytes.Contains(p.actual.Msg, []byte(`"requestState"`)) {
		return
	}
	rec, ok1 := requestState(p.expected.Rec.Msg)
	live, ok2 := requestState(p.actual.Msg)
	if !ok1 || !ok2 || rec == live {
		return
	}
	if ss.states == nil {
		ss.states = make(map[string]string)
	}
	ss.states[rec] = live
}

// requestState is the requestState of an answer's result.
func requestState(msg []byte) (string, bool) {
	m, err := jsonrpc.Parse(msg)
	if err != nil {
		return "", false
	}
	return mcp.RequestState(m.Result())
}

// liveState puts into a retry (a request whose params echo a requestState)
// the live state given in place of the recorded one.
func (x *actor) liveState(ss *session, it *Item) {
	if len(ss.states) == 0 || !mcp.HasMRTR(it.RPC.Method) {
		return
	}
	m, err := jsonrpc.Parse(it.Out)
	if err != nil {
		return
	}
	rec, ok := mcp.RequestState(m.Params())
	if !ok {
		return
	}
	live, ok := ss.states[rec]
	if !ok {
		return
	}
	params, err := mcp.SetRequestState(m.Params(), live)
	if err != nil {
		return
	}
	it.Out = m.WithParams(params)
}
