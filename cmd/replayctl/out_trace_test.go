package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testtrace"
)

// TestOutTrace: the trace of a 50-session chaos run obeys the Trace
// Event Format's rules (testtrace: named processes and threads, time
// never going back on a track, slices nested, begins ended, flows
// closed) and holds the run: a process per session in the sessions'
// order, a request slice per request the report counts, a fault marker
// per fault injected, a flow per answer.
func TestOutTrace(t *testing.T) {
	dir := t.TempDir()
	tracePath, reportPath := filepath.Join(dir, "run.trace.json"), filepath.Join(dir, "report.json")
	res := replayctl(t, "run", quickTape, "--speed", "fast", "--sessions", "50",
		"--chaos", "timeout=0.05,drop=0.05,error-response=0.05", "--seed", "7", "--timeout", "500ms",
		"--out", "trace="+tracePath, "--report", reportPath, "-q")
	if res.code != 0 && res.code != 1 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	b, err := os.ReadFile(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	s, err := testtrace.Check(b)
	if err != nil {
		t.Fatalf("the trace breaks the format's rules: %v", err)
	}
	var rep struct {
		PerMethod []struct {
			Requests int64 `json:"requests"`
			Answered int64 `json:"answered"`
		} `json:"per_method"`
		Chaos struct {
			Injected int `json:"injected"`
		} `json:"chaos"`
	}
	rb, err := os.ReadFile(reportPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(rb, &rep); err != nil {
		t.Fatal(err)
	}
	var requests, answered int64
	for _, m := range rep.PerMethod {
		requests += m.Requests
		answered += m.Answered
	}
	if rep.Chaos.Injected == 0 || answered == requests {
		t.Fatalf("the report has %d faults, %d of %d requests answered: the chaos the test is for did not happen", rep.Chaos.Injected, answered, requests)
	}
	if len(s.Processes) != 51 || s.Processes[1] != "replay" {
		t.Errorf("%d processes, the first %q; want 51: replay and a session each", len(s.Processes), s.Processes[1])
	}
	for i := 1; i <= 50; i++ {
		if want := "session s1#" + strconv.Itoa(i); s.Processes[i+1] != want {
			t.Errorf("process %d is %q, want %q", i+1, s.Processes[i+1], want)
		}
	}
	if got := int64(s.Slices["request"]); got != requests {
		t.Errorf("%d request slices, want the report's %d requests", got, requests)
	}
	if got := s.Instants["fault"]; got != rep.Chaos.Injected {
		t.Errorf("%d fault markers, want the report's %d faults", got, rep.Chaos.Injected)
	}
	if int64(s.Flows) < answered || int64(s.Flows) > requests {
		t.Errorf("%d flows, want one per answer: at least the %d answered in time, at most the %d requests", s.Flows, answered, requests)
	}
}

// TestOutTraceErrors: a trace to stdout or into a missing folder is bad
// usage (exit 2) before the replay; a replay that never starts (a tape
// that is not one) leaves no trace file behind.
func TestOutTraceErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{quickTape, "--out", "trace=-"}, "a trace is written whole at the end of the run: give a file"},
		{[]string{quickTape, "--out", "trace=" + filepath.Join(dir, "missing", "t.json")}, "give a file in a folder that can be written"},
		{[]string{quickTape, "--out", "perfetto=x.json"}, "want json=FILE"},
	} {
		t.Run(strings.Join(tc.args[1:], " "), func(t *testing.T) {
			res := replayctl(t, append([]string{"run", "--speed", "fast"}, tc.args...)...)
			if res.code != 2 || !strings.Contains(res.stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", res.code, res.stderr, tc.want)
			}
		})
	}
	notTape := filepath.Join(dir, "not-a-tape.jsonl")
	if err := os.WriteFile(notTape, []byte("not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(dir, "t.json")
	res := replayctl(t, "run", notTape, "--speed", "fast", "--out", "trace="+trace)
	if res.code == 0 {
		t.Fatalf("a tape that is not one: exit 0\n%s", res.stderr)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "not-a-tape.jsonl" {
			t.Errorf("left behind: %s (exit %d, %s)", e.Name(), res.code, res.stderr)
		}
	}
}
