package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/tape"
)

func TestProgressLine(t *testing.T) {
	for _, tc := range []struct {
		name  string
		s     progressState
		final bool
		want  string
	}{
		{"half way", progressState{done: 9, total: 18, p99: 1200 * time.Microsecond, elapsed: time.Second}, false,
			"running [==========>         ]  50%  9/18 msgs  9/s  p99 1.2ms  0 failed  0 errors  1.0s, 1.0s left"},
		{"total unknown", progressState{done: 40, failed: 2, errs: 1, p99: 850 * time.Microsecond, elapsed: 2 * time.Second}, false,
			"running 40 msgs  20/s  p99 850µs  2 failed  1 errors  2.0s"},
		{"nothing yet", progressState{total: 3600, elapsed: 200 * time.Millisecond}, false,
			"running [>                   ]   0%  0/3600 msgs  0/s  p99 0µs  0 failed  0 errors  0.2s"},
		{"connecting", progressState{total: 720000, sessions: 40000, connected: 12000, elapsed: 3 * time.Second}, false,
			"running [>                   ]   0%  0/720000 msgs  0/s  p99 0µs  0 failed  0 errors  3.0s  12000/40000 sessions connected"},
		{"all connected", progressState{done: 9, total: 18, sessions: 1, connected: 1, p99: 1200 * time.Microsecond, elapsed: time.Second}, false,
			"running [==========>         ]  50%  9/18 msgs  9/s  p99 1.2ms  0 failed  0 errors  1.0s, 1.0s left"},
		{"final", progressState{done: 3600, total: 3600, p99: 20 * time.Microsecond, elapsed: 90 * time.Second}, true,
			"done    [====================] 100%  3600/3600 msgs  40/s  p99 20µs  0 failed  0 errors  1m30s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := progressLine(tc.s, tc.final); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestLatencyBuckets(t *testing.T) {
	prev := -1
	for v := uint64(0); v < 1<<20; v = v*9/8 + 1 {
		i := latencyBucket(v)
		if i < prev {
			t.Fatalf("bucket of %d is %d, below the bucket %d of a smaller value", v, i, prev)
		}
		if f := bucketFloor(i); f > v || v-f > v/8 {
			t.Errorf("bucket %d of %dµs has floor %d: want within 12.5%% below", i, v, f)
		}
		prev = i
	}
}

func TestProgressCounts(t *testing.T) {
	var p progress
	t0 := time.Now()
	for i := range 100 {
		p.observe(report.Result{Dir: report.DirC2S, Kind: report.KindRequest, Verdict: report.Passed,
			Sent: t0, Answered: t0.Add(time.Duration(i+1) * time.Millisecond)})
	}
	p.observe(report.Result{Dir: report.DirS2C, Verdict: report.Skipped})
	p.observe(report.Result{Dir: report.DirC2S, Kind: report.KindRequest, Verdict: report.Timeout, Sent: t0})
	p.observe(report.Result{Dir: report.DirC2S, Kind: report.KindRequest, Verdict: report.Failed, Sent: t0, Answered: t0})
	s := p.snapshot()
	if s.done != 100*2+1+1+2 || s.failed != 1 || s.errs != 1 {
		t.Errorf("done/failed/errors = %d/%d/%d, want 204/1/1", s.done, s.failed, s.errs)
	}
	if s.p99 < 88*time.Millisecond || s.p99 > 100*time.Millisecond {
		t.Errorf("p99 = %v, want about 99ms (within a bucket)", s.p99)
	}
	p.stop(nil) // never started: nothing to do, no panic
}

// ptyRun runs the binary with its stdin, stderr and (unless stdout is
// given) stdout on a pseudo-terminal, and returns what the terminal showed
// and its exit status.
func ptyRun(t *testing.T, stdout io.Writer, args ...string) (string, int) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	cmd := exec.Command(binary, args...)
	cmd.Dir = "../.."
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	if stdout != nil {
		cmd.Stdout = stdout
	}
	if err := cmd.Start(); err != nil {
		tty.Close()
		t.Fatal(err)
	}
	tty.Close() // the child holds it now: reads end (EIO) when it exits
	var screen bytes.Buffer
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		io.Copy(&screen, ptmx) // ends with an error (EIO) when the child is gone
	}()
	err = cmd.Wait()
	<-copied
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return screen.String(), code
}

func TestProgressOnATerminal(t *testing.T) {
	if _, err := os.Stat("/dev/ptmx"); err != nil {
		t.Skip("no pseudo-terminals here")
	}
	t.Run("drawn, final line stays", func(t *testing.T) {
		t.Parallel()
		screen, code := ptyRun(t, nil, "run", "examples/quickstart.jsonl") // realtime: about 1.8s
		if code != 0 {
			t.Fatalf("exit %d, want 0:\n%s", code, screen)
		}
		if n := strings.Count(screen, "\rrunning "); n < 4 {
			t.Errorf("got %d progress updates, want several (every 200ms over ~1.8s):\n%q", n, screen)
		}
		final := "\rdone    [====================] 100%  18/18 msgs"
		i := strings.Index(screen, final)
		if i < 0 {
			t.Fatalf("no final line %q:\n%q", final, screen)
		}
		end := strings.Index(screen[i:], "\n")
		summary := strings.Index(screen, "Replay of")
		if end < 0 || summary < i+end {
			t.Errorf("the final line does not end with a newline before the summary:\n%q", screen)
		}
		if strings.Contains(screen[i+1:], "\rrunning ") {
			t.Errorf("the line was redrawn after the final one:\n%q", screen)
		}
	})
	t.Run("quiet", func(t *testing.T) {
		t.Parallel()
		screen, code := ptyRun(t, nil, "run", "examples/quickstart.jsonl", "--speed", "fast", "--quiet")
		if code != 0 || !strings.Contains(screen, "Replay of") {
			t.Fatalf("exit %d, want 0 and the summary:\n%s", code, screen)
		}
		if strings.Contains(screen, "running ") || strings.Contains(screen, "done    ") {
			t.Errorf("--quiet drew a progress line:\n%q", screen)
		}
	})
	t.Run("stdout piped", func(t *testing.T) {
		t.Parallel()
		var out bytes.Buffer
		screen, code := ptyRun(t, &out, "run", "examples/quickstart.jsonl", "--speed", "10x")
		if code != 0 || !strings.Contains(out.String(), "Replay of") {
			t.Fatalf("exit %d, want 0 and the summary on stdout:\n%s%s", code, out.String(), screen)
		}
		if all := screen + out.String(); strings.Contains(all, "running ") || strings.Contains(all, "done    ") {
			t.Errorf("a progress line with stdout piped:\nterminal %q\nstdout %q", screen, out.String())
		}
	})
	t.Run("no terminal", func(t *testing.T) {
		t.Parallel()
		res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "10x")
		if res.code != 0 {
			t.Fatalf("exit %d, want 0:\n%s%s", res.code, res.stdout, res.stderr)
		}
		if all := res.stdout + res.stderr; strings.Contains(all, "running ") || strings.Contains(all, "\r") {
			t.Errorf("a progress line without a terminal:\nstdout %q\nstderr %q", res.stdout, res.stderr)
		}
	})
}

func TestRunSteppedPrintsEachMessage(t *testing.T) {
	res := replayctlIn(t, strings.Repeat("\n", 20), "run", "examples/quickstart.jsonl", "--speed", "stepped")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0:\n%s%s", res.code, res.stdout, res.stderr)
	}
	for _, want := range []string{
		"→ seq 0 initialize {",
		"→ seq 2 notifications/initialized  · sent, nothing to check",
		`→ seq 5 tools/call {"name":"echo","arguments":{"message":"hello, replay"}}  ✓ passed (`,
		"← seq 8 notifications/message  · skipped",
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	if n := strings.Count(res.stderr, "✓ passed"); n != 8 {
		t.Errorf("%d passed lines, want 8 (one per request):\n%s", n, res.stderr)
	}
}

// An interrupted run's last progress line says it stopped, and where: not
// "done" (issue 23: "done … 39%" after Ctrl-C).
func TestProgressFinalLineStopped(t *testing.T) {
	for _, tc := range []struct {
		name string
		stop report.Stop
		want string // the start of the final line
		tail string // its end
	}{
		{"interrupted", report.Stop{Kind: report.StopInterrupted, Why: "interrupted"},
			"stopped [=======>            ]  39%  7/18 msgs", "(interrupted)"},
		{"target failed", report.Stop{Kind: report.StopTarget, Why: "the target failed"},
			"stopped [=======>            ]  39%  7/18 msgs", "(the target failed)"},
		{"to the end", report.Stop{},
			"done    [=======>            ]  39%  7/18 msgs", "errors  "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w bytes.Buffer
			var p progress
			p.start(t.Context(), &w, tape.Bytes("empty.jsonl", nil), 1)
			rep := &report.Report{Summary: report.Summary{Sent: 4, Received: 3, TotalMessages: 18, Sessions: 1}}
			rep.Conclude(tc.stop, nil)
			p.stop(rep)
			out := w.String()
			final := out[strings.LastIndex(out, "\r")+1:]
			final = strings.TrimSuffix(strings.TrimSuffix(final, "\n"), "\x1b[K")
			if !strings.HasPrefix(final, tc.want) {
				t.Errorf("final line %q, want it to begin %q", final, tc.want)
			}
			if !strings.Contains(final, tc.tail) {
				t.Errorf("final line %q, want it to hold %q", final, tc.tail)
			}
		})
	}
}

// The progress line reads the replay's event stream as a live viewer: the
// judged events' results, nothing else.
func TestProgressReadsTheStream(t *testing.T) {
	var p progress
	c := p.consumer()
	if !c.Live {
		t.Fatal("the progress line's consumer is lossless: want live (it must never slow the replay)")
	}
	s := event.New(time.Now(), []event.Consumer{c})
	t0 := time.Now()
	for i := range 100 {
		r := report.Result{Seq: int64(i), Dir: report.DirC2S, Kind: report.KindRequest, Verdict: report.Passed,
			Sent: t0, Answered: t0.Add(time.Millisecond)}
		s.Emit(t0, event.Event{Type: event.Sent, Seq: int64(i)})
		s.Emit(t0, event.Event{Type: event.Judged, Seq: int64(i), Result: &r})
	}
	failed := report.Result{Dir: report.DirC2S, Kind: report.KindRequest, Verdict: report.Failed, Sent: t0, Answered: t0}
	s.Emit(t0, event.Event{Type: event.Judged, Result: &failed})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats()[0]; st.Delivered != 101 || st.Lost != 0 {
		t.Errorf("delivered %d lost %d, want the 101 judged events and none lost", st.Delivered, st.Lost)
	}
	if got := p.snapshot(); got.done != 101*2 || got.failed != 1 {
		t.Errorf("done %d failed %d, want 202 and 1", got.done, got.failed)
	}
}

// The progress line counts the sessions that have connected (dialled
// events), which is what a run of many sessions does first.
func TestProgressCountsConnectedSessions(t *testing.T) {
	var p progress
	s := event.New(time.Now(), []event.Consumer{p.consumer()})
	t0 := time.Now()
	for i := range 30 {
		s.Emit(t0, event.Event{Type: event.Dialled, Session: "s1#" + strconv.Itoa(i+1)})
		s.Emit(t0, event.Event{Type: event.Sent, Session: "s1#" + strconv.Itoa(i+1)})
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := p.snapshot(); got.connected != 30 || got.done != 0 {
		t.Errorf("connected %d done %d, want 30 and 0", got.connected, got.done)
	}
}

// Ctrl-C during a run on a terminal: the last progress line says the
// replay stopped, and why, not "done" (issue 23).
func TestProgressInterruptedOnATerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	cmd := exec.Command(binary, "run", "examples/quickstart.jsonl", "--speed", "0.1x") // about 18s
	cmd.Dir = "../.."
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	if err := cmd.Start(); err != nil {
		tty.Close()
		t.Fatal(err)
	}
	tty.Close()
	var (
		mu     sync.Mutex
		screen bytes.Buffer
	)
	drawn := make(chan struct{}) // the line was drawn with a message done
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		buf := make([]byte, 4096)
		said := false
		for {
			n, err := ptmx.Read(buf)
			mu.Lock()
			screen.Write(buf[:n])
			// The line last drawn (after its \r), not the whole screen: a
			// first line drawn before any message was done stays on it.
			last := screen.String()
			last = last[strings.LastIndexByte(last, '\r')+1:]
			if !said && strings.Contains(last, "msgs") && !strings.Contains(last, " 0/18 msgs") {
				said = true
				close(drawn)
			}
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	select {
	case <-drawn:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("no progress line with a message done within 60s")
	}
	cmd.Process.Signal(os.Interrupt)
	err = cmd.Wait()
	<-copied
	out := screen.String()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want 130 (interrupted):\n%q", err, out)
	}
	i := strings.Index(out, "\rstopped [")
	if i < 0 {
		t.Fatalf("no final line beginning \"stopped\":\n%q", out)
	}
	line := out[i+1:]
	line = line[:strings.Index(line, "\n")]
	if !strings.Contains(line, "(interrupted)") || strings.Contains(line, "100%") {
		t.Errorf("final line %q, want it to say (interrupted), short of 100%%", line)
	}
	if strings.Contains(out, "\rdone ") {
		t.Errorf("the terminal shows a \"done\" line after Ctrl-C:\n%q", out)
	}
}
