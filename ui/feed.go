package ui

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/internal/jsonscan"
)

// The feed's wire format (GET /events, Server-Sent Events).
//
// On connect, one "hello" event:
//
//	event: hello
//	data: {"names":[…],"lost":N,"title":"…","debug":bool,"thresholds":[…],"state":{…}|null,"result":{…}|null}
//
// names is the name table so far; lost counts the events the journal
// dropped (its bound) that this viewer will not see. Then every frame
// after Last-Event-ID (all of them for a new viewer), each as
//
//	id: 17
//	data: {"id":17,"base":40,"names":["s3","tools/call"],"ev":[[…],[…]]}
//
// where names are the name table's entries from index base on, added in
// this frame, and ev its events, each an array: [code, t_us, session,
// seq, …], session (and every other name) an index into the name table
// (-1: none), and after seq by code:
//
//	"D" dialled, "C" reconnect, "E" session ended, "X" run ended: detail
//	"A" anchored:        method
//	"H" held:            method, reason
//	"S" sent:            method, held_us (-1: none)
//	"F" fault:           method, kind, detail
//	"R" retry:           method, attempt, reason, detail
//	"J" judged:          method, kind, dir, verdict, lag_us, held_us,
//	                     latency_us (-1: none), name, differences, detail,
//	                     fault kind
//	"G" grouped:         group, kind ("rounds": an MRTR chain; "task":
//	                     a task's request and polls); t_us is 0
//
// detail is a JSON string ("" none). While the run goes on, "state"
// events carry the controller's status (debug) and a "result" event the
// run's verdict when it ends, after the frame of its last events; a
// viewer who comes after the end gets it after the frames too (the hello's
// result is null on the feed; a frozen report's has it, read with its
// frames before the page draws).
var feedTypes = []event.Type{event.Dialled, event.Anchored, event.Held, event.Sent, event.Judged,
	event.Fault, event.Retry, event.Reconnect, event.SessionEnded, event.RunEnded}

type eventT = event.Event

// encode appends e to b as the feed's array. j.mu is held (names).
func (j *journal) encode(b []byte, e *eventT) []byte {
	b = append(b, '[', '"')
	switch e.Type {
	case event.Dialled:
		b = append(b, 'D')
	case event.Anchored:
		b = append(b, 'A')
	case event.Held:
		b = append(b, 'H')
	case event.Sent:
		b = append(b, 'S')
	case event.Judged:
		b = append(b, 'J')
	case event.Fault:
		b = append(b, 'F')
	case event.Retry:
		b = append(b, 'R')
	case event.Reconnect:
		b = append(b, 'C')
	case event.SessionEnded:
		b = append(b, 'E')
	default:
		b = append(b, 'X')
	}
	b = append(b, '"', ',')
	b = appendInt(b, e.TUS)
	b = append(b, ',')
	b = appendInt(b, int64(j.name(e.Session)))
	b = append(b, ',')
	b = appendInt(b, e.Seq)
	switch e.Type {
	case event.Anchored:
		b = j.appendName(b, e.Method)
	case event.Held:
		b = j.appendName(b, e.Method)
		b = j.appendName(b, e.Reason)
	case event.Sent:
		b = j.appendName(b, e.Method)
		b = appendDur(b, e.Held, e.HasHeld)
	case event.Fault:
		b = j.appendName(b, e.Method)
		b = j.appendName(b, e.Reason)
		b = append(b, ',')
		b = jsonscan.AppendHTMLString(b, e.Detail)
	case event.Retry:
		b = j.appendName(b, e.Method)
		b = append(b, ',')
		b = appendInt(b, int64(e.Attempt))
		b = j.appendName(b, e.Reason)
		b = append(b, ',')
		b = jsonscan.AppendHTMLString(b, e.Detail)
	case event.Judged:
		b = j.appendName(b, e.Method)
		b = j.appendName(b, e.Kind)
		b = j.appendName(b, e.Dir)
		b = j.appendName(b, e.Verdict)
		b = appendDur(b, e.Lag, e.HasLag)
		b = appendDur(b, e.Held, e.HasHeld)
		b = appendDur(b, e.Latency, e.HasLatency)
		b = j.appendName(b, e.Name)
		b = append(b, ',')
		b = appendInt(b, int64(len(e.Differences)))
		b = append(b, ',')
		b = jsonscan.AppendHTMLString(b, e.Detail)
		fault := ""
		if e.Fault != nil {
			fault = e.Fault.Kind
		}
		b = j.appendName(b, fault)
	default: // dialled, reconnect, session and run ended
		b = append(b, ',')
		b = jsonscan.AppendHTMLString(b, e.Detail)
	}
	return append(b, ']')
}

func (j *journal) appendName(b []byte, s string) []byte {
	b = append(b, ',')
	return appendInt(b, int64(j.name(s)))
}

func appendInt(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }

// appendDur appends d in microseconds, or -1 when !ok.
func appendDur(b []byte, d time.Duration, ok bool) []byte {
	b = append(b, ',')
	if !ok {
		return append(b, '-', '1')
	}
	return appendInt(b, d.Microseconds())
}

func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonscan.AppendHTMLString(b, s)
	}
	return append(b, ']')
}

// hello is the first event a viewer is sent.
type hello struct {
	Names      []string        `json:"names"`
	Lost       int64           `json:"lost"`
	Title      string          `json:"title"`
	Debug      bool            `json:"debug"`
	Thresholds []string        `json:"thresholds"`
	State      json.RawMessage `json:"state"`
	// Result is the verdict in a frozen report's hello; null on the feed,
	// which sends it as a result event after the frames (serveEvents).
	Result json.RawMessage `json:"result"`
}

// serveEvents streams the feed to one viewer until it goes or the server
// stops: the frames after Last-Event-ID (or ?last=), then each frame as it
// is sealed, the controller's status and the run's verdict as they change.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	var cursor int64
	last := r.Header.Get("Last-Event-ID")
	if last == "" {
		last = r.URL.Query().Get("last")
	}
	if last != "" {
		n, err := strconv.ParseInt(last, 10, 64)
		if err != nil || n < 0 {
			http.Error(w, fmt.Sprintf("Last-Event-ID %q: want a frame number (0 or more)", last), http.StatusBadRequest)
			return
		}
		cursor = n
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)

	v := s.snap(cursor)
	state, result, change, frames := v.state, v.result, v.change, v.frames
	// The verdict is no part of the hello, even for a viewer who comes
	// after Finish: it goes as a result event after the frames, as for a
	// viewer who watched the run (the page draws between events, and drew
	// a verdict over a run it had not read yet).
	h := hello{Names: v.names, Lost: v.lost, Title: s.title, Debug: s.ctl != nil, Thresholds: s.thresholds,
		State: orNull(state), Result: orNull(nil)}
	if h.Names == nil {
		h.Names = []string{}
	}
	if h.Thresholds == nil {
		h.Thresholds = []string{}
	}
	hb, _ := json.Marshal(h) // plain values: never fails
	buf := append([]byte("retry: 1000\nevent: hello\ndata: "), hb...)
	buf = append(buf, "\n\n"...)
	resultSent := false
	for {
		for _, f := range frames {
			buf = append(buf, "id: "...)
			buf = appendInt(buf, f.id)
			buf = append(buf, "\ndata: "...)
			buf = append(buf, f.data...)
			buf = append(buf, "\n\n"...)
			cursor = f.id
		}
		if result != nil && !resultSent { // after the run's last events
			buf = append(append(append(buf, "event: result\ndata: "...), result...), "\n\n"...)
			resultSent = true
		}
		if len(buf) > 0 {
			_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
			if _, err := w.Write(buf); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
			buf = buf[:0]
		}
		select {
		case <-r.Context().Done():
			return
		case <-change:
		}
		v := s.snap(cursor)
		change, frames = v.change, v.frames
		if v.state != nil && string(v.state) != string(state) {
			state = v.state
			buf = append(append(append(buf, "event: state\ndata: "...), state...), "\n\n"...)
		}
		result = v.result
	}
}

// snapshot is what a viewer is sent next (snap).
type snapshot struct {
	state, result []byte        // the controller's status, the run's verdict (nil: none yet)
	change        chan struct{} // closed at the next change
	frames        []frame       // after the cursor
	names         []string      // the name table sealed so far
	lost          int64         // events dropped before frames[0] (journal.after)
}

// snap is what a viewer at cursor (the last frame it has) is sent next.
// The verdict is read before the frames: Finish seals the run's last
// events before it sets it, so a viewer given the verdict has them.
func (s *Server) snap(cursor int64) snapshot {
	var v snapshot
	s.mu.Lock()
	v.state, v.result, v.change = s.state, s.result, s.change
	s.mu.Unlock()
	v.frames, v.names, v.lost = s.j.after(cursor)
	return v
}

func orNull(b []byte) json.RawMessage {
	if b == nil {
		return json.RawMessage("null")
	}
	return b
}
