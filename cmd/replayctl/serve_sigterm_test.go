//go:build unix

package main

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// The servers, serve and record --listen, end at SIGTERM as at Ctrl-C: it
// is their normal end (what they served or recorded is whole), exit 0;
// serve --strict makes it 1 after misses. (A command that was doing a job,
// run or record over stdio, exits 130.)
func TestServersExitZeroAtSIGTERM(t *testing.T) {
	p := startServe(t, handshakeTape(t))
	if code, stderr := p.stop(t); code != 0 {
		t.Errorf("serve at SIGTERM: exit %d, want 0; stderr:\n%s", code, clip(stderr, 3000))
	}

	upstream := fakeUpstream(t, bigAnswer)
	rec := startCmd(t, exec.Command(binary, "record", "-o", filepath.Join(t.TempDir(), "rec.jsonl"), "--listen", "127.0.0.1:0", "--upstream", upstream))
	if code, stderr := rec.stop(t); code != 0 {
		t.Errorf("record --listen at SIGTERM: exit %d, want 0; stderr:\n%s", code, clip(stderr, 3000))
	}
}
