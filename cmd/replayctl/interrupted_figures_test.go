package main

import (
	"encoding/json"
	"os"
	"path/filepath"
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
	var got struct {
		Summary struct {
			Sessions      int    `json:"sessions"`
			SessionsAsked int    `json:"sessions_asked"`
			TotalMessages int64  `json:"total_messages"`
			Sent          int64  `json:"sent"`
			Stopped       string `json:"stopped"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("report: %v", err)
	}
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
