package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testserver"
)

// TestRecordTapeMadeMeanwhile: a client that starts its stdio server
// twice starts two recorders with the same -o; both find no tape at the
// start, and the second to create it fails. Its error says the tape was
// made meanwhile and that each server process needs its own -o, in one
// "record:" prefix, not the raw "open …: file exists". The other
// recorder is stood in for by writing the tape once the server started
// (the wrapper touches a marker as it starts it), before the first
// message.
func TestRecordTapeMadeMeanwhile(t *testing.T) {
	dir := t.TempDir()
	tape, marker := filepath.Join(dir, "g.jsonl"), filepath.Join(dir, "started")
	c := startRecord(t, append([]string{"-o", tape, "--", "sh", "-c", `: > "$0"; exec "$@"`, marker}, testserver.GoSDK(t)...)...)
	pollUntil(t, time.Minute, func() bool { return exists(t, marker) }, "the server to start")
	if err := os.WriteFile(tape, []byte("the other recorder's tape\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(c.in, initializeLine+"\n"); err != nil {
		t.Fatal(err)
	}
	c.in.Close()
	_, _ = io.Copy(io.Discard, c.out)
	_ = c.cmd.Wait()
	out := c.stderr.String()
	if code := c.cmd.ProcessState.ExitCode(); code != exitBadInput {
		t.Errorf("exit %d, want %d", code, exitBadInput)
	}
	for _, want := range []string{tape + " was created by another process while this one recorded", "each server process needs its own -o"} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"record: record:", "file exists", "recorded 1 message"} {
		if strings.Contains(out, bad) {
			t.Errorf("stderr has %q:\n%s", bad, out)
		}
	}
	if got, _ := os.ReadFile(tape); string(got) != "the other recorder's tape\n" {
		t.Errorf("the other recorder's tape was changed: %q", got)
	}
}
