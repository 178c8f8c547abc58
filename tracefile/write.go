package tracefile

import (
	"bufio"
	"cmp"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A rec's flow: the start of an arrow (flow_out) or its end (flow_in),
// bound by its id.
const (
	flowOut = 'o'
	flowIn  = 'i'
)

// rec is one trace event: ph is its phase (b, e: an async slice's begin
// and end, by id; X: a complete slice; i: an instant; C: a counter).
type rec struct {
	ph   byte
	flow byte
	ts   int64 // microseconds since the run's start
	pid  int
	id   uint64
	cat  string
	name string
	args args
}

// args are an event's arguments, in order; empty values are left out.
type args []arg

type arg struct {
	k, s  string
	n     int64
	isNum bool
}

func (a args) str(k, v string) args {
	if v == "" {
		return a
	}
	return append(a, arg{k: k, s: v})
}

func (a args) num(k string, v int64) args { return append(a, arg{k: k, n: v, isNum: true}) }

// WriteTo writes the trace as one JSON object, {"traceEvents": [...]}:
// first the names of the processes and threads, then every event in
// time order (on each track, each slice's begin before what it nests).
// Requests never judged are ended first, at the latest time seen. Call it
// once, after the stream has ended.
func (t *Trace) WriteTo(w io.Writer) (int64, error) {
	t.closeOpen()
	slices.SortStableFunc(t.recs, func(a, b rec) int { return cmp.Compare(a.ts, b.ts) })
	cw := &countingWriter{w: w}
	bw := bufio.NewWriterSize(cw, 64<<10)
	var b []byte
	b = append(b, "{\"traceEvents\":[\n"...)
	first := true
	line := func() {
		if !first {
			b = append(b, ",\n"...)
		}
		first = false
	}
	meta := func(pid int, what, name string) {
		line()
		b = append(b, `{"ph":"M","pid":`...)
		b = strconv.AppendInt(b, int64(pid), 10)
		b = append(b, `,"tid":`...)
		b = strconv.AppendInt(b, int64(pid), 10)
		b = append(b, `,"name":"`+what+`","args":{"name":`...)
		b = appendString(b, name)
		b = append(b, "}}"...)
	}
	// The sessions are numbered in their names' order (s1#2 before
	// s1#10), not in the order they happened to start.
	order := make([]int, len(t.names))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return naturalCompare(t.names[i], t.names[j]) })
	pids := make([]int, runPID+1+len(t.names)) // the pid a rec has → the pid written
	pids[runPID] = runPID
	meta(runPID, "process_name", "replay")
	meta(runPID, "thread_name", "run")
	for n, i := range order {
		pids[runPID+1+i] = runPID + 1 + n
		meta(runPID+1+n, "process_name", "session "+t.names[i])
		meta(runPID+1+n, "thread_name", t.names[i])
	}
	for i := range t.recs {
		line()
		r := t.recs[i]
		r.pid = pids[r.pid]
		b = r.appendJSON(b)
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

// appendJSON appends r as one trace event object.
func (r *rec) appendJSON(b []byte) []byte {
	b = append(b, `{"ph":"`...)
	b = append(b, r.ph)
	b = append(b, `","ts":`...)
	b = strconv.AppendInt(b, r.ts, 10)
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(r.pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(r.pid), 10)
	switch r.ph {
	case 'b', 'e':
		b = append(b, `,"id":"0x`...)
		b = strconv.AppendUint(b, r.id, 16)
		b = append(b, '"')
	case 'X':
		b = append(b, `,"dur":0`...)
	case 'i':
		b = append(b, `,"s":"t"`...)
	}
	if r.cat != "" {
		b = append(b, `,"cat":`...)
		b = appendString(b, r.cat)
	}
	b = append(b, `,"name":`...)
	b = appendString(b, r.name)
	switch r.flow {
	case flowOut:
		b = append(b, `,"bind_id":"0x`...)
		b = strconv.AppendUint(b, r.id, 16)
		b = append(b, `","flow_out":true`...)
	case flowIn:
		b = append(b, `,"bind_id":"0x`...)
		b = strconv.AppendUint(b, r.id, 16)
		b = append(b, `","flow_in":true`...)
	}
	if len(r.args) > 0 {
		b = append(b, `,"args":{`...)
		for i, a := range r.args {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, a.k)
			b = append(b, ':')
			if a.isNum {
				b = strconv.AppendInt(b, a.n, 10)
			} else {
				b = appendString(b, a.s)
			}
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

// appendString appends s as a JSON string: quotes, backslashes and
// control characters escaped, invalid UTF-8 replaced by U+FFFD.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
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
