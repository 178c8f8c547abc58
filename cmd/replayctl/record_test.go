package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/internal/testtape"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/tape"
)

// readAll reads every message of the tape at path; it fails the test on a
// bad line, and returns the reader's end record and warnings too.
func readAll(t *testing.T, path string) (tape.Header, []tape.Message, *tape.End, []string) {
	t.Helper()
	r, err := tape.Open(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer r.Close()
	var msgs []tape.Message
	for {
		m, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	return r.Header(), msgs, r.End(), r.Warnings()
}

// byDir is the messages of one direction, in tape order, each decoded
// and encoded again (keys sorted): testtape records what the go-sdk
// client reads as the SDK encodes it again, not as the server wrote it,
// so only the meaning can be compared with it. (The proxy's exactness to
// the byte is TestStdioByteForByte's, in package record.)
func byDir(t *testing.T, msgs []tape.Message, dir tape.Dir) []string {
	var out []string
	for _, m := range msgs {
		if m.Dir == dir {
			var v any
			if err := json.Unmarshal(m.Msg, &v); err != nil {
				t.Fatalf("seq %d: %v", m.Seq, err)
			}
			b, _ := json.Marshal(v)
			out = append(out, string(b))
		}
	}
	return out
}

// everythingScript is a session with server-everything from npm: lists
// and a call of each kind, named from what the server lists.
func everythingScript(ctx context.Context, cs *mcp.ClientSession) error {
	if _, err := cs.ListTools(ctx, nil); err != nil {
		return err
	}
	for _, call := range []*mcp.CallToolParams{
		{Name: "echo", Arguments: map[string]any{"message": "hello through the proxy"}},
		{Name: "get-sum", Arguments: map[string]any{"a": 2, "b": 40}},
	} {
		if _, err := cs.CallTool(ctx, call); err != nil {
			return fmt.Errorf("call %s: %w", call.Name, err)
		}
	}
	res, err := cs.ListResources(ctx, nil)
	if err != nil {
		return err
	}
	if len(res.Resources) > 0 {
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: res.Resources[0].URI}); err != nil {
			return err
		}
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		return err
	}
	for _, p := range prompts.Prompts {
		if len(p.Arguments) == 0 {
			if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name}); err != nil {
				return err
			}
			break
		}
	}
	return nil
}

// TestRecordRealClient puts the go-sdk client through `replayctl record`
// against the go-sdk conformance server (both protocol revisions) and
// server-everything from npm. The proxy's tape must hold, per direction,
// the messages the client wrote and read (testtape's own recording of the
// client's side; see byDir), its header the agreed version, the server's
// command and the tags; and it must replay against the same server with
// zero failures.
func TestRecordRealClient(t *testing.T) {
	if testing.Short() {
		t.Skip("records and replays against real servers")
	}
	type tc struct {
		name    string
		argv    func(t testing.TB) []string
		version string
		want    string
		script  testtape.Script
	}
	cases := []tc{
		{"go-sdk/2026-07-28", testserver.GoSDK, "", "2026-07-28", testtape.ScriptAll},
		{"go-sdk/2025-11-25", testserver.GoSDK, "2025-11-25", "2025-11-25", testtape.ScriptAll},
		{"everything", func(t testing.TB) []string {
			testserver.NeedEverything(t)
			return testserver.Everything(t)
		}, "2025-11-25", "", everythingScript},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			argv := c.argv(t)
			proxied := filepath.Join(t.TempDir(), "proxied.jsonl")
			proxy := append([]string{binary, "record", "-q", "-o", proxied, "--tag", "suite=e2e", "--"}, argv...)
			clientSide := testtape.RecordClient(t, testtape.Stdio(proxy), c.version, c.script)

			h, msgs, end, warnings := readAll(t, proxied)
			_, seen, _, _ := readAll(t, clientSide)
			if c.want != "" && h.ProtocolVersion != c.want {
				t.Errorf("header protocol_version %q, want %q", h.ProtocolVersion, c.want)
			}
			if h.ProtocolVersion == "" {
				t.Error("header has no protocol_version")
			}
			if h.Transport != "stdio" || h.Server == nil || !slices.Equal(h.Server.Command, argv) || h.Tags["suite"] != "e2e" || h.CreatedAt == "" {
				t.Errorf("header %+v server %+v: want transport stdio, the command %q, tag suite=e2e, created_at", h, h.Server, argv)
			}
			if end == nil || end.Messages != int64(len(msgs)) || len(warnings) != 0 {
				t.Errorf("end %+v, %d messages, warnings %q: want an end line that counts them, no warnings", end, len(msgs), warnings)
			}
			for _, dir := range []tape.Dir{tape.C2S, tape.S2C} {
				got, want := byDir(t, msgs, dir), byDir(t, seen, dir)
				if !slices.Equal(got, want) {
					t.Errorf("%s: the proxy recorded %d messages, the client saw %d, or their bytes differ:\nproxy:  %.300q\nclient: %.300q", dir, len(got), len(want), got, want)
				}
			}
			for i, m := range msgs {
				if m.Seq != int64(i) || m.Session != "s1" || (i > 0 && m.TUS < msgs[i-1].TUS) {
					t.Fatalf("message %d: seq %d session %s t_us %d: want seq %d, s1, times not going back", i, m.Seq, m.Session, m.TUS, i)
				}
			}
			rep, err := replay.Run(t.Context(), proxied, replay.WithSpeed(replay.Fast()), replay.Against(replay.Command(argv[0], argv[1:]...)))
			if rep == nil {
				t.Fatal(err)
			}
			if err != nil || !rep.Passed() || rep.Validation.Failed != 0 || rep.Validation.Checked < 5 {
				t.Fatalf("replay of the recorded tape: err %v; passed %v, %d checked, %d failed; failures %+v, errors %+v",
					err, rep.Passed(), rep.Validation.Checked, rep.Validation.Failed, rep.Validation.Failures, rep.Errors)
			}
		})
	}
}

// rawClient runs `replayctl record` with args on pipes the test drives.
type rawClient struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *strings.Builder
}

// startRecord starts `replayctl record` with args; it is killed, if it
// still runs, when the test ends, and its stderr logged if the test
// failed.
func startRecord(t *testing.T, args ...string) *rawClient {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"record"}, args...)...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("record's stderr:\n%s", stderr.String())
		}
	})
	return &rawClient{cmd: cmd, in: in, out: bufio.NewReader(out), stderr: &stderr}
}

// call sends a request and reads lines up to its answer.
func (c *rawClient) call(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
	for {
		l, err := c.out.ReadString('\n')
		if err != nil {
			t.Fatalf("waiting for the answer to %.80s: %v", line, err)
		}
		if strings.Contains(l, `"result"`) || strings.Contains(l, `"error"`) {
			return
		}
	}
}

// handshake opens a 2025-11-25 session and makes n tools/list calls.
func (c *rawClient) handshake(t *testing.T, n int) {
	t.Helper()
	c.call(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if _, err := io.WriteString(c.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		c.call(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i+1))
	}
}

// TestRecordKill9 kills `record` (SIGKILL) after 10 answered requests: the
// tape loads, with every message whose answer the client got, and says
// it has no end line.
func TestRecordKill9(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	c := startRecord(t, "-o", path, "--", testserver.GoSDK(t)[0])
	c.handshake(t, 10)
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = c.cmd.Wait()
	h, msgs, end, warnings := readAll(t, path)
	// initialize and its answer, initialized, 10 requests and answers:
	// each recorded before the client saw it.
	if len(msgs) != 23 || end != nil || h.ProtocolVersion != "2025-11-25" {
		t.Errorf("got %d messages, end %+v, version %q; want 23, no end, 2025-11-25", len(msgs), end, h.ProtocolVersion)
	}
	if !strings.Contains(strings.Join(warnings, "\n"), "end") {
		t.Errorf("warnings %q: want one about the missing end line", warnings)
	}
}

// TestRecordSIGINT stops `record` with SIGINT: exit 130, the tape has its
// end line and every message, and stderr says so.
func TestRecordSIGINT(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	c := startRecord(t, "-o", path, "--", testserver.GoSDK(t)[0])
	c.handshake(t, 3)
	if err := c.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("record did not stop within 20s of SIGINT")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
		t.Errorf("exit: %v, want status 130", err)
	}
	_, msgs, end, _ := readAll(t, path)
	if len(msgs) != 9 || end == nil || end.Messages != 9 {
		t.Errorf("got %d messages, end %+v; want 9 and an end line", len(msgs), end)
	}
	if !strings.Contains(c.stderr.String(), "recorded 9 messages to "+path) {
		t.Errorf("stderr %q: want the summary", c.stderr.String())
	}
}

// TestRecordUsage: bad usage is exit 2 with a message that says what to
// do, and an existing tape is kept unless --force.
func TestRecordUsage(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "old.jsonl")
	if err := os.WriteFile(existing, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"record", "--", "true"}, "-o TAPE is required"},
		{[]string{"record", "-o", filepath.Join(dir, "a.jsonl")}, "give the server command after --"},
		{[]string{"record", "-o", existing, "--", "true"}, "pass --force"},
		{[]string{"record", "-o", filepath.Join(dir, "no", "a.jsonl"), "--", "true"}, "does not exist"},
		{[]string{"record", "-o", filepath.Join(dir, "a.jsonl"), "--tag", "novalue", "--", "true"}, "want key=value"},
	}
	for _, tc := range tests {
		res := replayctl(t, tc.args...)
		if res.code != exitBadInput || !strings.Contains(res.stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, res.code, res.stderr, tc.want)
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "keep me\n" {
		t.Errorf("the existing tape was changed: %q", b)
	}
	// A server that cannot start leaves no tape behind (the next try
	// with the command fixed needs no --force), and nothing claims it
	// exited with status 0.
	missing := filepath.Join(dir, "b.jsonl")
	res := replayctl(t, "record", "-o", missing, "--", "/nonexistent/server")
	if res.code != exitTarget || !strings.Contains(res.stderr, "no such") || !strings.Contains(res.stderr, "no tape was written") || strings.Contains(res.stderr, "exit status 0") {
		t.Errorf("missing server: exit %d, stderr %q; want 3 naming it, saying no tape was written", res.code, res.stderr)
	}
	if _, err := os.Stat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing server: %s: %v, want no tape", missing, err)
	}
}

// TestRecordClientLineTooLong: a line from record's client longer than
// --max-message is the client's fault, not the server's: exit 2 (bad
// input), an error that names the client and the limit, not exit 3 (the
// server failed). The limit is 1 MiB here for a cheap test; the default
// (16 MiB) goes the same way.
func TestRecordClientLineTooLong(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, append([]string{"record", "-o", path, "--max-message", "1MiB", "--"}, testserver.Slow(t)...)...)
	long := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"` + strings.Repeat("x", 2<<20) + `"}}` + "\n"
	cmd.Stdin = strings.NewReader(long)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	code := cmd.ProcessState.ExitCode()
	if err == nil || code != 2 || !strings.Contains(stderr.String(), "the client sent a line longer than --max-message 1 MiB") {
		t.Errorf("record with a 2 MiB line from the client over --max-message 1MiB: exit %d (%v), stderr:\n%s\nwant exit 2 and an error that says the client sent a line longer than --max-message 1 MiB", code, err, stderr.String())
	}
	if strings.Contains(stderr.String(), "from the target") || strings.Contains(stderr.String(), "the server ended") {
		t.Errorf("stderr blames the target (the server) for the client's line:\n%s", stderr.String())
	}
}
