package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	stream "github.com/replayctl/replayctl/engine/event"

	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
)

// request is one command line of the control protocol.
type request struct {
	ID      json.RawMessage `json:"id,omitempty"` // echoed in the reply
	Cmd     string          `json:"cmd"`
	N       int             `json:"n,omitempty"`
	Seq     *int64          `json:"seq,omitempty"`
	Spec    string          `json:"spec,omitempty"`
	BP      int             `json:"bp,omitempty"`
	Speed   string          `json:"speed,omitempty"`
	Session string          `json:"session,omitempty"`
	Msg     json.RawMessage `json:"msg,omitempty"`
}

// response is the reply to one request.
type response struct {
	ID          json.RawMessage        `json:"id,omitempty"`
	OK          bool                   `json:"ok"`
	Error       string                 `json:"error,omitempty"`
	Seq         *int64                 `json:"seq,omitempty"`
	Results     []report.TimelineEntry `json:"results,omitempty"`
	Breakpoint  *wireBreakpoint        `json:"breakpoint,omitempty"`
	Breakpoints []wireBreakpoint       `json:"breakpoints,omitempty"`
	Status      *wireStatus            `json:"status,omitempty"`

	watch *Watcher // watch: the connection's events from now on
}

// eventLine is a status update pushed to a client.
type eventLine struct {
	Event  string     `json:"event"` // "status"
	Status wireStatus `json:"status"`
}

// streamLine is an event of the replay's stream pushed to a client that
// asked to watch: the event as `--out json` writes it and, for a judged
// one, its result in the one wire shape; lost counts the events this
// client lost so far.
type streamLine struct {
	Event  string                `json:"event"` // "stream"
	Stream stream.Event          `json:"stream"`
	Result *report.TimelineEntry `json:"result,omitempty"`
	Lost   int64                 `json:"lost,omitempty"`
}

type wireStatus struct {
	State    State                 `json:"state"`
	Seq      int64                 `json:"seq"`
	Reason   string                `json:"reason,omitempty"`
	Speed    string                `json:"speed"`
	Released int64                 `json:"released"`
	Sent     int64                 `json:"sent"`
	Judged   int64                 `json:"judged"`
	Dropped  int64                 `json:"dropped"`
	Note     string                `json:"note,omitempty"`
	Last     *report.TimelineEntry `json:"last,omitempty"`
}

type wireBreakpoint struct {
	ID    int    `json:"id"`
	Spec  string `json:"spec"`
	Kind  string `json:"kind"`
	Hits  int    `json:"hits"`
	Error string `json:"error,omitempty"`
}

// toWireStatus is st on the wire, its last result's times counted from
// start.
func toWireStatus(st Status, start time.Time) wireStatus {
	w := wireStatus{
		State: st.State, Seq: st.Seq, Reason: st.Reason, Speed: st.Speed,
		Released: st.Released, Sent: st.Sent, Judged: st.Judged, Dropped: st.Dropped, Note: st.Note,
	}
	if st.Last != nil {
		r := st.Last.Entry(start)
		w.Last = &r
	}
	return w
}

// toStreamLine is e on the wire, with its result's times counted from
// start.
func toStreamLine(e stream.Event, start time.Time, lost int64) streamLine {
	l := streamLine{Event: "stream", Stream: e, Lost: lost}
	if e.Result != nil {
		r := e.Result.Entry(start)
		l.Result = &r
	}
	return l
}

func toWireBreakpoint(b Breakpoint) wireBreakpoint {
	return wireBreakpoint{ID: b.ID, Spec: b.Spec, Kind: b.Kind, Hits: b.Hits, Error: b.Err}
}

// commands of the protocol, with their aliases.
var protocolCmds = map[string]string{
	"start": "start", "pause": "pause", "resume": "resume", "continue": "resume", "c": "resume",
	"step": "step", "s": "step", "seek": "seek", "seek_match": "seek_match",
	"speed": "speed", "break": "break", "b": "break", "delete": "delete", "d": "delete",
	"breakpoints": "breakpoints", "inject": "inject", "modify": "modify",
	"status": "status", "wait": "wait", "stop": "stop", "watch": "watch",
}

// decodeRequest reads one command line. It checks the command and its
// arguments; it never panics on any input.
func decodeRequest(line []byte) (request, error) {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return req, fmt.Errorf("bad command line: %v; want a JSON object such as {\"id\":1,\"cmd\":\"step\",\"n\":1}", err)
	}
	name, ok := protocolCmds[req.Cmd]
	if !ok {
		return req, fmt.Errorf("unknown command %q; want one of %s", req.Cmd, cmdList())
	}
	req.Cmd = name
	switch name {
	case "step":
		if req.N == 0 {
			req.N = 1
		}
		if req.N < 0 {
			return req, fmt.Errorf("step: n %d: want 1 or more", req.N)
		}
	case "seek":
		if req.Seq == nil {
			return req, errors.New(`seek: want "seq"`)
		}
	case "seek_match", "break":
		if strings.TrimSpace(req.Spec) == "" {
			return req, fmt.Errorf(`%s: want "spec" (a seq, a method or an expression)`, name)
		}
	case "delete":
		if req.BP == 0 {
			return req, errors.New(`delete: want "bp", a breakpoint id`)
		}
	case "speed":
		if req.Speed == "" {
			return req, errors.New(`speed: want "speed", e.g. "10x"`)
		}
	case "inject", "modify":
		if len(req.Msg) == 0 {
			return req, fmt.Errorf(`%s: want "msg", a JSON-RPC message object`, name)
		}
		if name == "inject" && req.Session == "" {
			return req, errors.New(`inject: want "session"`)
		}
	}
	return req, nil
}

func cmdList() string {
	return "start, pause, resume (continue, c), step (s), seek, seek_match, speed, break (b), delete (d), breakpoints, inject, modify, status, wait, watch, stop"
}

// execute runs a decoded request against c.
func execute(ctx context.Context, c *Controller, req request) response {
	resp := response{ID: req.ID}
	var err error
	var st Status
	haveStatus := false
	switch req.Cmd {
	case "start":
		err = c.Start(ctx)
	case "pause":
		err = c.Pause(ctx)
	case "resume":
		err = c.Resume(ctx)
	case "step":
		var rs []report.Result
		rs, err = c.Step(ctx, req.N)
		for _, r := range rs {
			resp.Results = append(resp.Results, r.Entry(c.start()))
		}
	case "seek":
		err = c.Seek(ctx, *req.Seq)
	case "seek_match":
		var seq int64
		seq, err = c.SeekMatch(ctx, req.Spec)
		if err == nil {
			resp.Seq = &seq
		}
	case "speed":
		var s scheduler.Speed
		if s, err = scheduler.Parse(req.Speed); err == nil {
			err = c.SetSpeed(ctx, s)
		}
	case "break":
		var bp Breakpoint
		if bp, err = c.AddBreakpoint(ctx, req.Spec); err == nil {
			w := toWireBreakpoint(bp)
			resp.Breakpoint = &w
		}
	case "delete":
		err = c.RemoveBreakpoint(ctx, req.BP)
	case "breakpoints":
		var bps []Breakpoint
		bps, err = c.Breakpoints(ctx)
		resp.Breakpoints = make([]wireBreakpoint, 0, len(bps))
		for _, b := range bps {
			resp.Breakpoints = append(resp.Breakpoints, toWireBreakpoint(b))
		}
	case "inject":
		err = c.Inject(ctx, req.Session, req.Msg)
	case "modify":
		err = c.ModifyNext(ctx, req.Msg)
	case "status":
		st, err = c.Status(ctx)
		haveStatus = true
	case "wait":
		st, err = c.WaitStop(ctx)
		haveStatus = true
	case "stop":
		err = c.Stop(ctx)
	case "watch":
		resp.watch = c.WatchEvents(WatchBuffer)
	}
	if err != nil {
		resp.Error = err.Error()
		return resp
	}
	resp.OK = true
	if !haveStatus && req.Cmd != "stop" {
		st, err = c.Status(ctx)
		haveStatus = err == nil
	}
	if haveStatus {
		w := toWireStatus(st, c.start())
		resp.Status = &w
	}
	return resp
}
