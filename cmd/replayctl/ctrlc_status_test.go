//go:build unix

package main

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCtrlCStatusAgreesWithHelp: replayctl --help says which commands
// exit 130 at Ctrl-C and which do not, and they do as it says: the
// servers (serve over stdio and --listen, record --listen) end normally
// at a signal, exit 0; run --ui-hold, whose replay is over when the page
// is held, exits with the replay's verdict (1 here: a threshold failed).
func TestCtrlCStatusAgreesWithHelp(t *testing.T) {
	help := replayctl(t, "--help").stdout
	for _, w := range []string{"serve and record --listen", "--ui-hold"} {
		if !strings.Contains(help, w) {
			t.Errorf("replayctl --help does not say how %q ends at Ctrl-C:\n%s", w, help)
		}
	}

	t.Run("serve --listen", func(t *testing.T) {
		p := startServe(t, handshakeTape(t))
		if code, stderr := p.signalAndWait(t, syscall.SIGINT); code != 0 {
			t.Errorf("exit %d, want 0\n%s", code, clip(stderr, 2000))
		}
	})
	t.Run("record --listen", func(t *testing.T) {
		p := startCmd(t, exec.Command(binary, "record", "-o", filepath.Join(t.TempDir(), "r.jsonl"), "--listen", "127.0.0.1:0", "--upstream", fakeUpstream(t, bigAnswer)))
		if code, stderr := p.signalAndWait(t, syscall.SIGINT); code != 0 {
			t.Errorf("exit %d, want 0\n%s", code, clip(stderr, 2000))
		}
	})
	t.Run("serve over stdio", func(t *testing.T) {
		cmd := exec.Command(binary, "serve", "examples/quickstart.jsonl")
		cmd.Dir = "../.."
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		if _, err := in.Write([]byte(initializeLine + "\n")); err != nil {
			t.Fatal(err)
		}
		answered := make(chan bool, 1)
		go func() { answered <- bufio.NewScanner(out).Scan() }() // serving: its signal handling is set up
		select {
		case ok := <-answered:
			if !ok {
				t.Fatal("serve gave no answer to initialize")
			}
		case <-time.After(time.Minute):
			t.Fatal("serve gave no answer to initialize within a minute")
		}
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		waited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(waited) }()
		select {
		case <-waited:
		case <-time.After(stopBound):
			t.Fatalf("serve still running %s after SIGINT", stopBound)
		}
		if code := cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("exit %d, want 0", code)
		}
	})
	t.Run("run --ui-hold", func(t *testing.T) {
		code, _, stderr := interruptWhen(t, func(line string) bool { return strings.Contains(line, "the replay is over") },
			"run", "examples/quickstart.jsonl", "--speed", "fast", "--threshold", "p99<0ms", "--ui", "127.0.0.1:0", "--ui-hold")
		if code != 1 {
			t.Errorf("exit %d, want 1 (the replay's verdict)\n%s", code, clip(stderr, 2000))
		}
	})
}
