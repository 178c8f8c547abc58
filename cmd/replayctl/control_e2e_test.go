package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startDebug starts `replayctl debug TAPE --control unix:SOCK ARGS...` and
// returns once the socket is there.
func startDebug(t *testing.T, sock string, args ...string) *proc {
	t.Helper()
	p := startProc(t, append([]string{binary, "debug", quickTape, "--control", "unix:" + sock}, args...)...)
	p.waitOutput(p.stderr, "control socket: ", 30*time.Second)
	return p
}

// ctlClient speaks the control protocol on one connection.
type ctlClient struct {
	t      *testing.T
	conn   net.Conn
	r      *bufio.Reader
	events int // status events read while waiting for replies
}

type ctlReply struct {
	ID      json.RawMessage `json:"id"`
	OK      bool            `json:"ok"`
	Event   string          `json:"event"`
	Error   string          `json:"error"`
	Results []struct {
		Seq     int64  `json:"seq"`
		Verdict string `json:"verdict"`
	} `json:"results"`
	Status struct {
		State string `json:"state"`
		Seq   int64  `json:"seq"`
	} `json:"status"`
}

func dialCtl(t *testing.T, sock string) *ctlClient {
	t.Helper()
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatalf("connect to the control socket: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(60 * time.Second))
	return &ctlClient{t: t, conn: conn, r: bufio.NewReader(conn)}
}

// do sends one command line and returns its reply, skipping events.
func (c *ctlClient) do(id int, line string) ctlReply {
	c.t.Helper()
	if _, err := fmt.Fprintln(c.conn, line); err != nil {
		c.t.Fatal(err)
	}
	for {
		b, err := c.r.ReadBytes('\n')
		if err != nil {
			c.t.Fatalf("socket closed before reply %d: %v", id, err)
		}
		var r ctlReply
		if err := json.Unmarshal(b, &r); err != nil {
			c.t.Fatalf("reply is not JSON: %q", b)
		}
		if r.Event != "" {
			c.events++
			continue
		}
		if string(r.ID) != fmt.Sprint(id) {
			c.t.Fatalf("reply %q, want id %d", b, id)
		}
		return r
	}
}

// TestDebugSeekPastTheEnd: a seek past the last seq is an error that says
// where the tape ends, and the step after it sends the next message (it
// used to wait for ever, even after the end of input).
func TestDebugSeekPastTheEnd(t *testing.T) {
	p := startProc(t, binary, "debug", quickTape)
	io.WriteString(p.stdin, "seek 99\nstep\n")
	p.stdin.Close()
	if code := p.wait(30 * time.Second); code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, p.stdout, p.stderr)
	}
	out := p.stdout.String()
	for _, want := range []string{
		"error: seek 99: tape " + quickTape + " ends at seq 17 (seq 99 is past it)",
		"→ seq 3 tools/list",
		"summary: 2 checked, 2 passed, 0 failed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
}

// The same over the control socket: the seek is refused, the replay is
// not left running, and a step sends the next message.
func TestDebugControlSeekPastTheEnd(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "c.sock")
	p := startDebug(t, sock)
	c := dialCtl(t, sock)
	if r := c.do(1, `{"id":1,"cmd":"wait"}`); !r.OK || r.Status.State != "paused" || r.Status.Seq != 3 {
		t.Fatalf("wait: %+v, want paused before seq 3", r)
	}
	if r := c.do(2, `{"id":2,"cmd":"seek","seq":99}`); r.OK || !strings.Contains(r.Error, "ends at seq 17") {
		t.Fatalf("seek 99: %+v, want an error saying the tape ends at seq 17", r)
	}
	if r := c.do(3, `{"id":3,"cmd":"status"}`); !r.OK || r.Status.State != "paused" {
		t.Fatalf("status after seek 99: %+v, want paused", r)
	}
	r := c.do(4, `{"id":4,"cmd":"step"}`)
	if !r.OK || len(r.Results) != 1 || r.Results[0].Seq != 3 || r.Results[0].Verdict != "passed" {
		t.Fatalf("step after seek 99: %+v, want seq 3 passed", r)
	}
	if r := c.do(5, `{"id":5,"cmd":"wait"}`); !r.OK || r.Status.State != "paused" || r.Status.Seq != 4 {
		t.Fatalf("wait after the step: %+v, want paused after seq 3", r)
	}
	p.stdin.Close()
	if code := p.wait(30 * time.Second); code != 0 {
		t.Errorf("exit %d, want 0\nstderr:\n%s", code, p.stderr)
	}
}

// stop over the control socket ends the session, with the input still
// open, and the exit status is the replay's own: 0 when every answer
// judged passed, 1 when one failed (it was 2).
func TestDebugControlStopExitStatus(t *testing.T) {
	orig, err := os.ReadFile("../../" + quickTape)
	if err != nil {
		t.Fatal(err)
	}
	changed := filepath.Join(t.TempDir(), "changed.jsonl")
	if err := os.WriteFile(changed, bytes.ReplaceAll(orig, []byte("Echoes back the input"), []byte("Echoes back the INPUT")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		args    []string
		verdict string
		code    int
		summary string
	}{
		{"all passed", nil, "passed", 0, "summary: 2 checked, 2 passed, 0 failed"},
		{"one failed", []string{"--mock-tape", changed}, "failed", 1, "summary: 2 checked, 1 passed, 1 failed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sock := filepath.Join(t.TempDir(), "c.sock")
			p := startDebug(t, sock, tt.args...)
			c := dialCtl(t, sock)
			if r := c.do(1, `{"id":1,"cmd":"wait"}`); !r.OK {
				t.Fatalf("wait: %+v", r)
			}
			if r := c.do(2, `{"id":2,"cmd":"step"}`); !r.OK || len(r.Results) != 1 || r.Results[0].Verdict != tt.verdict {
				t.Fatalf("step: %+v, want one result %s", r, tt.verdict)
			}
			if r := c.do(3, `{"id":3,"cmd":"stop"}`); !r.OK {
				t.Fatalf("stop: %+v", r)
			}
			if code := p.wait(20 * time.Second); code != tt.code {
				t.Errorf("exit %d after stop, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, p.stdout, p.stderr)
			}
			if !strings.Contains(p.stdout.String(), tt.summary) {
				t.Errorf("stdout lacks %q:\n%s", tt.summary, p.stdout)
			}
			if _, err := os.Lstat(sock); !os.IsNotExist(err) {
				t.Errorf("the socket file is left after the session: %v", err)
			}
		})
	}
}

// flood writes status commands on conn and never reads the replies, until
// replayctl stops reading too: its writer to conn is then blocked.
func floodCtl(t *testing.T, conn net.Conn) {
	t.Helper()
	line := []byte(`{"id":1,"cmd":"status"}` + "\n")
	for i := 0; ; i++ {
		conn.SetWriteDeadline(time.Now().Add(300 * time.Millisecond))
		if _, err := conn.Write(line); err != nil {
			if i < 100 {
				t.Fatalf("flood: write %d: %v", i, err)
			}
			return
		}
	}
}

// A client that sends commands and never reads holds nothing: another
// client is served, and after a stop the process ends within the write
// timeout (5s), or at once on SIGTERM (it used to live on, deaf to it).
func TestDebugControlClientThatNeverReads(t *testing.T) {
	stop := func(t *testing.T, sock string) {
		c := dialCtl(t, sock)
		if r := c.do(1, `{"id":1,"cmd":"status"}`); !r.OK {
			t.Fatalf("status on a second connection: %+v", r)
		}
		if r := c.do(2, `{"id":2,"cmd":"stop"}`); !r.OK {
			t.Fatalf("stop: %+v", r)
		}
	}
	for _, tt := range []struct {
		name  string
		end   func(t *testing.T, p *proc, sock string)
		code  int
		limit time.Duration
	}{
		// The write timeout bounds the blocked write; the margin covers
		// the process's end.
		{"stop from another client", func(t *testing.T, _ *proc, sock string) { stop(t, sock) }, 0, 15 * time.Second},
		{"stop, then SIGTERM", func(t *testing.T, p *proc, sock string) {
			stop(t, sock)
			p.cmd.Process.Signal(syscall.SIGTERM)
		}, exitInterrupted, 3 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sock := filepath.Join(t.TempDir(), "c.sock")
			p := startDebug(t, sock)
			p.waitOutput(p.stdout, "next: ", 30*time.Second) // the handshake is done
			deaf, err := net.Dial("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			defer deaf.Close()
			floodCtl(t, deaf)
			start := time.Now()
			tt.end(t, p, sock)
			if code := p.wait(tt.limit); code != tt.code {
				t.Errorf("exit %d, want %d\nstderr:\n%s", code, tt.code, p.stderr)
			}
			t.Logf("%s: ended after %s", tt.name, time.Since(start))
		})
	}
}

// The control socket is 0600 under any umask; one left by a replay killed
// with SIGKILL is replaced by the next; one a live replay listens on is
// refused with a message that says so, and the live one goes on.
func TestDebugControlSocketFile(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "c.sock")
	first := startProc(t, "sh", "-c", `umask 000; exec "$0" "$@"`, binary, "debug", quickTape, "--control", "unix:"+sock)
	first.waitOutput(first.stderr, "control socket: ", 30*time.Second)
	fi, err := os.Lstat(sock)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket under umask 000: mode %v, want a socket of 0600", fi.Mode())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the socket's folder holds %v, want only the socket", entries)
	}

	first.cmd.Process.Kill() // SIGKILL: the socket file stays
	first.wait(10 * time.Second)
	if _, err := os.Lstat(sock); err != nil {
		t.Fatalf("after SIGKILL the socket file is gone (%v): nothing stale to test", err)
	}

	second := startDebug(t, sock)
	c := dialCtl(t, sock)
	if r := c.do(1, `{"id":1,"cmd":"wait"}`); !r.OK {
		t.Fatalf("over a stale socket: wait: %+v", r)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	third := exec.CommandContext(ctx, binary, "debug", quickTape, "--control", "unix:"+sock)
	third.Dir = "../.."
	out, err := third.CombinedOutput()
	if code := third.ProcessState.ExitCode(); code != exitBadInput || !strings.Contains(string(out), "another replay is listening on it") {
		t.Errorf("over a live socket: exit %d (%v), output %q; want exit 2 saying another replay listens", code, err, out)
	}
	if r := c.do(2, `{"id":2,"cmd":"status"}`); !r.OK || r.Status.State != "paused" {
		t.Errorf("the live replay after the refused one: %+v", r)
	}
	second.stdin.Close()
	if code := second.wait(30 * time.Second); code != 0 {
		t.Errorf("exit %d, want 0\nstderr:\n%s", code, second.stderr)
	}
}

// A control client that sends watch gets the replay's events as they
// happen; the judged one carries its result in the one wire shape: the
// same object as the step's reply.
func TestDebugControlWatch(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "c.sock")
	p := startDebug(t, sock)
	c := dialCtl(t, sock)
	if r := c.do(1, `{"id":1,"cmd":"wait"}`); !r.OK || r.Status.Seq != 3 {
		t.Fatalf("wait: %+v, want paused before seq 3", r)
	}
	if r := c.do(2, `{"id":2,"cmd":"watch"}`); !r.OK {
		t.Fatalf("watch: %+v", r)
	}
	fmt.Fprintln(c.conn, `{"id":3,"cmd":"step"}`)
	var stepResult, streamResult json.RawMessage
	var types []string
	for stepResult == nil || streamResult == nil {
		b, err := c.r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("socket closed (events %v): %v", types, err)
		}
		var line struct {
			ID      json.RawMessage   `json:"id"`
			Event   string            `json:"event"`
			Results []json.RawMessage `json:"results"`
			Stream  struct {
				Type string `json:"type"`
				Seq  int64  `json:"seq"`
			} `json:"stream"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(b, &line); err != nil {
			t.Fatalf("line is not JSON: %q", b)
		}
		switch {
		case string(line.ID) == "3":
			if len(line.Results) != 1 {
				t.Fatalf("step: %s, want one result", b)
			}
			stepResult = line.Results[0]
		case line.Event == "stream" && line.Stream.Seq == 3:
			types = append(types, line.Stream.Type)
			if line.Stream.Type == "judged" {
				streamResult = line.Result
			}
		}
	}
	if strings.Join(types, " ") != "due sent answered judged" {
		t.Errorf("seq 3's events: %v, want due sent answered judged", types)
	}
	if string(stepResult) != string(streamResult) {
		t.Errorf("the step's result and the stream's differ:\n step   %s\n stream %s", stepResult, streamResult)
	}
	for _, field := range []string{`"due_ms":`, `"sent_ms":`, `"answered_ms":`, `"latency_ms":`, `"verdict":"passed"`, `"kind":"request"`} {
		if !strings.Contains(string(streamResult), field) {
			t.Errorf("the result %s lacks %s", streamResult, field)
		}
	}
	p.stdin.Close()
	if code := p.wait(30 * time.Second); code != 0 {
		t.Errorf("exit %d, want 0\nstderr:\n%s", code, p.stderr)
	}
}
