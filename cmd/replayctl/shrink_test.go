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
	"github.com/replayctl/replayctl/shrink"
	"github.com/replayctl/replayctl/tape"
)

// TestShrinkCommand: replayctl shrink writes the smallest tape (and chaos
// plan) and its report, and exits 0 when the proof holds; the tape it
// wrote fails a plain run the same way.
func TestShrinkCommand(t *testing.T) {
	root := testserver.Root(t)
	planted := testserver.Planted(t)[0]
	dir := t.TempDir()
	t.Run("planted a-b-c crash", func(t *testing.T) {
		min, rep := filepath.Join(dir, "abc.min.jsonl"), filepath.Join(dir, "abc.json")
		res := replayctl(t, "shrink", filepath.Join(root, "shrink/testdata/planted-abc.jsonl"), "--tape-out", min, "--report", rep, "--", planted, "-abc", "boom")
		if res.code != 0 {
			t.Fatalf("exit %d, want 0\n%s\n%s", res.code, res.stdout, res.stderr)
		}
		if !strings.Contains(res.stdout, "proof:    10 of 10 runs failed the same way: holds") || !strings.Contains(res.stdout, "crash at s7 seq 872 (tools/call c)") {
			t.Errorf("stdout:\n%s", res.stdout)
		}
		if !strings.Contains(res.stderr, "shrink: round 1, sessions: 1 session, 30 units, 59 messages, 0 faults (6 runs)") {
			t.Errorf("stderr: want a line per step, the first the sessions phase\n%s", res.stderr)
		}
		var s struct {
			Before, After struct{ Sessions, Messages int }
			Runs          int
			Proof         struct{ Runs, Failed int }
		}
		b, err := os.ReadFile(rep)
		if err != nil || json.Unmarshal(b, &s) != nil {
			t.Fatalf("report: %v\n%s", err, b)
		}
		if s.Before.Sessions != 20 || s.After.Sessions != 1 || s.After.Messages != 9 || s.Proof.Failed != 10 || s.Runs == 0 {
			t.Errorf("report: %+v, want 20 sessions before, 1 session of 9 messages after, 10 proof runs failed", s)
		}
		r, err := tape.Open(min)
		if err != nil {
			t.Fatalf("the written tape: %v", err)
		}
		r.Close()
		run := replayctl(t, "run", min, "--speed", "fast", "--", planted, "-abc", "boom")
		if run.code != 3 || !strings.Contains(run.stderr, `tools/call c with mode "boom" after a and b`) {
			t.Errorf("run of the shrunk tape: exit %d, want 3 with the planted crash\n%s", run.code, run.stderr)
		}
	})
	t.Run("chaos fault", func(t *testing.T) {
		tp := filepath.Join(root, "shrink/testdata/pay.jsonl")
		chaos := filepath.Join(dir, "chaos.json")
		run := replayctl(t, "run", tp, "--speed", "fast", "--chaos", "duplicate=0.1,cancel=0.05,burst=0.05,reorder=0.05", "--seed", "1", "--report", chaos, "--", planted, "-dup", "pay")
		if run.code != 1 || !strings.Contains(run.stderr, "the server died under chaos") {
			t.Fatalf("the chaos run: exit %d, want 1 (the server died under chaos)\n%s", run.code, run.stderr)
		}
		min, plan := filepath.Join(dir, "pay.min.jsonl"), filepath.Join(dir, "pay.plan.json")
		res := replayctl(t, "shrink", tp, "--chaos-from", chaos, "--tape-out", min, "--plan-out", plan, "-o", "json", "--", planted, "-dup", "pay")
		if res.code != 0 {
			t.Fatalf("exit %d, want 0\n%s\n%s", res.code, res.stdout, res.stderr)
		}
		var p struct {
			Chaos struct {
				Faults []struct{ Kind string }
			}
		}
		b, _ := os.ReadFile(plan)
		if err := json.Unmarshal(b, &p); err != nil || len(p.Chaos.Faults) != 1 || p.Chaos.Faults[0].Kind != "duplicate" {
			t.Fatalf("plan %s: %v, want one duplicate fault", b, err)
		}
		again := replayctl(t, "run", min, "--speed", "fast", "--chaos-from", plan, "--", planted, "-dup", "pay")
		if again.code != 1 || !strings.Contains(again.stderr, "the server died under chaos") {
			t.Errorf("run of the shrunk tape with its plan: exit %d, want 1, the server dead under chaos\n%s", again.code, again.stderr)
		}
		if plain := replayctl(t, "run", min, "--speed", "fast", "--", planted, "-dup", "pay"); plain.code != 0 {
			t.Errorf("run of the shrunk tape without its plan: exit %d, want 0\n%s", plain.code, plain.stderr)
		}
	})
	t.Run("reset command", func(t *testing.T) {
		count := filepath.Join(dir, "resets")
		res := replayctl(t, "shrink", filepath.Join(root, "shrink/testdata/pay.jsonl"), "--chaos-from", filepath.Join(dir, "chaos.json"),
			"--tape-out", filepath.Join(dir, "r.min.jsonl"), "--plan-out", filepath.Join(dir, "r.plan.json"), "--reset-cmd", "echo reset >> "+count, "-o", "json", "--", planted, "-dup", "pay")
		if res.code != 0 {
			t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
		}
		var s struct{ Runs int }
		if err := json.Unmarshal([]byte(res.stdout), &s); err != nil {
			t.Fatalf("stdout: %v\n%s", err, res.stdout)
		}
		b, _ := os.ReadFile(count)
		if got := strings.Count(string(b), "reset\n"); got != s.Runs || got == 0 {
			t.Errorf("%d resets for %d runs, want one before each", got, s.Runs)
		}
		bad := replayctl(t, "shrink", filepath.Join(root, "shrink/testdata/pay.jsonl"), "--chaos-from", filepath.Join(dir, "chaos.json"),
			"--tape-out", filepath.Join(dir, "r2.min.jsonl"), "--plan-out", filepath.Join(dir, "r2.plan.json"), "--reset-cmd", "exit 4", "--", planted, "-dup", "pay")
		if bad.code != 3 || !strings.Contains(bad.stderr, `--reset-cmd "exit 4"`) {
			t.Errorf("a failing reset: exit %d, want 3 and an error naming it\n%s", bad.code, bad.stderr)
		}
	})
	t.Cleanup(func() { // every output went to the test's folder, none beside the fixtures
		entries, _ := os.ReadDir(filepath.Join(root, "shrink/testdata"))
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if got := strings.Join(names, " "); got != "fuzz pay.jsonl planted-abc.jsonl" {
			t.Errorf("shrink/testdata holds %s: a test wrote beside the fixtures", got)
		}
	})
	t.Run("bad input and no failure", func(t *testing.T) {
		tp := filepath.Join(root, "shrink/testdata/pay.jsonl")
		for _, tc := range []struct {
			args []string
			code int
			want string
		}{
			{[]string{"shrink", tp, "--runs", "2", "--need", "3", "--", planted}, 2, "--need 3 of --runs 2"},
			{[]string{"shrink", tp, "--parallel", "0", "--", planted}, 2, "--parallel 0"},
			{[]string{"shrink", tp, "--speed", "stepped", "--", planted}, 2, "--speed stepped"},
			{[]string{"shrink", tp, "--at", "s1:x", "--", planted}, 2, `--at "s1:x": want SESSION:SEQ`},
			{[]string{"shrink", tp, "--at", "12", "--", planted}, 2, "--at 12: the tape has 4 sessions (s1, s2, s3, s4)"},
			{[]string{"shrink", tp, "--tape-out", filepath.Join(dir, "no2.jsonl"), "--baseline", "1", "--at", "s1:2", "--", planted}, 1, "at s1 seq 2"},
			{[]string{"shrink", tp, "--speed", "warp", "--", planted}, 2, "--speed"},
			{[]string{"shrink", tp, "--plan-out", "x.json", "--", planted}, 2, "--chaos-from"},
			{[]string{"shrink", tp, "--chaos-from", filepath.Join(dir, "missing.json"), "--", planted}, 2, "--chaos-from"},
			{[]string{"shrink", tp, "--tape-out", filepath.Join(dir, "no.jsonl"), "--baseline", "2", "--", planted}, 1, "replays without a failure"},
		} {
			res := replayctl(t, tc.args...)
			if res.code != tc.code || !strings.Contains(res.stderr, tc.want) {
				t.Errorf("%q: exit %d, want %d with %q\n%s", tc.args, res.code, tc.code, tc.want, res.stderr)
			}
		}
	})
}

// TestShrinkInterrupt: a shrink interrupted after its first step writes
// the smallest tape found so far, and exits 130.
func TestShrinkInterrupt(t *testing.T) {
	planted := testserver.Planted(t)[0]
	out := filepath.Join(t.TempDir(), "so-far.jsonl")
	// 50 runs per rejected candidate: long enough to be stopped mid-way.
	cmd := exec.Command(binary, "shrink", "shrink/testdata/planted-abc.jsonl", "--runs", "50", "--tape-out", out, "--", planted, "-abc", "boom")
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
	stepped := make(chan struct{})
	var lines []string
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines = append(lines, sc.Text())
			if strings.HasPrefix(sc.Text(), "shrink: round 1, sessions:") {
				close(stepped)
			}
		}
	}()
	select {
	case <-stepped:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		<-read
		_ = cmd.Wait()
		t.Fatalf("no step within 2 minutes:\n%s", strings.Join(lines, "\n"))
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { <-read; done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("still running 30s after SIGINT:\n%s", strings.Join(lines, "\n"))
	}
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Errorf("exit %d, want 130\n%s", code, strings.Join(lines, "\n"))
	}
	m, err := shrink.Load(tape.File(out))
	if err != nil {
		t.Fatalf("the tape so far: %v", err)
	}
	if n := len(m.Messages); n >= 1066 || n < 9 {
		t.Errorf("the tape so far has %d messages: want fewer than the 1066 it started with", n)
	}
	if !strings.Contains(stdout.String(), "after:") {
		t.Errorf("stdout: want the summary of what was found\n%s", stdout.String())
	}
}

// TestShrinkNeedsATargetThatAnswers: shrink with no server (the mock
// answers as recorded: nothing fails) is refused, exit 2; a target that
// cannot be reached is the environment's failure, exit 3, not "the tape
// replays without a failure".
func TestShrinkNeedsATargetThatAnswers(t *testing.T) {
	out := filepath.Join(t.TempDir(), "min.jsonl")
	res := replayctl(t, "shrink", "shrink/testdata/planted-abc.jsonl", "--tape-out", out)
	if res.code != 2 || !strings.Contains(res.stderr, "no server to shrink against") {
		t.Errorf("shrink with no server: exit %d, stderr %q; want 2 and %q", res.code, res.stderr, "no server to shrink against")
	}
	res = replayctl(t, "shrink", "shrink/testdata/planted-abc.jsonl", "-q", "--baseline", "2", "--tape-out", out, "--target", "http://127.0.0.1:1/mcp")
	if res.code != 3 || !strings.Contains(res.stderr, "the target failed every baseline run") || !strings.Contains(res.stderr, "connection refused") {
		t.Errorf("shrink against nothing listening: exit %d, stderr %q; want 3, the target failed and why", res.code, res.stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a shrink that found nothing wrote %s: %v", out, err)
	}
}
