package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testbuf"
	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
)

// fromFile is `replayctl record -o TAPE ARGS` with stdin the file of
// lines, running.
type fromFile struct {
	cmd            *exec.Cmd
	path, in       string // the tape, the file of lines
	stdout, stderr *testbuf.Buffer
	done           chan struct{}
}

// recordFromFile starts record with stdin a file of lines, recording to
// a tape in a fresh folder; args are the flags and the server command.
func recordFromFile(t *testing.T, lines []string, args ...string) *fromFile {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "requests.jsonl")
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	r := &fromFile{path: filepath.Join(dir, "t.jsonl"), in: in, stdout: &testbuf.Buffer{}, stderr: &testbuf.Buffer{}, done: make(chan struct{})}
	r.cmd = exec.Command(binary, append([]string{"record", "-o", r.path}, args...)...)
	r.cmd.Stdin, r.cmd.Stdout, r.cmd.Stderr = f, r.stdout, r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = r.cmd.Wait()
		close(r.done)
	}()
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			_ = r.cmd.Process.Kill()
			<-r.done
		}
	})
	return r
}

// wait returns record's exit status, failing the test if it has not
// ended within bound (a hang's bound, not a timing).
func (r *fromFile) wait(t *testing.T, bound time.Duration) int {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(bound):
		_ = r.cmd.Process.Kill()
		<-r.done
		t.Fatalf("record still running after %v (it should end by itself); stderr:\n%s", bound, r.stderr)
	}
	return r.cmd.ProcessState.ExitCode()
}

// answeredIDs are the ids (JSON text) of the server's answers on the
// tape at path, which must be whole, and the seq of each client request
// by its id.
func answeredIDs(t *testing.T, path string) (answered map[string]bool, sent map[string]int64) {
	t.Helper()
	_, msgs := loadWholeTape(t, path)
	answered, sent = map[string]bool{}, map[string]int64{}
	for _, m := range msgs {
		rpc, err := m.RPC()
		switch {
		case err != nil:
		case m.Dir == tape.S2C && jsonrpc.IsResponseKind(rpc.Kind):
			answered[string(rpc.ID)] = true
		case m.Dir == tape.C2S && rpc.Kind == jsonrpc.KindRequest:
			sent[string(rpc.ID)] = m.Seq
		}
	}
	return answered, sent
}

const hangBound = 2 * time.Minute

// drainBound is the --drain of the tests that wait for it to pass: the
// server's silence after its last message. A server under -race on a
// loaded two-core machine can be silent for more than half a second
// between two messages it was always going to send (the go-sdk server's
// elicitation/create came too late for a 500ms drain in 1 CI run), and
// these tests are about what is named when the drain passes, not about
// how short it can be.
const drainBound = "5s"

// TestRecordDrainEndsAnUnansweredFile: `record -- SERVER < file` whose
// server never answers one request ends by itself once --drain has
// passed after the file's end: it names the request (method, id, the
// input's line, the tape's seq) on stderr, keeps it on the tape
// unanswered with the end line, and exits 1. Before --drain, record
// waited for that answer until Ctrl-C (this test, without --drain,
// reached its 2-minute bound).
func TestRecordDrainEndsAnUnansweredFile(t *testing.T) {
	r := recordFromFile(t, []string{
		initializeLine,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
	}, append([]string{"--drain", drainBound, "--"}, testserver.Slow(t, "-hang", "silent")...)...)
	code := r.wait(t, hangBound)
	stderr := r.stderr.String()
	if code != exitFailed {
		t.Errorf("exit %d, want %d (a request never answered); stderr:\n%s", code, exitFailed, stderr)
	}
	answered, sent := answeredIDs(t, r.path)
	if !answered["1"] || !answered["3"] || answered["2"] {
		t.Errorf("answered ids %v, want 1 and 3, not 2 (the server never answers tools/call)", answered)
	}
	seq, ok := sent["2"]
	if !ok {
		t.Fatalf("the tools/call is not on the tape (requests %v)", sent)
	}
	for _, want := range []string{
		"1 request was never answered: the server said nothing for --drain " + drainBound + " after the input's end",
		"tools/call id 2 (line 3 of the input, seq " + strconv.FormatInt(seq, 10) + ")",
		"with its end line",
		"--drain",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr)
		}
	}
}

// TestRecordDrainNamesTheServersQuestion: the go-sdk conformance server's
// test_elicitation asks the client (elicitation/create) before it
// answers the call, which a file cannot answer: record ends after
// --drain, names the call and the question the file left unanswered,
// and exits 1 with the tape whole.
func TestRecordDrainNamesTheServersQuestion(t *testing.T) {
	r := recordFromFile(t, []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_elicitation","arguments":{"message":"Who?"}}}`,
	}, append([]string{"--drain", drainBound, "--"}, testserver.GoSDK(t)...)...)
	code := r.wait(t, hangBound)
	stderr := r.stderr.String()
	if code != exitFailed {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, exitFailed, stderr)
	}
	for _, want := range []string{"tools/call id 2 (line 3 of the input", "the input never answered the server's request elicitation/create id "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr)
		}
	}
	if answered, _ := answeredIDs(t, r.path); !answered["1"] || answered["2"] {
		t.Errorf("answered ids %v, want 1 and not 2", answered)
	}
}

// TestRecordDrainNotNeeded: against the go-sdk conformance server, which
// answers everything, a file records whole and exits 0 with the default
// --drain, saying nothing of unanswered requests: the drain is a bound,
// not a wait.
func TestRecordDrainNotNeeded(t *testing.T) {
	r := recordFromFile(t, []string{
		initializeLine,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_simple_text","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"ping"}`,
	}, append([]string{"--"}, testserver.GoSDK(t)...)...)
	code := r.wait(t, hangBound)
	stderr := r.stderr.String()
	if code != 0 || strings.Contains(stderr, "unanswered") || strings.Contains(stderr, "never answered") {
		t.Errorf("exit %d, want 0 and no request unanswered; stderr:\n%s", code, stderr)
	}
	answered, _ := answeredIDs(t, r.path)
	for _, id := range []string{"1", "2", "3", "4"} {
		if !answered[id] {
			t.Errorf("request %s has no answer on the tape; stderr:\n%s", id, stderr)
		}
	}
}

// TestRecordDrainWaitsForASlowStart: a server slow to start (npx or
// uvx with a cold cache, docker run pulling its image: here one that
// reads nothing for 3s) with a file piped in records whole with a
// --drain far shorter than its start, and exits 0: the drain does not
// start before the server's first answer, and then counts its silence.
// Before, the drain counted from the file's end, almost the start of
// the recording: the server's stdin was closed before it answered
// initialize, --stop-timeout later it was stopped, and record exited 3
// ("the server answered nothing"). Once every answer is in, a server
// that outlives --stop-timeout is stopped, which is no failure.
func TestRecordDrainWaitsForASlowStart(t *testing.T) {
	r := recordFromFile(t, []string{
		initializeLine,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
	}, append([]string{"--drain", "1s", "--stop-timeout", "500ms", "--"}, testserver.Slow(t, "-start", "3s")...)...)
	code := r.wait(t, hangBound)
	stderr := r.stderr.String()
	if code != 0 || strings.Contains(stderr, "never answered") {
		t.Errorf("exit %d, want 0 with every request answered; stderr:\n%s", code, stderr)
	}
	answered, _ := answeredIDs(t, r.path)
	for _, id := range []string{"1", "2", "3"} {
		if !answered[id] {
			t.Errorf("request %s has no answer on the tape; stderr:\n%s", id, stderr)
		}
	}
}

// TestRecordDrainAnsweredAsItStopped: a server that still owes an answer
// when --drain passes, and writes it once its stdin is closed (the slow
// server writes its delayed answers before it exits), records whole and
// exits 0; the summary says the rest came as it stopped, not "--drain
// passed with 0 requests unanswered" (as it did before).
func TestRecordDrainAnsweredAsItStopped(t *testing.T) {
	r := recordFromFile(t, []string{
		initializeLine,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
	}, append([]string{"--drain", "200ms", "--stop-timeout", "10m", "--"}, testserver.Slow(t, "-delay", "2s")...)...)
	code := r.wait(t, hangBound)
	stderr := r.stderr.String()
	if code != 0 || !strings.Contains(stderr, "--drain passed, then the server answered the rest as it stopped") || strings.Contains(stderr, "0 requests") {
		t.Errorf("exit %d, want 0 and the summary saying the answer came as the server stopped; stderr:\n%s", code, stderr)
	}
	if answered, _ := answeredIDs(t, r.path); !answered["1"] || !answered["2"] {
		t.Errorf("answered %v, want 1 and 2", answered)
	}
}
