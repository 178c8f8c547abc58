// Package testtrace checks a trace file in the Trace Event Format
// against the format's rules, as Perfetto's importer applies them, for
// the tests of `replayctl run --out trace=FILE`. It is an oracle written
// apart from package tracefile: it reads the JSON generically.
//
// The rules: the file is {"traceEvents": [...]} and nothing else (a
// displayTimeUnit is an import warning in Perfetto); every event has a
// known phase, a pid, a tid and (but metadata) a time; every process and
// thread an event is on is named by metadata; on each track (a thread;
// an async slice's pid, category and id; a counter's pid and name) times
// never go back; a thread's complete slices nest, never overlap; async
// begins and ends pair up, nested, by name; every flow that starts
// (bind_id with flow_out) ends once (flow_in), at or after its start.
package testtrace

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Summary is what a valid trace holds.
type Summary struct {
	Processes map[int]string // pid → process_name
	Threads   int
	// Slices counts the async slices by category, the outermost only
	// (depth 0).
	Slices map[string]int
	// Instants counts instant events by name, the name cut at ": "
	// ("fault: timeout" counts as "fault").
	Instants map[string]int
	Flows    int // flows started and ended
	Events   int
}

type ev struct {
	Ph      string          `json:"ph"`
	TS      *float64        `json:"ts"`
	Dur     *float64        `json:"dur"`
	PID     *int            `json:"pid"`
	TID     *int            `json:"tid"`
	ID      json.RawMessage `json:"id"`
	Cat     string          `json:"cat"`
	Name    string          `json:"name"`
	S       string          `json:"s"`
	BindID  json.RawMessage `json:"bind_id"`
	FlowIn  bool            `json:"flow_in"`
	FlowOut bool            `json:"flow_out"`
	Args    map[string]any  `json:"args"`
}

type open struct {
	name string
	end  float64
}

// Check reads a trace file and returns what it holds, or the first
// rule it breaks (the event's index and what is wrong).
func Check(data []byte) (Summary, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return Summary{}, fmt.Errorf("not a JSON object: %w", err)
	}
	for k := range top {
		if k != "traceEvents" {
			return Summary{}, fmt.Errorf("top-level key %q: only traceEvents is written", k)
		}
	}
	var events []ev
	if err := json.Unmarshal(top["traceEvents"], &events); err != nil {
		return Summary{}, fmt.Errorf("traceEvents: %w", err)
	}
	s := Summary{Processes: map[int]string{}, Slices: map[string]int{}, Instants: map[string]int{}, Events: len(events)}
	threads := map[[2]int]bool{}
	used := map[[2]int]int{} // thread → the first event on it
	pids := map[int]int{}    // process → the first event on it
	last := map[string]float64{}
	stacks := map[string][]open{}
	flowsOut := map[string]float64{}
	flowsIn := map[string]float64{}
	var errs []error
	fail := func(i int, format string, a ...any) {
		errs = append(errs, fmt.Errorf("event %d: %s", i, fmt.Sprintf(format, a...)))
	}
	for i, e := range events {
		if e.PID == nil || e.TID == nil {
			fail(i, "%q has no pid or tid", e.Ph)
			continue
		}
		pid, tid := *e.PID, *e.TID
		if e.Ph == "M" {
			name, _ := e.Args["name"].(string)
			switch e.Name {
			case "process_name":
				s.Processes[pid] = name
			case "thread_name":
				threads[[2]int{pid, tid}] = true
			}
			continue
		}
		if e.TS == nil {
			fail(i, "%q %q has no ts", e.Ph, e.Name)
			continue
		}
		ts := *e.TS
		var track string
		switch e.Ph {
		case "X", "i":
			track = fmt.Sprintf("thread %d/%d", pid, tid)
			if _, ok := used[[2]int{pid, tid}]; !ok {
				used[[2]int{pid, tid}] = i
			}
		case "b", "e":
			if len(e.ID) == 0 {
				fail(i, "async %q has no id", e.Name)
				continue
			}
			track = fmt.Sprintf("async %d/%s/%s", pid, e.Cat, e.ID)
		case "C":
			track = fmt.Sprintf("counter %d/%s", pid, e.Name)
			for k, v := range e.Args {
				if _, ok := v.(float64); !ok {
					fail(i, "counter %q arg %s is not a number", e.Name, k)
				}
			}
		default:
			fail(i, "phase %q is not one this trace writes", e.Ph)
			continue
		}
		if _, ok := pids[pid]; !ok { // named by metadata anywhere in the file: checked at the end
			pids[pid] = i
		}
		if ts < last[track] {
			fail(i, "%s: ts %v after %v: time goes back on the track", track, ts, last[track])
		}
		last[track] = ts
		switch e.Ph {
		case "X":
			if e.Dur == nil || *e.Dur < 0 {
				fail(i, "X %q without a duration", e.Name)
				continue
			}
			end := ts + *e.Dur
			st := stacks[track]
			for len(st) > 0 && st[len(st)-1].end <= ts {
				st = st[:len(st)-1]
			}
			if len(st) > 0 && end > st[len(st)-1].end {
				fail(i, "%s: %q [%v, %v] overlaps %q ending at %v without nesting in it", track, e.Name, ts, end, st[len(st)-1].name, st[len(st)-1].end)
			}
			stacks[track] = append(st, open{name: e.Name, end: end})
		case "i":
			if e.S != "t" && e.S != "p" && e.S != "g" {
				fail(i, "instant %q has scope %q, want t, p or g", e.Name, e.S)
			}
			name, _, _ := strings.Cut(e.Name, ": ")
			s.Instants[name]++
		case "b":
			if len(stacks[track]) == 0 {
				s.Slices[e.Cat]++
			}
			stacks[track] = append(stacks[track], open{name: e.Name})
		case "e":
			st := stacks[track]
			if len(st) == 0 {
				fail(i, "%s: end of %q with no slice open", track, e.Name)
				continue
			}
			if top := st[len(st)-1]; top.name != e.Name {
				fail(i, "%s: end of %q while %q is open", track, e.Name, top.name)
			}
			stacks[track] = st[:len(st)-1]
		}
		if len(e.BindID) > 0 {
			id := string(e.BindID)
			switch {
			case e.FlowOut && e.FlowIn:
				fail(i, "flow %s: both in and out (a step) is not written", id)
			case e.FlowOut:
				if _, dup := flowsOut[id]; dup {
					fail(i, "flow %s starts twice", id)
				}
				flowsOut[id] = ts
			case e.FlowIn:
				if _, dup := flowsIn[id]; dup {
					fail(i, "flow %s ends twice", id)
				}
				flowsIn[id] = ts
			default:
				fail(i, "bind_id %s with neither flow_in nor flow_out", id)
			}
		}
	}
	for track, st := range stacks {
		if strings.HasPrefix(track, "async") && len(st) > 0 {
			errs = append(errs, fmt.Errorf("%s: %q begins and never ends", track, st[len(st)-1].name))
		}
	}
	for id, at := range flowsOut {
		end, ok := flowsIn[id]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("flow %s starts and never ends", id))
		case end < at:
			errs = append(errs, fmt.Errorf("flow %s ends at %v, before it starts at %v", id, end, at))
		default:
			s.Flows++
		}
	}
	for id := range flowsIn {
		if _, ok := flowsOut[id]; !ok {
			errs = append(errs, fmt.Errorf("flow %s ends and never starts", id))
		}
	}
	for pid, i := range pids {
		if _, ok := s.Processes[pid]; !ok {
			errs = append(errs, fmt.Errorf("event %d: process %d has no process_name", i, pid))
		}
	}
	for th, i := range used {
		if !threads[th] {
			errs = append(errs, fmt.Errorf("event %d: thread %d/%d has no thread_name", i, th[0], th[1]))
		}
	}
	s.Threads = len(threads)
	if len(errs) > 10 {
		errs = append(errs[:10], fmt.Errorf("and %d more", len(errs)-10))
	}
	return s, errors.Join(errs...)
}
