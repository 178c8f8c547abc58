package main

import (
	"bytes"
	"time"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/serve"
)

// serveFeed draws serve's traffic on the page of serve --ui: each client
// session a lane, each message a bar from when it came to when its
// answer went, coloured by serve's verdict (served, miss, forwarded,
// taken, error). It turns serve's hooks into the events the page draws
// for a replay, and keeps each exchange's bytes for the detail view.
type serveFeed struct {
	v      *browserView
	start  time.Time
	handle func([]event.Event) error
}

// serveOptions are the serve options that feed the page; none without
// --ui or --ui-save.
func (v *browserView) serveOptions() []serve.Option {
	if v == nil {
		return nil
	}
	v.started = time.Now()
	f := &serveFeed{v: v, start: v.started, handle: v.s.Consumer().Handle}
	return []serve.Option{serve.OnExchange(f.exchange), serve.OnSessionEnded(f.ended)}
}

// exchangeEvents are the events of x: sent when it came, judged when it
// was answered.
func exchangeEvents(start time.Time, x serve.Exchange) [2]event.Event {
	sent := event.Event{Type: event.Sent, TUS: event.Stamp(start, x.Start), Session: x.Session, Seq: x.Seq, Method: x.Method}
	judged := event.Event{Type: event.Judged, TUS: event.Stamp(start, x.End), Session: x.Session, Seq: x.Seq,
		Method: x.Method, Kind: x.Kind, Dir: "c2s", Name: x.Name, Verdict: string(x.Verdict), Detail: x.Detail,
		HasLag: true} // no schedule: never late
	if x.Answer != nil && x.Kind == "request" {
		judged.Latency, judged.HasLatency = x.End.Sub(x.Start), true
	}
	return [2]event.Event{sent, judged}
}

func (f *serveFeed) exchange(x serve.Exchange) {
	ev := exchangeEvents(f.start, x)
	_ = f.handle(ev[:]) // never fails
	f.v.s.OnResult(report.Result{Seq: x.Seq, Session: x.Session, Method: x.Method, Dir: "c2s", Kind: x.Kind, Name: x.Name,
		Sent: x.Start, Answered: x.End, Verdict: report.Verdict(x.Verdict), Err: x.Detail,
		Out: bytes.Clone(x.Request), Answer: bytes.Clone(x.Answer)})
}

func (f *serveFeed) ended(session string, at time.Time) {
	_ = f.handle([]event.Event{{Type: event.SessionEnded, TUS: event.Stamp(f.start, at), Session: session, Seq: -1}})
}

// serveFinish ends the page's feed once serve's clients are gone, and
// writes the frozen page (--ui-save).
func (v *browserView) serveFinish() error {
	if v == nil {
		return nil
	}
	_ = v.s.Consumer().Handle([]event.Event{{Type: event.RunEnded, TUS: event.Stamp(v.started, time.Now()), Seq: -1}})
	v.s.Ended()
	if v.save != "" {
		return v.s.SaveFrozen(v.save)
	}
	return nil
}
