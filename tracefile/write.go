package tracefile

import (
	"bufio"
	"cmp"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// The parts of a request, each one trace event, in the order they nest.
const (
	partBegin      = iota // the request's slice: due → end
	partHeldBegin         // held for the target: due → due+held
	partHeldEnd           //
	partLagBegin          // late past that: → sent
	partLagEnd            //
	partAwaitBegin        // awaiting the answer: sent → end; a flow starts
	partAwaitEnd          //
	partEnd               //
	partAnswer            // the answer's marker, where the flow ends
	partLag               // the lag counter, at sent
	partMark              // not a request's: a mark
)

// entry is one trace event to write: a part of a request, or a mark
// (ref indexes reqs or marks).
type entry struct {
	ts   int64
	ref  int32
	part int8
}

// WriteTo writes the trace as one JSON object, {"traceEvents": [...]}:
// first the names of the processes and threads, then every event in
// time order (on each track, each slice's begin before what it nests).
// Requests never judged are ended at the latest time seen. Call it once,
// after the stream has ended.
func (t *Trace) WriteTo(w io.Writer) (int64, error) {
	t.closeOpen()
	entries := make([]entry, 0, int(t.nreqs)*8+len(t.marks))
	for i := range t.nreqs {
		entries = t.req(i).entries(entries, i)
	}
	for i := range t.marks {
		entries = append(entries, entry{ts: t.marks[i].ts, ref: int32(i), part: partMark})
	}
	slices.SortStableFunc(entries, func(a, b entry) int { return cmp.Compare(a.ts, b.ts) })

	cw := &countingWriter{w: w}
	bw := bufio.NewWriterSize(cw, 64<<10)
	b := make([]byte, 0, 64<<10)
	b = append(b, "{\"traceEvents\":[\n"...)
	first := true
	next := func() {
		if !first {
			b = append(b, ",\n"...)
		}
		first = false
	}
	// The sessions are numbered in their names' order (s1#2 before
	// s1#10), not in the order they happened to start.
	order := make([]int, len(t.names))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return naturalCompare(t.names[i], t.names[j]) })
	pids := make([]int32, runPID+1+len(t.names)) // the pid observed → the pid written
	pids[runPID] = runPID
	next()
	b = appendMeta(b, runPID, "process_name", "replay")
	next()
	b = appendMeta(b, runPID, "thread_name", "run")
	for n, i := range order {
		pid := int32(runPID + 1 + n)
		pids[runPID+1+i] = pid
		next()
		b = appendMeta(b, pid, "process_name", "session "+t.names[i])
		next()
		b = appendMeta(b, pid, "thread_name", t.names[i])
	}
	for _, e := range entries {
		next()
		if e.part == partMark {
			m := &t.marks[e.ref]
			b = m.appendJSON(b, pids[m.pid])
		} else {
			r := t.req(e.ref)
			b = r.appendPart(b, pids[r.pid], uint64(e.ref)+1, e.part)
		}
		if len(b) >= 32<<10 {
			if _, err := bw.Write(b); err != nil {
				return cw.n, err
			}
			b = b[:0]
		}
	}
	b = append(b, "\n]}\n"...)
	if _, err := bw.Write(b); err != nil {
		return cw.n, err
	}
	err := bw.Flush()
	return cw.n, err
}

// heldEnd is when the request stopped being held for the target.
func (r *request) heldEnd() int64 { return min(r.due+r.heldFor.Microseconds(), r.sent) }

// entries appends the parts of r (its index i) that it has.
func (r *request) entries(out []entry, i int32) []entry {
	add := func(ts int64, part int8) { out = append(out, entry{ts: ts, ref: i, part: part}) }
	add(r.due, partBegin)
	held := r.heldEnd()
	if held > r.due {
		add(r.due, partHeldBegin)
		add(held, partHeldEnd)
	}
	if r.sent > held {
		add(held, partLagBegin)
		add(r.sent, partLagEnd)
	}
	add(r.sent, partAwaitBegin)
	add(r.end, partAwaitEnd)
	add(r.end, partEnd)
	if r.answered >= 0 {
		add(r.answered, partAnswer)
	}
	if r.hasLag {
		add(r.sent, partLag)
	}
	return out
}

// name is the request's slice's name.
func (r *request) name() string {
	if !r.judged {
		return r.method + " (no verdict)"
	}
	return r.label()
}

// appendPart appends one part of r (id: its async id and flow id) as a
// trace event.
func (r *request) appendPart(b []byte, pid int32, id uint64, part int8) []byte {
	async := func(ph byte, ts int64, name string) []byte {
		b = appendHead(b, ph, ts, pid)
		b = append(b, `,"id":"0x`...)
		b = strconv.AppendUint(b, id, 16)
		b = append(b, `","cat":"request","name":`...)
		return jsonscan.AppendString(b, name)
	}
	switch part {
	case partBegin:
		b = async('b', r.due, r.name())
		b = r.appendArgs(b)
	case partEnd:
		b = async('e', r.end, r.name())
	case partHeldBegin, partHeldEnd:
		name := "held"
		if r.heldWhy != "" {
			name += ": " + r.heldWhy
		}
		if part == partHeldBegin {
			b = async('b', r.due, name)
		} else {
			b = async('e', r.heldEnd(), name)
		}
	case partLagBegin:
		b = async('b', r.heldEnd(), "lag")
	case partLagEnd:
		b = async('e', r.sent, "lag")
	case partAwaitBegin:
		b = async('b', r.sent, "awaiting answer")
		if r.answered >= 0 {
			b = appendFlow(b, id, "flow_out")
		}
	case partAwaitEnd:
		b = async('e', r.end, "awaiting answer")
	case partAnswer:
		b = appendHead(b, 'X', r.answered, pid)
		b = append(b, `,"dur":0,"cat":"answer","name":`...)
		name := "answer " + r.name()
		if r.verdict != "" {
			name += " (" + r.verdict + ")"
		}
		b = jsonscan.AppendString(b, name)
		b = appendFlow(b, id, "flow_in")
		b = r.appendArgs(b)
	case partLag:
		b = appendHead(b, 'C', r.sent, pid)
		b = append(b, `,"name":"lag","args":{"us":`...)
		b = strconv.AppendInt(b, r.lag.Microseconds(), 10)
		b = append(b, '}')
	}
	return append(b, '}')
}

// appendJSON appends the mark as an instant event on its process's
// thread.
func (m *mark) appendJSON(b []byte, pid int32) []byte {
	b = appendHead(b, 'i', m.ts, pid)
	b = append(b, `,"s":"t","cat":`...)
	b = jsonscan.AppendString(b, m.cat)
	b = append(b, `,"name":`...)
	b = jsonscan.AppendString(b, m.name)
	if m.msg != nil {
		b = m.msg.appendArgs(b)
	} else if m.seq >= 0 || m.method != "" || m.detail != "" {
		a := args{b: append(b, `,"args":{`...)}
		if m.seq >= 0 {
			a.num("seq", m.seq)
		}
		a.str("method", m.method)
		a.str("detail", m.detail)
		b = append(a.b, '}')
	}
	return append(b, '}')
}

// appendArgs appends what the verdict says as the event's args.
func (m *message) appendArgs(b []byte) []byte {
	a := args{b: append(b, `,"args":{`...)}
	a.num("seq", m.seq)
	a.str("method", m.method)
	a.str("name", m.name)
	a.str("kind", m.kind)
	a.str("dir", m.dir)
	a.str("verdict", m.verdict)
	a.str("detail", m.detail)
	if m.differences > 0 {
		a.num("differences", int64(m.differences))
		a.str("first_difference", m.difference)
	}
	if m.hasLag {
		a.num("lag_us", m.lag.Microseconds())
	}
	if m.hasHeld {
		a.num("held_us", m.held.Microseconds())
	}
	if m.hasLatency {
		a.num("latency_us", m.latency.Microseconds())
	}
	return append(a.b, '}')
}

// args appends the members of a JSON object; empty strings are left
// out.
type args struct {
	b    []byte
	more bool
}

func (a *args) key(k string) {
	if a.more {
		a.b = append(a.b, ',')
	}
	a.more = true
	a.b = jsonscan.AppendString(a.b, k)
	a.b = append(a.b, ':')
}

func (a *args) str(k, v string) {
	if v != "" {
		a.key(k)
		a.b = jsonscan.AppendString(a.b, v)
	}
}

func (a *args) num(k string, v int64) {
	a.key(k)
	a.b = strconv.AppendInt(a.b, v, 10)
}

// appendHead opens an event: its phase, time, process and thread.
func appendHead(b []byte, ph byte, ts int64, pid int32) []byte {
	b = append(b, `{"ph":"`...)
	b = append(b, ph)
	b = append(b, `","ts":`...)
	b = strconv.AppendInt(b, ts, 10)
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, `,"tid":`...)
	return strconv.AppendInt(b, int64(pid), 10)
}

// appendFlow binds a flow to the event: its start (flow_out) or end
// (flow_in).
func appendFlow(b []byte, id uint64, dir string) []byte {
	b = append(b, `,"bind_id":"0x`...)
	b = strconv.AppendUint(b, id, 16)
	return append(b, `","`+dir+`":true`...)
}

// appendMeta appends a metadata event naming a process or its thread.
func appendMeta(b []byte, pid int32, what, name string) []byte {
	b = append(b, `{"ph":"M","pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, `,"name":"`+what+`","args":{"name":`...)
	b = jsonscan.AppendString(b, name)
	return append(b, "}}"...)
}

// naturalCompare orders names with the runs of digits in them compared
// as numbers: "s1#2" before "s1#10".
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Compare(len(na), len(nb)); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

// digits is the length of the run of ASCII digits s starts with.
func digits(s string) int {
	n := 0
	for n < len(s) && '0' <= s[n] && s[n] <= '9' {
		n++
	}
	return n
}

// countingWriter counts what was written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
