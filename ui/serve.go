package ui

import (
	"bytes"
	"time"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/report"
	sv "github.com/replayctl/replayctl/serve"
)

// ServeOptions are the serve options that feed the server with what a
// serve (package serve, imported as sv: the tests have a serve) sees: each client session a lane, each message a
// bar from when it came to when its answer went, coloured by serve's
// verdict (served, miss, forwarded, taken, error), its bytes kept for the
// detail view. The times count from the call. Call ServeEnded when the
// serve's Run has returned.
func (s *Server) ServeOptions() []sv.Option {
	f := &serveFeed{s: s, start: time.Now()}
	s.mu.Lock()
	s.serveStart = f.start
	s.mu.Unlock()
	return []sv.Option{sv.OnExchange(f.exchange), sv.OnSessionEnded(f.ended)}
}

// ServeEnded tells the page that the serve is over (its clients are
// gone): a run-ended event, sent at once.
func (s *Server) ServeEnded() {
	s.mu.Lock()
	start := s.serveStart
	s.mu.Unlock()
	s.j.add([]event.Event{{Type: event.RunEnded, TUS: event.Stamp(start, time.Now()), Seq: -1}})
	s.j.seal()
	s.changed()
}

// serveFeed turns serve's hooks into the events the page draws.
type serveFeed struct {
	s     *Server
	start time.Time
}

// exchangeEvents are the events of x: sent when it came, judged when it
// was answered.
func exchangeEvents(start time.Time, x sv.Exchange) [2]event.Event {
	sent := event.Event{Type: event.Sent, TUS: event.Stamp(start, x.Start), Session: x.Session, Seq: x.Seq, Method: x.Method}
	judged := event.Event{Type: event.Judged, TUS: event.Stamp(start, x.End), Session: x.Session, Seq: x.Seq,
		Method: x.Method, Kind: x.Kind, Dir: "c2s", Name: x.Name, Verdict: string(x.Verdict), Detail: x.Detail,
		HasLag: true} // no schedule: never late
	if x.Answer != nil && x.Kind == "request" {
		judged.Latency, judged.HasLatency = x.End.Sub(x.Start), true
	}
	return [2]event.Event{sent, judged}
}

func (f *serveFeed) exchange(x sv.Exchange) {
	ev := exchangeEvents(f.start, x)
	f.s.j.add(ev[:])
	f.s.OnResult(report.Result{Seq: x.Seq, Session: x.Session, Method: x.Method, Dir: "c2s", Kind: x.Kind, Name: x.Name,
		Sent: x.Start, Answered: x.End, Verdict: report.Verdict(x.Verdict), Err: x.Detail,
		Out: bytes.Clone(x.Request), Answer: bytes.Clone(x.Answer)})
}

func (f *serveFeed) ended(session string, at time.Time) {
	f.s.j.add([]event.Event{{Type: event.SessionEnded, TUS: event.Stamp(f.start, at), Session: session, Seq: -1}})
}
