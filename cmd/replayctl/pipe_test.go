//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fifoTape makes a FIFO that serves the quickstart tape once to the
// first reader that opens it, as `<(cat tape)` or `mkfifo` would.
func fifoTape(t *testing.T) string {
	t.Helper()
	body, err := os.ReadFile("../../" + quickTape)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tape.fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		// A writer still waiting for a reader (the test failed before
		// replayctl opened the FIFO) is let go by opening it here.
		if f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			defer f.Close()
		}
		wg.Wait()
	})
	wg.Go(func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		f.Write(body) // fails only if the reader gave up: the test says so
	})
	return path
}

// runBounded runs the built binary from the repository root, killed after
// limit, with stdin.
func runBounded(t *testing.T, limit time.Duration, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = "../.."
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("replayctl %v: still running after %s\nstdout:\n%s\nstderr:\n%s", args, limit, out.String(), errb.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return result{code, out.String(), errb.String()}
}

// TestTapeFromAPipe: a tape given as a FIFO or a pipe (/dev/stdin, as
// `<(cat tape)` gives /dev/fd/63) is read once, into memory, and every
// command that reads a tape works with it. They failed with "the file is
// empty" (the mock opened the tape a second time) or hung on the second
// open of a FIFO.
func TestTapeFromAPipe(t *testing.T) {
	body, err := os.ReadFile("../../" + quickTape)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out.jsonl")
	for _, tt := range []struct {
		name  string
		args  func(fifo string) []string
		stdin string
		want  string
	}{
		{"run FIFO", func(f string) []string { return []string{"run", f, "--speed", "fast"} }, "", "8 passed, 0 failed"},
		{"run /dev/stdin", func(string) []string { return []string{"run", "/dev/stdin", "--speed", "fast"} }, string(body), "8 passed, 0 failed"},
		{"run --mock-tape FIFO", func(f string) []string { return []string{"run", quickTape, "--speed", "fast", "--mock-tape", f} }, "", "8 passed, 0 failed"},
		{"debug FIFO", func(f string) []string { return []string{"debug", f} }, "step\nseek 3\nstep\n", "summary: 3 checked, 3 passed, 0 failed"},
		{"convert FIFO", func(f string) []string { return []string{"convert", f, out} }, "", "wrote " + out},
		{"inspect FIFO", func(f string) []string { return []string{"inspect", f} }, "", "# 18 messages"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := runBounded(t, 30*time.Second, tt.stdin, tt.args(fifoTape(t))...)
			if res.code != 0 || !strings.Contains(res.stdout, tt.want) {
				t.Errorf("exit %d, want 0 and %q\nstdout:\n%s\nstderr:\n%s", res.code, tt.want, res.stdout, res.stderr)
			}
		})
	}
	if got, err := os.ReadFile(out); err != nil || !bytes.Contains(got, []byte(`"method":"tools/list"`)) {
		t.Errorf("convert from a FIFO wrote %d bytes (%v), want the tape", len(got), err)
	}
}

// A pipe whose writer never finishes is waited for, but SIGTERM ends the
// wait (exit 130): the replay reads a pipe whole before it starts.
func TestTapeFromAPipeThatNeverEnds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tape.fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// A writer that holds the FIFO open and writes nothing (O_RDWR does
	// not wait for a reader).
	w, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := os.ReadDir("/proc/self/fd"); err != nil {
		t.Skipf("needs /proc to see when replayctl has opened the FIFO: %v", err)
	}
	p := startProc(t, binary, "run", path, "--speed", "fast")
	waitOpened(t, p, path)
	p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.wait(5 * time.Second); code != exitInterrupted {
		t.Errorf("exit %d, want %d\nstderr:\n%s", code, exitInterrupted, p.stderr)
	}
	if !strings.Contains(p.stderr.String(), "interrupted while reading it") {
		t.Errorf("stderr does not say what was interrupted:\n%s", p.stderr)
	}
}

// waitOpened waits until the process p has the file at path open (its
// signal handlers are set by then), or fails.
func waitOpened(t *testing.T, p *proc, path string) {
	t.Helper()
	fds := fmt.Sprintf("/proc/%d/fd", p.cmd.Process.Pid)
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // as /proc shows it
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		entries, _ := os.ReadDir(fds)
		for _, e := range entries {
			if target, err := os.Readlink(filepath.Join(fds, e.Name())); err == nil && target == path {
				return
			}
		}
		select {
		case <-p.done:
			t.Fatalf("exited (%d) before opening %s\nstderr:\n%s", p.code, path, p.stderr)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("did not open %s within 10s\nstderr:\n%s", path, p.stderr)
		}
	}
}
