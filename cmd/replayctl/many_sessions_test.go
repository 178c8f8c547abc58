//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCtrlCEndsARunOfManySessions: a run of 20,000 virtual sessions,
// interrupted once 2,000 of them have connected, ends (exit 130) and
// writes its report, which says it was interrupted. Ending thousands of
// sessions at once used to cost O(sessions²) (engine's
// TestRegistryRemoveWorkFlat counts it); the bound here is generous, for
// a loaded machine.
func TestCtrlCEndsARunOfManySessions(t *testing.T) {
	reportPath := filepath.Join(t.TempDir(), "report.json")
	cmd := exec.Command(binary, "run", "examples/quickstart.jsonl", "--speed", "fast", "-q",
		"--sessions", "20000", "--report", reportPath, "--out", "json=-")
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })

	const connected = 2000
	begun := make(chan bool, 1)
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		n := 0
		for sc.Scan() {
			if strings.Contains(sc.Text(), `"type":"dialled"`) {
				if n++; n == connected {
					begun <- true
				}
			}
		}
		_, _ = io.Copy(io.Discard, out)
		_ = cmd.Wait()
		if n < connected {
			begun <- false
		}
	}()
	select {
	case ok := <-begun:
		if !ok {
			t.Fatalf("the run ended before %d sessions connected; stderr:\n%s", connected, clip(stderr.String(), 2000))
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("%d sessions did not connect within 2 minutes", connected)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(stopBound):
		t.Fatalf("run still going %s after SIGINT; stderr:\n%s", stopBound, clip(stderr.String(), 2000))
	}
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, exitInterrupted, clip(stderr.String(), 2000))
	}
	b, err := os.ReadFile(reportPath)
	if err != nil {
		t.Fatalf("no report after Ctrl-C: %v", err)
	}
	var rep struct {
		Summary struct {
			Stopped  string `json:"stopped"`
			Sessions int    `json:"sessions"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("report: %v", err)
	}
	if rep.Summary.Stopped != "interrupted" || rep.Summary.Sessions < connected {
		t.Errorf("report says stopped %q, %d sessions; want interrupted, at least %d", rep.Summary.Stopped, rep.Summary.Sessions, connected)
	}
}
