package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
)

// Values a server makes anew for each run, which the client echoes:
//
//   - Multi-round-trip requests (MCP 2026-07-28): a tools/call, prompts/get
//     or resources/read may be answered with resultType "input_required"
//     and an opaque requestState, which the client echoes in its retry.
//   - Tasks (2025-11-25 and the 2026 extension): a tools/call answered with a
//     task gets a taskId, which tasks/get, tasks/result, tasks/update and
//     tasks/cancel name.
//
// The server may make a new state or id each time (a nonce, a signature,
// a UUID), so the recorded message would carry a value the live server
// never gave: the session remembers, per recorded value, the live one
// given in its place, and sends the live one.
//
// A chaos reconnect (faults.disconnect) makes a new MCP session: what
// only the old one held is forgotten (forgetOldServer). A 2025-11-25 task
// is of the session that made it (the TypeScript SDK's task stores find a
// task from its own session only): its live id is forgotten. A task of
// the 2026 extension is a durable handle ("If the client disconnects or
// restarts, it can resume polling with the same ID"): its live id is kept
// where the reconnect reaches the same server (HTTP), and forgotten over
// stdio, where the new connection is a new server process that never
// made the task (transport.OwnServer). A requestState is the state the
// server handed the client so as to keep none itself, echoed on the retry
// whichever connection or server it goes to: it is kept.

// learnLive notes the live requestState or taskId given where the
// recording had another, from a request's recorded and live answers.
func (r *requests) learnLive(ss *session, p *pend) {
	if p.actual == nil || p.expected == nil || p.asRecorded {
		return
	}
	switch {
	case mcp.HasMRTR(p.req.RPC.Method) && bytes.Contains(p.actual.Msg, []byte(`"requestState"`)):
		rec, ok1 := mcp.RequestState(Result(p.expected.Rec.Msg))
		live, ok2 := mcp.RequestState(Result(p.actual.Msg))
		if ok1 && ok2 && rec != live {
			ss.states = put(ss.states, rec, live)
		}
	case p.req.RPC.Method == mcp.MethodToolsCall && bytes.Contains(p.actual.Msg, []byte(`"taskId"`)):
		rec, ok1 := mcp.TaskID(Result(p.expected.Rec.Msg))
		live, ok2 := mcp.TaskID(Result(p.actual.Msg))
		if ok1 && ok2 && rec != live {
			ss.taskIDs = put(ss.taskIDs, rec, live)
			if mcp.ResultType(Result(p.actual.Msg)) == mcp.ResultTask {
				delete(ss.sessionTasks, rec) // a durable task of the 2026 extension (but see forgetOldServer)
			} else {
				if ss.sessionTasks == nil {
					ss.sessionTasks = make(map[string]bool)
				}
				ss.sessionTasks[rec] = true
			}
		}
	}
}

func put(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = make(map[string]string)
	}
	m[k] = v
	return m
}

// Result is the result member of a message, or nil.
func Result(msg []byte) []byte {
	m, err := jsonrpc.Parse(msg)
	if err != nil {
		return nil
	}
	return m.Result()
}

// liveValues puts into a request the live requestState (an MRTR retry) or
// taskId (a request about a task) given in place of the recorded one.
func (r *requests) liveValues(ss *session, it *Item) {
	var from map[string]string
	var get func([]byte) (string, bool)
	var set func([]byte, string) ([]byte, error)
	switch {
	case len(ss.states) > 0 && mcp.HasMRTR(it.RPC.Method):
		from, get, set = ss.states, mcp.RequestState, mcp.SetRequestState
	case len(ss.taskIDs) > 0 && mcp.OnTask(it.RPC.Method):
		from, get, set = ss.taskIDs, mcp.ParamTaskID, mcp.SetTaskID
	default:
		return
	}
	m, err := jsonrpc.Parse(it.Out)
	if err != nil {
		return
	}
	rec, ok := get(m.Params())
	if !ok {
		return
	}
	live, ok := from[rec]
	if !ok {
		return
	}
	if params, err := set(m.Params(), live); err == nil {
		it.Out = m.WithParams(params)
	}
}

// Task polls are judged by their outcome, not by their count: a live
// server may finish a task sooner or later than the recorded one did.
//
//   - A tasks/get the recording answered with a task still going (a poll)
//     passes when the live answer is a task, whatever its status.
//   - A tasks/get the recording answered with a task that had ended is
//     sent again, at the poll interval the server asks for (10 ms to 1 s),
//     while the live task goes on and the request's timeout allows; the
//     answer that ends it is judged against the recorded end.

// IsPoll reports whether an outcome is a task poll the recording answered
// with a task still going, and the live server answered with a task.
func IsPoll(o *Outcome) bool {
	if o.Req.RPC.Method != mcp.MethodTasksGet || o.Expected == nil || o.Actual == nil {
		return false
	}
	return going(mcp.TaskStatus(Result(o.ExpectedMsg()))) && mcp.TaskStatus(Result(o.Actual.Msg)) != ""
}

// going reports whether a task in status goes on: a status, not terminal.
func going(status string) bool { return status != "" && !mcp.IsTerminal(status) }

// pollAgain sends a tasks/get again, after the poll interval, when the
// recording's answer ended the task and the live one has not. It reports
// whether it will.
func (r *requests) pollAgain(p *pend) bool {
	x := r.x
	if p.req.RPC.Method != mcp.MethodTasksGet || p.actual == nil || p.expected == nil {
		return false
	}
	live := Result(p.actual.Msg)
	rec, now := mcp.TaskStatus(Result(p.expected.Rec.Msg)), mcp.TaskStatus(live)
	if !mcp.IsTerminal(rec) || !going(now) {
		return false
	}
	if p.pollingSince.IsZero() {
		p.pollingSince = p.sent
	}
	if time.Since(p.pollingSince) > x.env.Timeout {
		return false // judged as it is: the task did not end in time
	}
	wait := min(max(pollInterval(live), 10*time.Millisecond), time.Second)
	// Unanswered again: what the recording sent after the task ended (a
	// tasks/result) waits for it, as the recorded client waited. The
	// order rule held the session on p only if the recorded answer was
	// read before the live one came; hold it here either way.
	p.actual, p.pollWait = nil, true
	if x.env.Order.holds() {
		p.sess.waitFor = p
	}
	x.fx.chaosTimers = append(x.fx.chaosTimers, time.AfterFunc(wait, func() {
		select {
		case x.rq.polls <- p:
		case <-x.done:
		}
	}))
	return true
}

// cancelTask sends tasks/cancel for the live task a tasks/get polled,
// when the replay gives it up: it was polled again (the recorded task had
// ended, the live one had not) and polling ended with the live task still
// going, its time run out (the poll timed out, in flight or waiting for
// its next send, or was answered past the timeout: pollAgain). MCP asks a
// requestor to cancel a task with tasks/cancel, not notifications/cancelled
// (2025-11-25, cancellation). Sent only to a server that takes it
// (session.cancelsTasks, or a task of the 2026 extension, whose answers
// have a resultType). A poll lost in a disconnect or to the server's
// death is neither timed out nor answered: nothing is sent for it. It
// carries the params of the tasks/get as sent (the live taskId, and the
// _meta a stateless request needs) and an id of the retries' range; its
// answer is not judged (session.late). It returns what became of the
// task, for the outcome's words ("" when no task was given up).
func (r *requests) cancelTask(ctx context.Context, p *pend) string {
	x := r.x
	ss := p.sess
	if p.req.RPC.Method != mcp.MethodTasksGet || p.pollingSince.IsZero() {
		return ""
	}
	if ss.conn == nil { // none while one is dialled; a timed-out poll had one
		return "not cancelled (no connection)"
	}
	if !p.timedOut && (p.actual == nil || !going(mcp.TaskStatus(Result(p.actual.Msg)))) {
		return "" // it ended, the answer is no task (an error), or the poll was lost
	}
	if !ss.cancelsTasks && mcp.ResultType(Result(p.live.Msg)) == "" {
		return "not cancelled (the server did not declare tasks.cancel)"
	}
	m, err := jsonrpc.Parse(p.req.Out)
	if err != nil || len(m.Params()) == 0 {
		return "not cancelled (the tasks/get has no params to name it by)"
	}
	x.rq.retryIDs++
	id := strconv.AppendInt(nil, 1<<40+x.rq.retryIDs, 10)
	ss.gaveUp(jsonrpc.IDKey(id))
	if task, ok := mcp.ParamTaskID(m.Params()); ok {
		if ss.cancelledTasks == nil {
			ss.cancelledTasks = make(map[string]bool)
		}
		// Its status notifications are not compared (ownCancel) until a
		// reconnect reaches a server that may give its id to another task.
		ss.cancelledTasks[task] = mcp.ResultType(Result(p.live.Msg)) != "" // durable: a task of the 2026 extension
	}
	msg := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":"tasks/cancel","params":%s}`, id, m.Params())
	if err := x.tx.sendBounded(ctx, ss, msg); err != nil {
		if ctx.Err() == nil {
			x.env.Log.Warn().Err(err).Str("session", ss.name).Msg("could not send tasks/cancel for a task given up")
		}
		return fmt.Sprintf("not cancelled (tasks/cancel could not be sent: %v)", err)
	}
	return "cancelled with tasks/cancel"
}

// pollInterval is the interval a task asks to be polled at: pollIntervalMs
// (2026) or pollInterval (2025-11-25, ms); 0 when it says none.
func pollInterval(result []byte) time.Duration {
	var t struct {
		MS   *int64 `json:"pollIntervalMs"`
		Old  *int64 `json:"pollInterval"`
		Task *struct {
			Old *int64 `json:"pollInterval"`
		} `json:"task"`
	}
	if json.Unmarshal(result, &t) != nil {
		return 0
	}
	for _, ms := range []*int64{t.MS, t.Old} {
		if ms != nil {
			return time.Duration(*ms) * time.Millisecond
		}
	}
	if t.Task != nil && t.Task.Old != nil {
		return time.Duration(*t.Task.Old) * time.Millisecond
	}
	return 0
}
