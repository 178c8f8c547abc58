package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestDebugSeekOntoBreakpointContinues: seek to a message that has a
// breakpoint, then continue, sends it, as continue from a stop at that
// breakpoint does: standing on a breakpoint is not hitting it again.
func TestDebugSeekOntoBreakpointContinues(t *testing.T) {
	tapePath, target, logPath := everythingTee(t)
	seqs := seqsOf(t, tapePath)
	call := seqs["tools/call"][0]
	script := fmt.Sprintf("break %d\nseek %d\ncontinue\nquit\n", call, call)
	res := replayctlIn(t, script, append([]string{"debug", tapePath}, target...)...)
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	cmds, sent := sections(res.stdout)
	i := slices.Index(cmds, "continue")
	if i < 0 {
		t.Fatalf("no continue read: %q\n%s", cmds, res.stdout)
	}
	if len(sent[i]) == 0 || sent[i][0] != fmt.Sprint(call) {
		t.Errorf("continue after seek %d sent %v, want seq %d first\n%s", call, sent[i], call, res.stdout)
	}
	if methods, _ := received(t, logPath); !slices.Contains(methods, "tools/call") {
		t.Errorf("server received %v, want the tools/call among them", methods)
	}
}

// TestDebugPipedInterruptSaysInterrupted: SIGINT to a piped debug
// session waiting for its next command ends it with exit 130 and a plain
// "interrupted", not Go's "context canceled".
func TestDebugPipedInterruptSaysInterrupted(t *testing.T) {
	tapePath, target, _ := everythingTee(t)
	cmd := exec.Command(binary, append([]string{"debug", tapePath}, target...)...)
	stdin, err := cmd.StdinPipe() // kept open: the session waits for a command
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	var out strings.Builder
	for sc.Scan() { // the handshake done, it waits for a command
		out.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "next: seq") {
			break
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
	}
	_ = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitInterrupted, out.String(), stderr.String())
	}
	if got := stderr.String(); !strings.Contains(got, "interrupted") || strings.Contains(got, "context canceled") {
		t.Errorf("stderr %q; want it to say interrupted, without \"context canceled\"", got)
	}
}
