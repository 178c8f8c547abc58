package main

import (
	"fmt"
	"slices"
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
