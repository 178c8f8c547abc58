package ui

import (
	"bytes"
	"sync"
	"time"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/tape"
)

// Recorded is the verdict of every message a recording proxy wrote.
const Recorded = "recorded"

// recordFeed pairs a recording's requests with their answers for the
// page: one goroutine at a time hands it messages (the Tap's lock), in
// the tape's order.
type recordFeed struct {
	mu      sync.Mutex // guards what follows
	pending map[string]recordedRequest
	lastUS  int64
}

// recordedRequest is a client's request waiting for its answer.
type recordedRequest struct {
	seq, tus     int64
	method, name string
	out          []byte
}

// maxPending bounds the requests the page waits for answers to; past it
// those waiting are forgotten (drawn as never answered).
const maxPending = 100_000

// Recorded draws m, a message a recording proxy has recorded (its tape's
// seq, time and session; record.OnMessage), on the page: each recorded
// session a lane; a client's request a bar from when it was sent to when
// its answer came, with the verdict "recorded"; the client's
// notifications and answers, and the server's notifications and
// requests, at their time. m.Msg is not kept past the call (copied for
// the detail view). It does not block.
func (s *Server) Recorded(m tape.Message) {
	msg, err := jsonrpc.Parse(m.Msg)
	if err != nil {
		return
	}
	f := s.rec
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lastUS = max(f.lastUS, m.TUS)
	judged := event.Event{Type: event.Judged, TUS: m.TUS, Session: m.Session, Seq: m.Seq, Method: msg.Method,
		Kind: msg.Kind.String(), Dir: string(m.Dir), Verdict: Recorded}
	switch {
	case m.Dir == tape.C2S && msg.Kind == jsonrpc.KindRequest:
		if len(f.pending) >= maxPending {
			clear(f.pending)
		}
		name := mcp.RequestName(msg.Method, msg.Params())
		f.pending[m.Session+"\x00"+jsonrpc.IDKey(msg.ID)] = recordedRequest{seq: m.Seq, tus: m.TUS, method: msg.Method, name: name, out: bytes.Clone(m.Msg)}
		s.j.add([]event.Event{{Type: event.Sent, TUS: m.TUS, Session: m.Session, Seq: m.Seq, Method: msg.Method}})
		return
	case m.Dir == tape.S2C && jsonrpc.IsResponseKind(msg.Kind):
		key := m.Session + "\x00" + jsonrpc.IDKey(msg.ID)
		req, ok := f.pending[key]
		if !ok {
			break // an answer to no request seen: a tick of its own
		}
		delete(f.pending, key)
		judged.Seq, judged.Method, judged.Name, judged.Kind, judged.Dir = req.seq, req.method, req.name, "request", "c2s"
		judged.HasLag, judged.Latency, judged.HasLatency = true, time.Duration(m.TUS-req.tus)*time.Microsecond, true
		s.j.add([]event.Event{judged})
		s.OnResult(report.Result{Seq: req.seq, Session: m.Session, Method: req.method, Name: req.name, Dir: "c2s", Kind: "request",
			Verdict: Recorded, Out: req.out, Answer: bytes.Clone(m.Msg)})
		return
	case m.Dir == tape.C2S:
		s.j.add([]event.Event{{Type: event.Sent, TUS: m.TUS, Session: m.Session, Seq: m.Seq, Method: msg.Method}})
		judged.HasLag = true
	}
	s.j.add([]event.Event{judged})
	s.OnResult(report.Result{Seq: m.Seq, Session: m.Session, Method: msg.Method, Dir: string(m.Dir), Kind: judged.Kind,
		Verdict: Recorded, Out: bytes.Clone(m.Msg)})
}

// RecordEnded tells the page the recording is over: a run-ended event,
// sent at once.
func (s *Server) RecordEnded() {
	s.rec.mu.Lock()
	last := s.rec.lastUS
	s.rec.mu.Unlock()
	s.j.add([]event.Event{{Type: event.RunEnded, TUS: last, Seq: -1}})
	s.j.seal()
	s.changed()
}
