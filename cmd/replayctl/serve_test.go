package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testbuf"
	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/internal/testtape"
	"github.com/replayctl/replayctl/tape"
)

// serveWait bounds each wait on a serve process: a failure deadline, not a
// timing assertion.
const serveWait = 60 * time.Second

// recordedTapes are the tapes of testtape.ScriptAll the Go SDK client
// recorded against the conformance server over stdio, by revision ("":
// 2026-07-28), recorded once per test process.
var recordedTapes struct {
	sync.Mutex
	paths map[string]string
}

func recordedTape(t *testing.T, version string) string {
	t.Helper()
	recordedTapes.Lock()
	defer recordedTapes.Unlock()
	if p, ok := recordedTapes.paths[version]; ok {
		return p
	}
	rec := testtape.RecordClient(t, testtape.Stdio(testserver.GoSDK(t)), version, testtape.ScriptAll)
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	// Kept past the recording test's TempDir: a file of the test process.
	dir, err := os.MkdirTemp("", "replayctl-serve-tapes")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "tape.jsonl")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if recordedTapes.paths == nil {
		recordedTapes.paths = map[string]string{}
	}
	recordedTapes.paths[version] = p
	return p
}

// serverMessages returns a tape's s2c messages, in order.
func serverMessages(t *testing.T, path string) []string {
	t.Helper()
	r, err := tape.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []string
	for {
		m, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if m.Dir == tape.S2C {
			out = append(out, string(m.Msg))
		}
	}
}

// sameAnswers fails unless the client got, from serve, every message the
// tape recorded from the server, byte for byte and in order.
func sameAnswers(t *testing.T, recorded, served string) {
	t.Helper()
	want, got := serverMessages(t, recorded), serverMessages(t, served)
	if len(want) < 15 {
		t.Fatalf("the recorded tape has %d server messages; the script makes more", len(want))
	}
	if len(got) != len(want) {
		t.Errorf("the client got %d server messages, the tape has %d", len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("server message %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

func TestServeStdioAnswersAsRecorded(t *testing.T) {
	for _, version := range []string{"2025-11-25", ""} {
		t.Run("version="+version, func(t *testing.T) {
			recorded := recordedTape(t, version)
			served := testtape.RecordClient(t, testtape.Stdio([]string{binary, "serve", "--strict", recorded}), version, testtape.ScriptAll)
			sameAnswers(t, recorded, served)
		})
	}
}

// servingProcess is replayctl serve --listen running in the background.
type servingProcess struct {
	cmd    *exec.Cmd
	url    string // the Streamable HTTP endpoint
	stderr *testbuf.Buffer
	done   chan error
}

// startServe starts replayctl serve --listen 127.0.0.1:0 with args and
// waits for the URL it prints.
func startServe(t *testing.T, args ...string) *servingProcess {
	t.Helper()
	return startCmd(t, exec.Command(binary, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...))
}

// startCmd starts cmd, a serve or record that prints its URL on stderr,
// from the repository root, and waits for the URL.
func startCmd(t *testing.T, cmd *exec.Cmd) *servingProcess {
	t.Helper()
	cmd.Dir = "../.."
	pr, pw := io.Pipe()
	stderr := &testbuf.Buffer{}
	cmd.Stderr = io.MultiWriter(pw, stderr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &servingProcess{cmd: cmd, stderr: stderr, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait(); pw.Close() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
	})
	urls := make(chan string, 1)
	go func() { // until serve's stderr ends (pw is closed once it exited)
		defer func() { _, _ = io.Copy(io.Discard, pr) }() // the rest: the pipe must not fill
		defer close(urls)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			// serve prints "serving on URL"; its record mode, record's
			// "recording URL → UPSTREAM".
			for _, prefix := range []string{"serving on ", "recording "} {
				if rest, ok := strings.CutPrefix(sc.Text(), prefix); ok {
					urls <- strings.Fields(rest)[0]
					return
				}
			}
		}
	}()
	select {
	case u, ok := <-urls:
		if !ok {
			t.Fatalf("serve printed no URL: %s", stderr.String())
		}
		p.url = u
	case <-time.After(serveWait):
		t.Fatal("serve printed no URL in time")
	}
	return p
}

// stop sends SIGTERM and returns the exit status and stderr.
func (p *servingProcess) stop(t *testing.T) (int, string) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.done:
		p.done <- err // for Cleanup
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		return code, p.stderr.String()
	case <-time.After(serveWait):
		t.Fatal("serve did not stop after SIGTERM")
		return 0, ""
	}
}

func TestServeHTTPAnswersAsRecorded(t *testing.T) {
	for _, version := range []string{"2025-11-25", ""} {
		t.Run("version="+version, func(t *testing.T) {
			recorded := recordedTape(t, version)
			p := startServe(t, "--strict", recorded)
			served := testtape.RecordClient(t, testtape.HTTP(p.url), version, testtape.ScriptAll)
			sameAnswers(t, recorded, served)
			code, stderr := p.stop(t)
			if code != 0 || !strings.Contains(stderr, "served: 0 misses") {
				t.Errorf("serve: exit %d, stderr:\n%s", code, stderr)
			}
		})
	}
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// TestServeMissIsLoud: a request the tape does not have gets an error
// naming the closest recorded one; serve lists it; --strict exits 1 and
// the report has it.
func TestServeMissIsLoud(t *testing.T) {
	recorded := recordedTape(t, "2025-11-25")
	report := filepath.Join(t.TempDir(), "serve.json")
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{},"elicitation":{"form":{}},"roots":{"listChanged":true}},"clientInfo":{"name":"replayctl-testtape","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_simple_text","arguments":{"changed":true}}}`,
	}, "\n") + "\n"
	res := replayctlIn(t, in, "serve", "--strict", "--report", report, recorded)
	if res.code != 1 {
		t.Errorf("exit %d, want 1 (--strict, a miss); stderr:\n%s", res.code, res.stderr)
	}
	var got struct {
		ID    int `json:"id"`
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	found := false
	for line := range strings.Lines(res.stdout) {
		if json.Unmarshal([]byte(line), &got) == nil && got.ID == 2 {
			found = true
			break
		}
	}
	if !found || !strings.Contains(got.Error.Message, "closest recorded") || !strings.Contains(got.Error.Message, "params.arguments.changed") {
		t.Errorf("the client's error for id 2: %q; stdout:\n%s", got.Error.Message, res.stdout)
	}
	for line := range strings.Lines(res.stdout) {
		if !json.Valid([]byte(line)) {
			t.Errorf("stdout has a line that is not JSON: %q", line)
		}
	}
	if !strings.Contains(res.stderr, "served: 1 miss,") || !strings.Contains(res.stderr, "params.arguments.changed") {
		t.Errorf("stderr does not list the miss:\n%s", res.stderr)
	}
	var rep serveReport
	b, err := os.ReadFile(report)
	if err != nil || json.Unmarshal(b, &rep) != nil || len(rep.Misses) != 1 || rep.Misses[0].Method != "tools/call" {
		t.Errorf("report %s (%v):\n%s", report, err, b)
	}
}

// TestServeSameSeedSameFaults: the same client lines and seed give the
// same faults, twice; another seed others.
func TestServeSameSeedSameFaults(t *testing.T) {
	recorded := recordedTape(t, "2025-11-25")
	var lines []string
	lines = append(lines,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{},"elicitation":{"form":{}},"roots":{"listChanged":true}},"clientInfo":{"name":"replayctl-testtape","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	for i := range 6 {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"test_simple_text","arguments":{}}}`, 10+i))
	}
	in := strings.Join(lines, "\n") + "\n"
	faults := func(seed string) string {
		report := filepath.Join(t.TempDir(), "serve.json")
		res := replayctlIn(t, in, "serve", "--repeat", "--chaos", "error=0.9", "--seed", seed, "--report", report, recorded)
		if res.code != 0 {
			t.Fatalf("exit %d: %s", res.code, res.stderr)
		}
		var rep serveReport
		b, err := os.ReadFile(report)
		if err != nil || json.Unmarshal(b, &rep) != nil || rep.Chaos == nil {
			t.Fatalf("report (%v): %s", err, b)
		}
		var s []string
		for _, f := range rep.Chaos.Faults {
			s = append(s, fmt.Sprintf("%d/%s/%s", f.Seq, f.Session, f.Kind))
		}
		return strings.Join(s, " ")
	}
	a, b := faults("7"), faults("7")
	if a == "" || a != b {
		t.Errorf("seed 7 twice: %q and %q, want the same faults, at least one", a, b)
	}
}

func TestServeBadInput(t *testing.T) {
	recorded := "examples/go-sdk-2025.jsonl"
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no tape", []string{"serve", "nope.jsonl"}, "nope.jsonl"},
		{"bad timing", []string{"serve", "--timing", "fast", recorded}, "--timing"},
		{"bad strategy", []string{"serve", "--strategy", "fuzzy", recorded}, "--strategy"},
		{"bad chaos", []string{"serve", "--chaos", "explode=2", recorded}, "--chaos"},
		{"bad report name", []string{"serve", "--report", "x.html", recorded}, "--report"},
		{"bad listen", []string{"serve", "--listen", "256.0.0.1:1", recorded}, "--listen"},
		{"two tapes", []string{"serve", recorded, recorded}, "serve TAPE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := replayctl(t, tc.args...)
			if res.code != 2 || !strings.Contains(res.stderr, tc.want) || res.stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing on stdout, an error naming %s", res.code, res.stdout, res.stderr, tc.want)
			}
		})
	}
}

// TestServeListenInUse: a port already taken is an error naming --listen
// and nothing else: no "served" summary, no report (nothing was served).
func TestServeListenInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	report := filepath.Join(t.TempDir(), "r.json")
	res := replayctl(t, "serve", "--listen", ln.Addr().String(), "--report", report, "examples/go-sdk-2025.jsonl")
	if res.code != 2 || !strings.Contains(res.stderr, "--listen "+ln.Addr().String()) || strings.Contains(res.stderr, "served") || res.stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 and only the --listen error", res.code, res.stdout, res.stderr)
	}
	if _, err := os.Stat(report); !os.IsNotExist(err) {
		t.Errorf("report: %v, want none written", err)
	}
}
