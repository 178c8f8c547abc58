//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRecordListenUpstreamDownLeavesNoTape: record --listen with an
// upstream that cannot be reached warns that if it answers nothing no
// tape is written; stopped with no client having used it, it does as it
// said: no tape, exit 3, saying why; and the next record of the same
// tape starts without --force.
func TestRecordListenUpstreamDownLeavesNoTape(t *testing.T) {
	out := filepath.Join(t.TempDir(), "h2.jsonl")
	up := deadURL(t)
	p := startCmd(t, exec.Command(binary, "record", "-o", out, "--listen", "127.0.0.1:0", "--upstream", up))
	code, stderr := p.signalAndWait(t, syscall.SIGINT)
	if !strings.Contains(stderr, "if it answers nothing no tape is written") {
		t.Fatalf("no warning that the upstream is down:\n%s", clip(stderr, 2000))
	}
	if code != exitTarget || !strings.Contains(stderr, "no tape was written") {
		t.Errorf("exit %d, want %d and a line saying no tape was written:\n%s", code, exitTarget, clip(stderr, 2000))
	}
	if b, err := os.ReadFile(out); err == nil {
		t.Fatalf("a tape was written though the upstream answered nothing:\n%s", b)
	}
	again := startCmd(t, exec.Command(binary, "record", "-o", out, "--listen", "127.0.0.1:0", "--upstream", up))
	if code, stderr := again.signalAndWait(t, syscall.SIGINT); strings.Contains(stderr, "--force") {
		t.Errorf("the next record was refused (exit %d):\n%s", code, clip(stderr, 2000))
	}
}

// TestRecordListenUpstreamDownTwoSignals: GNU timeout sends SIGTERM to
// the process and then to its group, two signals at once. With an
// upstream that answered nothing they do what one does: no tape, and no
// line saying a tape keeps anything. Two signals race the stop (the
// second may come before or after the first stop is done), so the test
// sends them several times; on the code before the fix about one in
// three left a tape of a header and an end line of 0 messages.
func TestRecordListenUpstreamDownTwoSignals(t *testing.T) {
	up := deadURL(t)
	for i := range 8 {
		out := filepath.Join(t.TempDir(), "rr.jsonl")
		p := startCmd(t, exec.Command(binary, "record", "-o", out, "--listen", "127.0.0.1:0", "--upstream", up))
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		_, stderr := p.signalAndWait(t, syscall.SIGTERM)
		if b, err := os.ReadFile(out); err == nil {
			t.Fatalf("try %d: a tape was written though the upstream answered nothing:\n%s\nstderr:\n%s", i, b, clip(stderr, 2000))
		}
		if strings.Contains(stderr, "keeps what was recorded") || !strings.Contains(stderr, "no tape was written") {
			t.Fatalf("try %d: stderr does not say that no tape was written:\n%s", i, clip(stderr, 2000))
		}
	}
}
