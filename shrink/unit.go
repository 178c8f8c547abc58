package shrink

import (
	"errors"
	"fmt"
	"io"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/tape"
)

// Unit is a group of a tape's messages that the protocol needs together
// and the shrinker keeps or drops as one: a request and its answer, a
// server request and the client's answer, an MRTR round chain (the
// request, each input_required answer and each retry), a task and its
// polls (tasks/get, tasks/result, tasks/update, tasks/cancel of its
// taskId), a request and the notifications/cancelled that names it, a
// request and the server's notifications/progress for its progressToken. A
// message that belongs to nothing else (a notification, an answer
// whose request is not on the tape) is a unit alone.
type Unit struct {
	Session string `json:"session"`
	// Seqs are the unit's messages, in tape order.
	Seqs []int64 `json:"seqs"`
	// Method is the method of the unit's first message, "" for an answer
	// alone; Name what it acts on (a tool's name), for the report.
	Method string `json:"method,omitempty"`
	Name   string `json:"name,omitempty"`
	// Handshake units (initialize and its answer, notifications/initialized,
	// server/discover) stay: the shrinker never drops them alone.
	Handshake bool `json:"handshake,omitempty"`
}

// Tape is a tape loaded for shrinking: its header, its messages by seq,
// and its units.
type Tape struct {
	Name     string
	Header   tape.Header
	Messages []tape.Message // in tape order
	Units    []Unit         // in the order of their first message
	bySeq    map[int64]int  // seq → index in Messages
}

// Load reads the tape src whole and groups its messages into units. Its
// errors are those of package tape (a *tape.Error names the line).
func Load(src tape.Source, opts ...tape.Option) (*Tape, error) {
	r, err := tape.OpenSource(src, opts...)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	t := &Tape{Name: src.Name(), Header: r.Header(), bySeq: map[int64]int{}}
	for {
		m, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		t.bySeq[m.Seq] = len(t.Messages)
		t.Messages = append(t.Messages, m)
	}
	if len(t.Messages) == 0 {
		return nil, fmt.Errorf("tape %s has no messages: there is nothing to shrink", src.Name())
	}
	t.Units = Group(t.Messages)
	return t, nil
}

// Group groups messages (in tape order) into units. It is a pure
// function: the same messages give the same units.
func Group(msgs []tape.Message) []Unit {
	var units []Unit
	type key struct {
		session string
		dir     tape.Dir // of the request
		id      string
	}
	open := map[key]int{}           // a request awaiting its answer → its unit
	chain := map[mcp.Thread]int{}   // an MRTR chain awaiting its retry → its unit
	tasks := map[mcp.Thread]int{}   // a task → its unit
	byID := map[key]int{}           // every client request seen → its unit (for cancellations)
	progress := map[[2]string]int{} // session, progressToken → the unit of the request that gave it
	add := func(u Unit) int { units = append(units, u); return len(units) - 1 }
	for _, m := range msgs {
		rpc, err := jsonrpc.Parse(m.Msg)
		if err != nil {
			add(Unit{Session: m.Session, Seqs: []int64{m.Seq}})
			continue
		}
		id := jsonrpc.IDKey(rpc.ID)
		switch rpc.Kind {
		case jsonrpc.KindRequest:
			u := -1
			if m.Dir == tape.C2S {
				u = joinedUnit(rpc, m.Session, chain, tasks)
			}
			if u < 0 {
				u = add(Unit{Session: m.Session, Method: rpc.Method, Name: mcp.RequestName(rpc.Method, rpc.Params()), Handshake: mcp.IsHandshake(rpc.Method)})
			}
			units[u].Seqs = append(units[u].Seqs, m.Seq)
			open[key{m.Session, m.Dir, id}] = u
			if m.Dir == tape.C2S {
				byID[key{m.Session, m.Dir, id}] = u
				if tok := progressToken(rpc.Params(), "_meta"); tok != "" {
					progress[[2]string{m.Session, tok}] = u
				}
			}
		case jsonrpc.KindNotification:
			if rpc.Method == mcp.NotificationCancelled && m.Dir == tape.C2S {
				if u, ok := byID[key{m.Session, tape.C2S, cancelledID(rpc.Params())}]; ok {
					units[u].Seqs = append(units[u].Seqs, m.Seq)
					continue
				}
			}
			if rpc.Method == mcp.NotificationProgress && m.Dir == tape.S2C {
				if u, ok := progress[[2]string{m.Session, progressToken(rpc.Params(), "")}]; ok {
					units[u].Seqs = append(units[u].Seqs, m.Seq)
					continue
				}
			}
			add(Unit{Session: m.Session, Seqs: []int64{m.Seq}, Method: rpc.Method, Handshake: mcp.IsHandshake(rpc.Method)})
		case jsonrpc.KindResponse, jsonrpc.KindError:
			reqDir := tape.C2S
			if m.Dir == tape.C2S {
				reqDir = tape.S2C
			}
			k := key{m.Session, reqDir, id}
			u, ok := open[k]
			if !ok {
				add(Unit{Session: m.Session, Seqs: []int64{m.Seq}})
				continue
			}
			delete(open, k)
			units[u].Seqs = append(units[u].Seqs, m.Seq)
			if m.Dir == tape.S2C && rpc.Kind == jsonrpc.KindResponse {
				noteFollowUps(units[u], u, rpc.Result(), m.Session, chain, tasks)
			}
		default:
			add(Unit{Session: m.Session, Seqs: []int64{m.Seq}})
		}
	}
	return units
}

// joinedUnit is the unit a client request belongs to when it continues
// one: an MRTR retry (its params carry inputResponses or requestState)
// joins the chain of its method and name, a request on a task (tasks/get …) the
// task's unit; -1 otherwise.
func joinedUnit(rpc jsonrpc.Message, session string, chain, tasks map[mcp.Thread]int) int {
	if mcp.HasMRTR(rpc.Method) && mcp.IsRetryOf(rpc.Params()) {
		k := mcp.ChainThread(session, rpc.Method, mcp.RequestName(rpc.Method, rpc.Params()))
		if u, ok := chain[k]; ok {
			delete(chain, k)
			return u
		}
	}
	if mcp.OnTask(rpc.Method) {
		if id, ok := mcp.ParamTaskID(rpc.Params()); ok {
			if u, ok := tasks[mcp.TaskThread(session, id)]; ok {
				return u
			}
		}
	}
	return -1
}

// noteFollowUps records what a result opens: an input_required answer an
// MRTR chain its retry continues, a task result the task its polls name.
func noteFollowUps(u Unit, idx int, result []byte, session string, chain, tasks map[mcp.Thread]int) {
	if mcp.ResultType(result) == mcp.ResultInputRequired && u.Method != "" {
		chain[mcp.ChainThread(session, u.Method, u.Name)] = idx
	}
	id, ok := mcp.TaskID(result)
	if ok && id != "" {
		tasks[mcp.TaskThread(session, id)] = idx
	}
}

// cancelledID is the IDKey of params.requestId of a
// notifications/cancelled, or "".
func cancelledID(params []byte) string {
	var id []byte
	_ = jsonscanMember(params, "requestId", &id)
	if id == nil {
		return ""
	}
	return jsonrpc.IDKey(id)
}

// progressToken is params[in].progressToken (params.progressToken when in
// is ""), the raw JSON of a string or number, or "".
func progressToken(params []byte, in string) string {
	if in != "" {
		var meta []byte
		_ = jsonscanMember(params, in, &meta)
		params = meta
	}
	var tok []byte
	_ = jsonscanMember(params, "progressToken", &tok)
	return string(tok)
}
