package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/trace"
	"strings"
	"sync"
	"testing"
)

var binary string // tracestat, built by TestMain

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tracestat-test")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "tracestat")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		panic("build tracestat: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	if engineTrace.path != "" {
		os.RemoveAll(filepath.Dir(engineTrace.path))
	}
	os.Exit(code)
}

// tracestat runs the binary on args and returns its exit status, stdout
// and stderr.
func tracestat(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(binary, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

var engineTrace struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

// replayTrace is the runtime trace of a real replay: engine's
// BenchmarkPipeline of 1,000 calls, three times, run by go test in the
// main module with -trace.
func replayTrace(t *testing.T) string {
	t.Helper()
	engineTrace.once.Do(func() {
		dir, err := os.MkdirTemp("", "tracestat-engine")
		if err != nil {
			engineTrace.err = err
			return
		}
		engineTrace.path = filepath.Join(dir, "replay.trace")
		cmd := exec.Command("go", "test", "-run", "^$", "-bench", "Pipeline/^msgs=1000$/^events=none$", "-benchtime", "3x", "-trace", engineTrace.path, "./engine/")
		cmd.Dir = "../.."
		engineTrace.out, engineTrace.err = cmd.CombinedOutput()
	})
	if engineTrace.err != nil {
		t.Fatalf("trace a replay: %v\n%s", engineTrace.err, engineTrace.out)
	}
	return engineTrace.path
}

// TestReplayTrace: the trace of a replay is summarised, its stages named
// (exit 0).
func TestReplayTrace(t *testing.T) {
	code, stdout, stderr := tracestat(t, replayTrace(t))
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, stderr)
	}
	for _, want := range []string{"processors busy on average", "stage engine.(*Engine).load", "stage engine.(*Engine).validate", "wake-ups (hand-offs)", "runtime phases:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
}

// TestBadInput: what is not a whole Go runtime trace is refused, exit 2,
// with a message that names the file, says what is wrong and what to do.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	whole, err := os.ReadFile(replayTrace(t))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"empty.trace": nil,
		"text.trace":  []byte("hello\n"),
		"cut.trace":   whole[:len(whole)/2],
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"no argument", nil, []string{"usage: tracestat TRACE"}},
		{"missing file", []string{filepath.Join(dir, "none.trace")}, []string{filepath.Join(dir, "none.trace"), "no such file"}},
		{"empty file", []string{filepath.Join(dir, "empty.trace")}, []string{filepath.Join(dir, "empty.trace"), "is not a Go runtime trace"}},
		{"not a trace", []string{filepath.Join(dir, "text.trace")}, []string{filepath.Join(dir, "text.trace"), "is not a Go runtime trace"}},
		{"cut short", []string{filepath.Join(dir, "cut.trace")}, []string{filepath.Join(dir, "cut.trace"), "cut short", "trace it again"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := tracestat(t, tc.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2\n%s", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// TestNoStages: a whole trace of a program that is not a replay (this
// test's own) has no stages to summarise: exit 2, naming the file and
// what to trace instead.
func TestNoStages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "self.trace")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := trace.Start(f); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { _ = strings.Repeat("x", 1<<16) })
	}
	wg.Wait()
	trace.Stop()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := tracestat(t, path)
	if code != 2 {
		t.Errorf("exit %d, want 2\n%s", code, stderr)
	}
	for _, w := range []string{path, "no goroutine of engine/ or mock/", "trace a replay"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
}

// TestTraceStartedMidRun: a trace started while a replay runs (after its
// stages began: runtime/trace.Start at the first session's dial) names the
// stages that existed before it by their stacks, and is summarised (exit
// 0), not refused for want of a goroutine of engine/ or mock/.
func TestTraceStartedMidRun(t *testing.T) {
	dir := t.TempDir()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	src, err := filepath.Abs("testdata/midrun/main.go")
	if err != nil {
		t.Fatal(err)
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(root, "cmd", "tracestat-midrun", "main.go"): src}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "overlay.json"), overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	midrun := filepath.Join(dir, "midrun")
	build := exec.Command("go", "build", "-overlay", filepath.Join(dir, "overlay.json"), "-o", midrun, "./cmd/tracestat-midrun")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the mid-run tracer: %v\n%s", err, out)
	}
	path := filepath.Join(dir, "midrun.trace")
	if out, err := exec.Command(midrun, filepath.Join(root, "examples", "quickstart.jsonl"), path).CombinedOutput(); err != nil {
		t.Fatalf("replay and trace: %v\n%s", err, out)
	}
	code, stdout, stderr := tracestat(t, path)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, stderr)
	}
	for _, want := range []string{"stage engine.(*Engine).validate", "stage engine/session.(*Actor).Run"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
}
