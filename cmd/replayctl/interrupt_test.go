//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fedLines is how many message lines feedTape writes before it says the
// reader is at work: far more than a pipe holds, so the reader has read.
const fedLines = 3000

// feedTape starts a goroutine writing a tape that never ends into w: a
// header, then message lines, endlessly when endless, else fedLines and
// then nothing, w held open. The channel is closed once fedLines lines are
// written. The goroutine ends when a write fails (the reader is gone) or
// at the test's end.
func feedTape(t *testing.T, w *os.File, endless bool) <-chan struct{} {
	fed, stop, finished := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		if _, err := w.WriteString(`{"type":"header","format":"replayctl-tape","version":1}` + "\n"); err != nil {
			return
		}
		for seq := 0; ; seq++ {
			line := fmt.Sprintf(`{"type":"message","seq":%d,"t_us":%d,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":{}}}`+"\n", seq, seq*1000, seq)
			if _, err := w.WriteString(line); err != nil {
				return
			}
			if seq == fedLines {
				close(fed)
				if !endless {
					<-stop
					return
				}
			}
		}
	}()
	t.Cleanup(func() {
		close(stop)
		w.Close() // a write still waiting returns
		<-finished
	})
	return fed
}

// started is a replayctl process the test signals.
type started struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan error
}

// startReplayctl starts the binary with args from the repository root, the
// read end of a pipe as its file descriptor 3 (/dev/fd/3, as a shell's
// <(…) gives it), and returns it with the pipe's write end.
func startReplayctl(t *testing.T, args ...string) (*started, *os.File) {
	t.Helper()
	if _, err := os.Stat("/dev/fd/0"); err != nil {
		t.Skip("no /dev/fd here")
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &started{cmd: exec.Command(binary, args...), done: make(chan error, 1)}
	s.cmd.Dir = "../.."
	s.cmd.ExtraFiles = []*os.File{pr}
	s.cmd.Stdout, s.cmd.Stderr = &s.stdout, &s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pr.Close() // the process holds it now: a write fails once it is gone
	go func() { s.done <- s.cmd.Wait() }()
	t.Cleanup(func() {
		select {
		case <-s.done:
		default:
			_ = s.cmd.Process.Kill()
			<-s.done
		}
	})
	return s, pw
}

// wait waits for the process to end within limit and returns its exit
// status, or kills it and fails the test.
func (s *started) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case <-s.done:
		s.done <- nil // for the cleanup
		return s.cmd.ProcessState.ExitCode()
	case <-time.After(limit):
		_ = s.cmd.Process.Kill()
		s.done <- <-s.done // for the cleanup
		t.Fatalf("still running %s after the signal (killed); stderr:\n%s", limit, s.stderr.String())
		return -1
	}
}

// TestInterruptStopsInspectAndConvert: inspect and convert, busy reading a
// tape that never ends, stop within a bound on SIGINT or SIGTERM with exit
// 130 — whether input keeps coming or the read is waiting for more — and
// convert leaves no output and no temporary file.
func TestInterruptStopsInspectAndConvert(t *testing.T) {
	const bound = 3 * time.Second
	for _, command := range []string{"inspect", "convert"} {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			for _, endless := range []bool{true, false} {
				feed := "input waiting"
				if endless {
					feed = "input streaming"
				}
				t.Run(fmt.Sprintf("%s/%s/%s", command, sig, feed), func(t *testing.T) {
					dir := t.TempDir()
					out := filepath.Join(dir, "out.jsonl")
					args := []string{command, "/dev/fd/3"}
					if command == "convert" {
						args = append(args, out)
					}
					p, w := startReplayctl(t, args...)
					select {
					case <-feedTape(t, w, endless):
					case err := <-p.done:
						p.done <- err
						t.Fatalf("%s ended before it was signalled (%v):\n%s", command, err, p.stderr.String())
					case <-time.After(10 * time.Second):
						t.Fatalf("%s did not read its input", command)
					}
					start := time.Now()
					if err := p.cmd.Process.Signal(sig); err != nil {
						t.Fatal(err)
					}
					code := p.wait(t, bound)
					t.Logf("exit %d %s after %s", code, sig, time.Since(start))
					if code != exitInterrupted || !strings.Contains(p.stderr.String(), "replayctl: interrupted") {
						t.Errorf("got exit %d, stderr %q; want 130 and \"interrupted\"", code, p.stderr.String())
					}
					if command == "inspect" && !strings.Contains(p.stdout.String(), "tools/list") {
						t.Errorf("inspect printed nothing of what it read:\n%.300s", p.stdout.String())
					}
					if entries, _ := os.ReadDir(dir); len(entries) != 0 {
						t.Errorf("%d files left in the output folder (%s …), want none", len(entries), entries[0].Name())
					}
				})
			}
		}
	}
}

// TestKilledWritersLeftoversCleaned: a writer killed with kill -9 leaves
// its temporary file (here the files a dead process would have left:
// convert reads a pipe whole before it writes, so it cannot be caught
// mid-write reliably); once old, the next write of the same file removes
// them, a tape's and a report's.
func TestKilledWritersLeftoversCleaned(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	pid := dead.Process.Pid
	report := filepath.Join(dir, "r.json")
	left := []string{
		filepath.Join(dir, fmt.Sprintf(".out.jsonl.replayctl-tmp-%d-1", pid)),
		filepath.Join(dir, fmt.Sprintf(".r.json.replayctl-tmp-%d-12345", pid)),
	}
	for _, f := range left {
		if err := os.WriteFile(f, []byte(`{"type":"header"`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * time.Minute) // atomicfile.StaleAfter ago
	for _, f := range left {
		if err := os.Chtimes(f, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if res := replayctl(t, "convert", "examples/quickstart.jsonl", out); res.code != 0 {
		t.Fatalf("convert: exit %d\n%s", res.code, res.stderr)
	}
	if res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--report", report); res.code != 0 {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "out.jsonl r.json" {
		t.Errorf("folder holds %v, want only out.jsonl and r.json: the leftovers removed", names)
	}
}
