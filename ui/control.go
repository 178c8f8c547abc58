package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/replayctl/replayctl/controller"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
)

// command is what the page POSTs to /api/control.
type command struct {
	Cmd string `json:"cmd"` // pause, resume, step, seek, break, delete, speed
	Arg string `json:"arg"` // step: n; seek: a seq or a spec; break: a spec; delete: an id; speed: a speed
}

// state is the controller's status as the page reads it. Next is where
// the REPL's status says the replay stands: the next client message at or
// after Seq (Seq may be a server message, not sent), Seq when none is
// left. The page shows Next, and counts what it checked from the event
// stream, as the REPL and the report do (Judged, the controller's, counts
// a notification sent too).
type state struct {
	State       string       `json:"state"`
	Seq         int64        `json:"seq"`
	Next        int64        `json:"next"`
	Reason      string       `json:"reason"`
	Speed       string       `json:"speed"`
	Released    int64        `json:"released"`
	Sent        int64        `json:"sent"`
	Judged      int64        `json:"judged"`
	Note        string       `json:"note,omitempty"`
	Breakpoints []breakpoint `json:"breakpoints"`
}

type breakpoint struct {
	ID   int    `json:"id"`
	Spec string `json:"spec"`
	Kind string `json:"kind"`
	Hits int    `json:"hits"`
	Err  string `json:"error,omitempty"`
}

// follow keeps the controller's status for the viewers until ctx is
// done or the controller stops. A status the controller publishes (a
// command of the REPL, the control socket or the page) or a command of the
// page (refresh: breakpoints change no status) wakes it; it then asks the
// controller for its status afresh, so that the last state it keeps is
// never older than the last change, however updates were folded.
func (s *Server) follow(ctx context.Context) {
	ch, cancel := s.ctl.Subscribe(16)
	defer cancel()
	for {
		var last controller.Status
		select {
		case <-ctx.Done():
			return
		case <-s.refresh:
		case st, ok := <-ch:
			if !ok {
				return
			}
			last = st
		}
		st, err := s.ctl.Status(ctx)
		if err != nil { // stopped: the last status published says so
			st = last
		}
		s.setState(s.stateOf(ctx, st))
	}
}

// stateOf is st with the breakpoints; a stopped controller has none.
func (s *Server) stateOf(ctx context.Context, st controller.Status) []byte {
	v := state{State: string(st.State), Seq: st.Seq, Next: st.Seq, Reason: st.Reason, Speed: st.Speed,
		Released: st.Released, Sent: st.Sent, Judged: st.Judged, Note: st.Note, Breakpoints: []breakpoint{}}
	if m, ok := s.ctl.NextClient(st.Seq); ok {
		v.Next = m.Seq
	}
	if st.State != controller.Stopped {
		if bps, err := s.ctl.Breakpoints(ctx); err == nil {
			for _, b := range bps {
				v.Breakpoints = append(v.Breakpoints, breakpoint{ID: b.ID, Spec: b.Spec, Kind: b.Kind, Hits: b.Hits, Err: b.Err})
			}
		}
	}
	b, _ := json.Marshal(v) // plain values
	return b
}

func (s *Server) setState(b []byte) {
	s.mu.Lock()
	s.state = b
	s.mu.Unlock()
	s.changed()
}

// serveControl runs one command of the page on the controller and
// answers {"ok":true,"state":…} or {"ok":false,"error":…}. It returns
// when the command has (a step: when its message is judged).
func (s *Server) serveControl(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if s.ctl == nil {
		w.WriteHeader(http.StatusConflict)
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": false, "error": "this replay is not under a debugger: run replayctl debug … --ui ADDR to pause, step and seek"})
		return
	}
	var c command
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&c); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": false, "error": "want {\"cmd\":…,\"arg\":…}: " + err.Error()})
		return
	}
	err := s.run(r.Context(), c)
	select { // the viewers are told, breakpoints included
	case s.refresh <- struct{}{}:
	default:
	}
	st, serr := s.ctl.Status(r.Context())
	out := map[string]any{"ok": err == nil}
	if err != nil {
		out["error"] = err.Error()
	}
	if serr == nil {
		out["state"] = json.RawMessage(s.stateOf(r.Context(), st))
	}
	_ = json.NewEncoder(w).Encode(out)
}

// run runs c on the controller.
func (s *Server) run(ctx context.Context, c command) error {
	arg := strings.TrimSpace(c.Arg)
	switch c.Cmd {
	case "pause":
		return s.ctl.Pause(ctx)
	case "resume":
		return s.ctl.Resume(ctx)
	case "step":
		n := 1
		if arg != "" {
			var err error
			if n, err = strconv.Atoi(arg); err != nil || n < 1 {
				return fmt.Errorf("step %q: want a count of 1 or more", arg)
			}
		}
		_, err := s.ctl.Step(ctx, n)
		return err
	case "seek":
		if arg == "" {
			return errors.New("seek: want a seq, a method or an expression")
		}
		if seq, err := strconv.ParseInt(arg, 10, 64); err == nil {
			return s.ctl.Seek(ctx, seq)
		}
		_, err := s.ctl.SeekMatch(ctx, arg)
		return err
	case "break":
		if arg == "" {
			return errors.New("break: want a seq, a method or an expression")
		}
		_, err := s.ctl.AddBreakpoint(ctx, arg)
		return err
	case "delete":
		id, err := strconv.Atoi(arg)
		if err != nil {
			return fmt.Errorf("delete %q: want a breakpoint's number", arg)
		}
		return s.ctl.RemoveBreakpoint(ctx, id)
	case "speed":
		sp, err := scheduler.Parse(arg)
		if err != nil {
			return fmt.Errorf("speed: %w", err)
		}
		return s.ctl.SetSpeed(ctx, sp)
	}
	return fmt.Errorf("unknown command %q: want pause, resume, step, seek, break, delete or speed", c.Cmd)
}

// verdict is the run's verdict as the page shows it.
type verdict struct {
	Passed     bool                     `json:"passed"`
	Exit       int                      `json:"exit"`
	Aborted    string                   `json:"aborted,omitempty"`
	Checked    int64                    `json:"checked"`
	Failed     int64                    `json:"failed"`
	Errors     int64                    `json:"errors"`
	Timeouts   int64                    `json:"timeouts"`
	Thresholds []report.ThresholdResult `json:"thresholds"`
}

func finishJSON(rep *report.Report) []byte {
	v := verdict{Thresholds: []report.ThresholdResult{}}
	if rep != nil {
		v.Passed, v.Exit, v.Aborted = rep.Passed(), rep.ExitStatus(), rep.Summary.Aborted
		v.Checked, v.Failed = rep.Validation.Checked, rep.Validation.Failed
		v.Errors, v.Timeouts = rep.Performance.Errors, rep.Performance.Timeouts
		v.Thresholds = append(v.Thresholds, rep.Thresholds...)
	}
	b, _ := json.Marshal(v)
	return b
}
