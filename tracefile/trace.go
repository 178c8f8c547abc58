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
	sessions map[string]int32 // session → pid
	names    []string         // pid-runPID-1 → session
	pending  map[key]pending  // a client message due or held, until it is sent
	open     map[key]int32    // a request sent, until judged: its index in reqs
	reqs     [][]request      // every request sent, in the order sent, in chunks of chunk
	nreqs    int32
	marks    []mark // the instants and their details
	last     int64  // the latest time seen
}

// chunk is how many requests a chunk of Trace.reqs holds: growing by
// chunks copies nothing.
const chunk = 1024

// req is request i.
func (t *Trace) req(i int32) *request { return &t.reqs[i/chunk][i%chunk] }

// add appends r and returns its index.
func (t *Trace) add(r request) int32 {
	if t.nreqs%chunk == 0 {
		t.reqs = append(t.reqs, make([]request, 0, chunk))
	}
	last := &t.reqs[len(t.reqs)-1]
	*last = append(*last, r)
	t.nreqs++
	return t.nreqs - 1
}

// key names a message of a session.
type key struct {
	session string
	seq     int64
}

// pending is what is known of a client message before it is sent.
type pending struct {
	due  int64 // -1: not known
	held string
}

// message is what a verdict says of a message, written as a slice's or
// a marker's args.
type message struct {
	seq                         int64
	method, name, kind, dir     string
	verdict, detail, difference string // difference: the first one's path
	differences                 int
	lag, held, latency          time.Duration
	hasLag, hasHeld, hasLatency bool
	judged                      bool
}

// request is a request sent: its times (microseconds) and its verdict.
type request struct {
	message
	pid                      int32
	due, sent, answered, end int64 // answered -1: none
	heldFor                  time.Duration
	heldWhy                  string
}

// mark is an instant on a session's (or the run's) thread.
type mark struct {
	ts   int64
	pid  int32
	cat  string
	name string
	msg  *message // nil: seq, method and detail only
	seq  int64    // -1: none
	method,
	detail string
}

// New returns an empty Trace.
func New() *Trace {
	return &Trace{sessions: map[string]int32{}, pending: map[key]pending{}, open: map[key]int32{}}
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

// Events says whether t has seen anything: the number of requests and
// markers it holds.
func (t *Trace) Events() int { return int(t.nreqs) + len(t.marks) }

// Observe adds one event of the replay.
func (t *Trace) Observe(e *event.Event) {
	t.last = max(t.last, e.TUS)
	if e.Type == event.RunEnded {
		t.mark(runPID, e, "run", "run ended")
		return
	}
	pid := t.pid(e.Session)
	k := key{e.Session, e.Seq}
	switch e.Type {
	case event.Dialled:
		t.mark(pid, e, "session", "dialled")
	case event.Anchored:
		t.mark(pid, e, "session", "clock anchored")
	case event.Reconnect:
		t.mark(pid, e, "session", "reconnect")
	case event.SessionEnded:
		t.mark(pid, e, "session", "session ended")
	case event.Fault:
		t.mark(pid, e, "fault", "fault: "+e.Reason)
	case event.Retry:
		t.mark(pid, e, "retry", "retry "+strconv.Itoa(e.Attempt)+": "+e.Reason)
	case event.Due: // after Held, when it was held
		p := t.pending[k]
		p.due = e.TUS
		t.pending[k] = p
	case event.Held:
		p, ok := t.pending[k]
		if !ok {
			p.due = -1
		}
		if p.held == "" { // the first reason it waited
			p.held = e.Reason
		}
		t.pending[k] = p
	case event.Sent:
		p, ok := t.pending[k]
		if ok {
			delete(t.pending, k)
		}
		if e.Kind != report.KindRequest {
			return
		}
		due := e.TUS
		if ok && p.due >= 0 && p.due < due {
			due = p.due
		}
		t.open[k] = t.add(request{message: message{seq: e.Seq, method: e.Method}, pid: pid,
			due: due, sent: e.TUS, answered: -1, end: e.TUS, heldFor: e.Held, heldWhy: p.held})
	case event.Answered:
		if i, ok := t.open[k]; ok && t.req(i).answered < 0 {
			t.req(i).answered = e.TUS
		}
	case event.Judged:
		t.judged(pid, k, e)
	}
}

// pid is the process of a session, given the next number when new.
func (t *Trace) pid(session string) int32 {
	if pid, ok := t.sessions[session]; ok {
		return pid
	}
	pid := int32(runPID + 1 + len(t.names))
	t.sessions[session] = pid
	t.names = append(t.names, session)
	return pid
}

func (t *Trace) mark(pid int32, e *event.Event, cat, name string) {
	t.marks = append(t.marks, mark{ts: e.TUS, pid: pid, cat: cat, name: name, seq: e.Seq, method: e.Method, detail: e.Detail})
}

// judged ends a request sent, at its answer or else at its verdict; any
// other message is a marker.
func (t *Trace) judged(pid int32, k key, e *event.Event) {
	m := message{seq: e.Seq, method: e.Method, name: e.Name, kind: e.Kind, dir: e.Dir, verdict: e.Verdict,
		detail: e.Detail, differences: len(e.Differences),
		lag: e.Lag, held: e.Held, latency: e.Latency, hasLag: e.HasLag, hasHeld: e.HasHeld, hasLatency: e.HasLatency, judged: true}
	if len(e.Differences) > 0 {
		m.difference = e.Differences[0].Path
	}
	i, ok := t.open[k]
	if !ok || e.Dir == report.DirS2C {
		name := m.label()
		if e.Dir == report.DirC2S && e.Verdict == string(report.Sent) {
			name = "sent " + name
		} else {
			name += " (" + e.Verdict + ")"
		}
		t.marks = append(t.marks, mark{ts: e.TUS, pid: pid, cat: "message", name: name, msg: &m, seq: -1})
		return
	}
	delete(t.open, k)
	r := t.req(i)
	r.message = m
	r.end = max(e.TUS, r.sent)
	if r.answered >= 0 {
		r.end = max(r.answered, r.sent)
	}
}

// label is what a message's slice or marker is called: its method, and
// what it acts on ("tools/call echo"); a message with no method, its kind.
func (m *message) label() string {
	switch {
	case m.method == "" && m.kind != "":
		return m.kind // a response to a server request
	case m.method == "":
		return "message"
	case m.name == "":
		return m.method
	}
	return m.method + " " + m.name
}

// closeOpen ends the requests never judged (a replay interrupted before
// their verdict) at the latest time seen.
func (t *Trace) closeOpen() {
	for k, i := range t.open {
		r := t.req(i)
		r.verdict = "none: the replay ended first"
		r.end = max(t.last, r.sent)
		if r.answered >= 0 {
			r.end = max(r.answered, r.sent)
		}
		delete(t.open, k)
	}
}
