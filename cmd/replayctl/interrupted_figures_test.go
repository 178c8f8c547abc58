//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptedStartUpFigures: a run of 40,000 sessions stopped while
// its sessions are still starting reports what was asked (the tape's 18
// messages on tape, 40,000 sessions) apart from what was done (the
// sessions started, the messages sent), and that it was interrupted.
func TestInterruptedStartUpFigures(t *testing.T) {
	rep := filepath.Join(t.TempDir(), "big.json")
	p := startProc(t, binary, "run", "examples/quickstart.jsonl", "--sessions", "40000", "--speed", "fast",
		"--report", rep, "--out", "json=-", "-q")
	p.waitOutput(p.stdout, `"session"`, time.Minute) // under way
	raw := interruptFor130(t, p, rep)
	var got struct {
		Summary struct {
			Sessions      int    `json:"sessions"`
			SessionsAsked int    `json:"sessions_asked"`
			TotalMessages int64  `json:"total_messages"`
			Sent          int64  `json:"sent"`
			Stopped       string `json:"stopped"`
		} `json:"summary"`
	}
	decodeJSON(t, raw, &got)
	s := got.Summary
	if s.TotalMessages != 18 {
		t.Errorf("total_messages: got %d, want 18 (the tape's)", s.TotalMessages)
	}
	if s.SessionsAsked != 40000 {
		t.Errorf("sessions_asked: got %d, want 40000", s.SessionsAsked)
	}
	if s.Sessions < 1 || s.Sessions >= 40000 {
		t.Errorf("sessions (started): got %d, want between 1 and 39999 (interrupted at start-up)", s.Sessions)
	}
	if s.Sent > int64(s.Sessions)*18 {
		t.Errorf("sent: got %d, want at most 18 per session started (%d)", s.Sent, s.Sessions)
	}
	if s.Stopped != "interrupted" {
		t.Errorf("stopped: got %q, want interrupted", s.Stopped)
	}
}

// TestInterruptedLoadNotJudged: a paced run stopped early delivered a
// schedule cut short: its load line, in the text and the JSON report, a
// single run's and a merge of local shards', says the load was not judged
// and shows no rate (one over the few sends before the stop is noise:
// 29,244/s at 0.05x).
func TestInterruptedLoadNotJudged(t *testing.T) {
	events := filepath.Join(t.TempDir(), "events.jsonl")
	for _, tc := range []struct {
		name     string
		extra    []string
		underWay func(p *proc) // waits until messages are being sent
	}{
		{"one run", []string{"--out", "json=" + events}, func(p *proc) { waitFileHolds(p, events, `"sent"`) }},
		{"local shards", []string{"--local-shards", "2"}, func(p *proc) {
			p.waitOutput(p.stderr, "shard 0/2: the common start is", time.Minute)
			p.waitOutput(p.stderr, "shard 1/2: the common start is", time.Minute)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := filepath.Join(t.TempDir(), "load.json")
			args := append([]string{binary, "run", "examples/quickstart.jsonl", "--sessions", "20", "--speed", "0.05x", "--report", rep}, tc.extra...)
			p := startProc(t, args...)
			tc.underWay(p)
			raw := interruptFor130(t, p, rep)
			var got struct {
				Load struct {
					Applicable bool    `json:"applicable"`
					Intended   float64 `json:"intended_rate_per_s"`
					Achieved   float64 `json:"achieved_rate_per_s"`
					Ratio      float64 `json:"achieved_ratio"`
					Delivered  bool    `json:"delivered"`
					Verdict    string  `json:"verdict"`
				} `json:"load"`
			}
			decodeJSON(t, raw, &got)
			l := got.Load
			if !strings.HasPrefix(l.Verdict, "not judged: the replay was interrupted") || l.Delivered || l.Intended != 0 || l.Achieved != 0 || l.Ratio != 0 {
				t.Errorf("load: got %+v, want not judged (interrupted), no rate, not delivered", l)
			}
			if !strings.Contains(p.stdout.String(), "load        not judged: the replay was interrupted") {
				t.Errorf("summary lacks the load line not judged:\n%s", p.stdout)
			}
		})
	}
}

// waitFileHolds waits until the file at path holds want, or fails.
func waitFileHolds(p *proc, path, want string) {
	p.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), want) {
			return
		}
		select {
		case <-p.done:
			p.t.Fatalf("exited (%d) before %s held %q\nstderr:\n%s", p.code, path, want, p.stderr)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s did not hold %q within a minute", path, want)
		}
	}
}

// interruptFor130 sends p SIGINT, waits for it to exit 130 (interrupted)
// and returns the report it wrote at rep.
func interruptFor130(t *testing.T, p *proc, rep string) string {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(stopBound); code != 130 {
		t.Fatalf("exit %d, want 130\nstderr:\n%s", code, p.stderr)
	}
	raw, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
