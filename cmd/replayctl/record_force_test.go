//go:build unix

package main

import (
	"bufio"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// oldTape is a recording a record --force must not lose when the new one
// has nothing to keep.
const oldTape = `{"type":"header","format":"replayctl-tape","version":1,"transport":"stdio","protocol_version":"2025-06-18"}` + "\n" +
	`{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"old","version":"0"}}}}` + "\n" +
	`{"type":"message","seq":1,"t_us":10,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"old","version":"0"}}}}` + "\n"

// writeOldTape writes oldTape into a folder of its own and returns its path.
func writeOldTape(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "old.jsonl")
	if err := os.WriteFile(path, []byte(oldTape), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkOldTape fails t unless path still holds oldTape, with no new
// recording left beside it.
func checkOldTape(t *testing.T, path, stderr string) {
	t.Helper()
	if got, err := os.ReadFile(path); err != nil || string(got) != oldTape {
		t.Errorf("the old tape is now %q (%v); want it as it was\nstderr:\n%s", clip(string(got), 300), err, clip(stderr, 2000))
	}
	if names := besideTape(path); len(names) > 0 {
		t.Errorf("the folder holds %q beside the tape; want nothing", names)
	}
}

// besideTape lists the files in path's folder other than path and the
// lock record --force takes (TAPE.journal.lock, which stays).
func besideTape(path string) []string {
	names, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*"))
	var others []string
	for _, n := range names {
		if n != path && n != path+".journal.lock" {
			others = append(others, filepath.Base(n))
		}
	}
	return others
}

// TestRecordForceKeepsOldTapeWhenNothingRecorded: record --force over an
// existing tape, with a server that answers nothing (or exits at once),
// leaves the old tape as it was and nothing beside it: exit 3, as
// without --force, and the user's old recording is not lost. Over stdio
// (the client closes its input; or Ctrl-C) and over HTTP (--listen, an
// upstream that cannot be reached, one client message, Ctrl-C).
func TestRecordForceKeepsOldTapeWhenNothingRecorded(t *testing.T) {
	t.Run("stdio server silent", func(t *testing.T) {
		path := writeOldTape(t)
		res := replayctlIn(t, initializeLine+"\n", "record", "-o", path, "--force", "--", "sh", "-c", "cat >/dev/null")
		if res.code != exitTarget || !strings.Contains(res.stderr, "answered nothing") {
			t.Errorf("exit %d, stderr %q; want 3 saying the server answered nothing", res.code, res.stderr)
		}
		checkOldTape(t, path, res.stderr)
	})
	t.Run("stdio server exits at once", func(t *testing.T) {
		path := writeOldTape(t)
		res := replayctlIn(t, initializeLine+"\n", "record", "-o", path, "--force", "--", "false")
		if res.code != exitTarget {
			t.Errorf("exit %d, stderr %q; want 3", res.code, res.stderr)
		}
		// The summary, too, says the old tape is there as it was.
		for _, l := range strings.Split(res.stderr, "\n") {
			if strings.HasPrefix(l, "recorded ") && !strings.Contains(l, path+" is as it was") {
				t.Errorf("summary %q, want it to say %s is as it was", l, path)
			}
		}
		checkOldTape(t, path, res.stderr)
	})
	t.Run("stdio interrupted", func(t *testing.T) {
		path := writeOldTape(t)
		// The server says "up" on its stderr (record's) once it runs:
		// record handles signals by then.
		cmd := exec.Command(binary, "record", "-o", path, "--force", "--", "sh", "-c", "echo up >&2; cat >/dev/null")
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		errPipe, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill() })
		if _, err := in.Write([]byte(initializeLine + "\n")); err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			stderr.WriteString(sc.Text() + "\n")
			if sc.Text() == "up" {
				// Ctrl-C ends a recording with nothing of the server's.
				if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
					t.Fatal(err)
				}
			}
		}
		_ = cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
			t.Errorf("exit %d, want %d; stderr:\n%s", code, exitInterrupted, stderr.String())
		}
		// Its summary says why no new tape was kept: not a write that failed.
		if !strings.Contains(stderr.String(), "nothing of the server's was recorded") || strings.Contains(stderr.String(), "could not be written") {
			t.Errorf("stderr does not say nothing of the server's was recorded, or says the tape could not be written:\n%s", stderr.String())
		}
		checkOldTape(t, path, stderr.String())
	})
	t.Run("listen upstream down", func(t *testing.T) {
		path := writeOldTape(t)
		p := startCmd(t, exec.Command(binary, "record", "-o", path, "--force", "--listen", "127.0.0.1:0", "--upstream", deadURL(t)))
		if resp, err := http.Post(p.url, "application/json", strings.NewReader(initializeLine)); err == nil {
			resp.Body.Close()
		}
		code, stderr := p.signalAndWait(t, syscall.SIGINT)
		if code != exitTarget || !strings.Contains(stderr, "no tape was written") {
			t.Errorf("exit %d, want %d saying no tape was written:\n%s", code, exitTarget, clip(stderr, 2000))
		}
		checkOldTape(t, path, stderr)
	})
}

// TestRecordForceReplacesWhenRecorded: record --force with a server that
// answers replaces the old tape with the new recording, and leaves
// nothing beside it.
func TestRecordForceReplacesWhenRecorded(t *testing.T) {
	path := writeOldTape(t)
	answer := `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"new","version":"0"}}}`
	res := replayctlIn(t, initializeLine+"\n", "record", "-o", path, "--force", "--", "sh", "-c", "read l; echo '"+answer+"'")
	if res.code != 0 {
		t.Fatalf("exit %d, stderr %q; want 0", res.code, res.stderr)
	}
	got, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(got), `"name":"new"`) || strings.Contains(string(got), `"name":"old"`) {
		t.Errorf("the tape is %q (%v); want the new recording only", clip(string(got), 600), err)
	}
	if names := besideTape(path); len(names) > 0 {
		t.Errorf("the folder holds %q beside the tape; want nothing", names)
	}
}
