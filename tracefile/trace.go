package tracefile

import (
	"strconv"
	"time"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/report"
)

// runPID is the trace's process of the run itself; sessions follow.
const runPID = 1

// Trace is a replay's events, kept for the trace file. It is not safe
// for concurrent use: Observe is called from one goroutine (Consumer's),
// WriteTo after the stream has ended.
type Trace struct {
	sessions map[string]int // session → pid
	names    []string       // pid-runPID-1 → session
	due      map[key]int64  // a client message's due time, until it is sent
	open     map[key]*request
	recs     []rec
	nextID   uint64
	last     int64 // the latest time seen
}

// key names a message of a session.
type key struct {
	session string
	seq     int64
}

// request is a request sent and not yet judged.
type request struct {
	method              string
	due, sent, answered int64 // answered: -1 none
	held                time.Duration
}

// New returns an empty Trace.
func New() *Trace {
	return &Trace{sessions: map[string]int{}, due: map[key]int64{}, open: map[key]*request{}}
}

// Consumer is t as a lossless reader of the replay's event stream
// (replay.Events), named name, with a buffer of buffer events (0: the
// stream's default).
func (t *Trace) Consumer(name string, buffer int) event.Consumer {
	return event.Consumer{Name: name, Buffer: buffer, Handle: func(batch []event.Event) error {
		for i := range batch {
			t.Observe(&batch[i])
		}
		return nil
	}}
}

// Events says how many trace events t holds (metadata left out).
func (t *Trace) Events() int { return len(t.recs) }

// Observe adds one event of the replay.
func (t *Trace) Observe(e *event.Event) {
	t.last = max(t.last, e.TUS)
	if e.Type == event.RunEnded {
		t.instant(runPID, e.TUS, "run ended", "run", args{}.str("detail", e.Detail))
		return
	}
	pid := t.pid(e.Session)
	k := key{e.Session, e.Seq}
	switch e.Type {
	case event.Dialled:
		t.instant(pid, e.TUS, "dialled", "session", args{}.str("detail", e.Detail))
	case event.Anchored:
		t.instant(pid, e.TUS, "clock anchored", "session", args{}.num("seq", e.Seq))
	case event.Reconnect:
		t.instant(pid, e.TUS, "reconnect", "session", args{}.str("detail", e.Detail))
	case event.SessionEnded:
		t.instant(pid, e.TUS, "session ended", "session", args{}.str("detail", e.Detail))
	case event.Due:
		t.due[k] = e.TUS
	case event.Held:
		t.instant(pid, e.TUS, "held: "+e.Reason, "held", args{}.num("seq", e.Seq).str("method", e.Method))
	case event.Fault:
		t.instant(pid, e.TUS, "fault: "+e.Reason, "fault", args{}.num("seq", e.Seq).str("method", e.Method).str("detail", e.Detail))
	case event.Retry:
		t.instant(pid, e.TUS, "retry "+strconv.Itoa(e.Attempt)+": "+e.Reason, "retry",
			args{}.num("seq", e.Seq).str("method", e.Method).str("detail", e.Detail))
	case event.Sent:
		due, ok := t.due[k]
		delete(t.due, k)
		if !ok || due > e.TUS {
			due = e.TUS
		}
		if e.Kind == report.KindRequest {
			t.open[k] = &request{method: e.Method, due: due, sent: e.TUS, answered: -1, held: e.Held}
		}
	case event.Answered:
		if r := t.open[k]; r != nil && r.answered < 0 {
			r.answered = e.TUS
		}
	case event.Judged:
		t.judged(pid, k, e)
	}
}

// pid is the process of a session, given the next number when new.
func (t *Trace) pid(session string) int {
	if pid, ok := t.sessions[session]; ok {
		return pid
	}
	pid := runPID + 1 + len(t.names)
	t.sessions[session] = pid
	t.names = append(t.names, session)
	return pid
}

// judged closes a request sent: its slices, its answer's marker and the
// flow from one to the other; any other message is a marker.
func (t *Trace) judged(pid int, k key, e *event.Event) {
	name := e.Method
	if e.Name != "" {
		name += " " + e.Name
	}
	a := args{}.num("seq", e.Seq).str("method", e.Method).str("name", e.Name).str("kind", e.Kind).
		str("dir", e.Dir).str("verdict", e.Verdict).str("detail", e.Detail)
	if len(e.Differences) > 0 {
		a = a.num("differences", int64(len(e.Differences))).str("first_difference", e.Differences[0].Path)
	}
	if e.HasLag {
		a = a.num("lag_us", e.Lag.Microseconds())
	}
	if e.HasHeld {
		a = a.num("held_us", e.Held.Microseconds())
	}
	if e.HasLatency {
		a = a.num("latency_us", e.Latency.Microseconds())
	}
	r := t.open[k]
	if r == nil || e.Dir == report.DirS2C {
		if e.Dir == report.DirC2S && e.Verdict == string(report.Sent) {
			name = "sent " + name
		} else {
			name += " (" + e.Verdict + ")"
		}
		t.instant(pid, e.TUS, name, "message", a)
		return
	}
	delete(t.open, k)
	if e.HasLag {
		t.recs = append(t.recs, rec{ph: 'C', ts: r.sent, pid: pid, name: "lag", args: args{}.num("us", e.Lag.Microseconds())})
	}
	t.request(pid, r, name, e.TUS, a)
}

// request writes a request's slices: from due (or sent) to its answer,
// or to end when none came.
func (t *Trace) request(pid int, r *request, name string, end int64, a args) {
	t.nextID++
	id := t.nextID
	answered := r.answered >= 0
	if answered {
		end = r.answered
	}
	end = max(end, r.sent)
	async := func(ph byte, ts int64, name string, a args, flow byte) {
		t.recs = append(t.recs, rec{ph: ph, ts: ts, pid: pid, id: id, cat: "request", name: name, args: a, flow: flow})
	}
	async('b', r.due, name, a, 0)
	heldEnd := min(r.due+r.held.Microseconds(), r.sent)
	if heldEnd > r.due {
		async('b', r.due, "held", nil, 0)
		async('e', heldEnd, "held", nil, 0)
	}
	if r.sent > heldEnd {
		async('b', heldEnd, "lag", nil, 0)
		async('e', r.sent, "lag", nil, 0)
	}
	var flow byte
	if answered {
		flow = flowOut
	}
	async('b', r.sent, "awaiting answer", nil, flow)
	async('e', end, "awaiting answer", nil, 0)
	async('e', end, name, nil, 0)
	if answered {
		t.recs = append(t.recs, rec{ph: 'X', ts: r.answered, pid: pid, id: id, cat: "answer",
			name: "answer " + name + verdictOf(a), args: a, flow: flowIn})
	}
}

func verdictOf(a args) string {
	for _, x := range a {
		if x.k == "verdict" {
			return " (" + x.s + ")"
		}
	}
	return ""
}

// instant is a marker on a process's thread.
func (t *Trace) instant(pid int, ts int64, name, cat string, a args) {
	t.recs = append(t.recs, rec{ph: 'i', ts: ts, pid: pid, cat: cat, name: name, args: a})
}

// closeOpen ends the requests never judged (a replay interrupted before
// their verdict) at the latest time seen.
func (t *Trace) closeOpen() {
	for k, r := range t.open {
		t.request(t.pid(k.session), r, r.method+" (no verdict)", t.last,
			args{}.num("seq", k.seq).str("method", r.method).str("verdict", "none: the replay ended first"))
		delete(t.open, k)
	}
}
