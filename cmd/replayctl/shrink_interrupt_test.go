package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testserver"
)

// interruptWhen starts replayctl with args, waits until ready
// says (given each stderr line, or polled when a line is "") that it is
// where the test wants it, sends SIGINT, and returns the exit status,
// stdout and stderr.
func interruptWhen(t *testing.T, ready func(line string) bool, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = "../.."
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	got := make(chan struct{})
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(stderr)
		once := false
		for sc.Scan() {
			lines = append(lines, sc.Text())
			if !once && ready(sc.Text()) {
				once = true
				close(got)
			}
		}
	}()
	deadline := time.After(2 * time.Minute)
	tick := time.NewTicker(10 * time.Millisecond) // polls a condition outside the process (a file)
	defer tick.Stop()
wait:
	for {
		select {
		case <-got:
			break wait
		case <-tick.C:
			if ready("") {
				break wait
			}
		case <-deadline:
			_ = cmd.Process.Kill()
			<-read
			_ = cmd.Wait()
			t.Fatalf("not ready within 2 minutes:\n%s", strings.Join(lines, "\n"))
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { <-read; _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("still running 30s after SIGINT:\n%s", strings.Join(lines, "\n"))
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), strings.Join(lines, "\n")
}

// TestShrinkInterruptSaysSo: a shrink interrupted mid-way says so plainly
// (stdout, stderr and the report's "interrupted"), claims no proof (none
// was run), keeps the smallest tape so far and exits 130; interrupted in
// the baseline, it says that nothing was found yet, and exits 130.
func TestShrinkInterruptSaysSo(t *testing.T) {
	planted := testserver.Planted(t)[0]
	dir := t.TempDir()
	t.Run("mid-way", func(t *testing.T) {
		out, rep := filepath.Join(dir, "so-far.jsonl"), filepath.Join(dir, "so-far.json")
		code, stdout, stderr := interruptWhen(t, func(line string) bool { return strings.HasPrefix(line, "shrink: round 1, sessions:") },
			"shrink", "shrink/testdata/planted-abc.jsonl", "--runs", "50", "--tape-out", out, "--report", rep, "--", planted, "-abc", "boom")
		if code != exitInterrupted {
			t.Errorf("exit %d, want 130\n%s", code, stderr)
		}
		if strings.Contains(stdout, "holds") || !strings.Contains(stdout, "interrupted") {
			t.Errorf("stdout: want it to say interrupted, and claim no proof\n%s", stdout)
		}
		if strings.Contains(stderr, "context canceled") || !strings.Contains(stderr, "interrupted") {
			t.Errorf("stderr: want \"interrupted\" said plainly, not a Go error\n%s", stderr)
		}
		b, err := os.ReadFile(rep)
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Interrupted *bool `json:"interrupted"`
			ProofHolds  bool  `json:"proof_holds"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		if r.Interrupted == nil || !*r.Interrupted || r.ProofHolds {
			t.Errorf("report: interrupted %v, proof_holds %v; want true and false", r.Interrupted, r.ProofHolds)
		}
		if _, err := os.Stat(out); err != nil {
			t.Errorf("the tape so far: %v", err)
		}
	})
	t.Run("in the baseline", func(t *testing.T) {
		marker := filepath.Join(dir, "started")
		out := filepath.Join(dir, "none.jsonl")
		server := "touch " + marker + "; exec " + planted + " -abc boom"
		code, stdout, stderr := interruptWhen(t, func(string) bool { _, err := os.Stat(marker); return err == nil },
			"shrink", "shrink/testdata/planted-abc.jsonl", "--baseline", "1000", "--max-runs", "5000", "--tape-out", out, "--", "sh", "-c", server)
		if code != exitInterrupted {
			t.Errorf("exit %d, want 130\n%s", code, stderr)
		}
		if strings.Contains(stderr, "context canceled") || !strings.Contains(stderr, "interrupted") || !strings.Contains(stderr, "baseline") {
			t.Errorf("stderr: want it to say it was interrupted in the baseline\n%s%s", stdout, stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: %v; want no tape (nothing was found)", out, err)
		}
	})
}
