package record

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// The test binary is also the servers of these tests: with
// RECORD_TEST_SERVER set, TestMain runs the server it names instead of
// the tests (see testServer).
const serverEnv = "RECORD_TEST_SERVER"

// oddAnswer is what the "odd" server answers to a request with id: valid
// JSON written the way no encoder would (spaces, key order, escapes).
func oddAnswer(id []byte) string {
	return fmt.Sprintf(`{ "result" : {"z":1 , "protocolVersion":"2025-06-18", "a":"caf\u00e9 \ud83d\ude00","list":[ 1,2 ]} ,"id" : %s,  "jsonrpc":"2.0"}`, id)
}

// runTestServer runs the server named by RECORD_TEST_SERVER on stdin and
// stdout:
//   - odd: a banner and a blank line first, then an oddAnswer per request
//     (ending "\r\n" for even ids), until EOF;
//   - exit3: answers nothing and exits with status 3 at once;
//   - stubborn: says "ready", then ignores EOF and SIGTERM (it must be
//     killed).
func runTestServer(name string) int {
	switch name {
	case "exit3":
		return 3
	case "stubborn":
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		_, _ = io.Copy(io.Discard, os.Stdin)
		time.Sleep(time.Hour)
		return 0
	case "odd":
		w := bufio.NewWriter(os.Stdout)
		fmt.Fprint(w, "odd server ready\n\n")
		w.Flush()
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(nil, 1<<20)
		n := 0
		for sc.Scan() {
			m, err := jsonrpc.ParseStrict(bytes.TrimSpace(sc.Bytes()))
			if err != nil || m.Kind != jsonrpc.KindRequest {
				continue
			}
			end := "\n"
			if n%2 == 0 {
				end = "\r\n"
			}
			n++
			fmt.Fprint(w, oddAnswer(m.ID)+end)
			w.Flush()
		}
		return 0
	}
	fmt.Fprintf(os.Stderr, "unknown test server %q\n", name)
	return 2
}

// testServer is the argv and environment of a test server.
func testServer(name string) ([]string, StdioOption) {
	return []string{os.Args[0]}, StdioEnv(serverEnv + "=" + name)
}

// pipes is a client's ends of the proxy's stdin and stdout.
type pipes struct {
	in, out          *os.File // the proxy's: it reads in, writes out
	toProxy, fromOut *os.File // the client's
}

func newPipes(t *testing.T) pipes {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return pipes{in: inR, out: outW, toProxy: inW, fromOut: outR}
}

// newFileTap records into a lazy tap at a file in t.TempDir.
func newFileTap(t testing.TB) (*Tap, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.jsonl")
	tap := NewLazyTap(func(v string) (*tape.Writer, error) {
		return tape.Create(path, tape.Header{Transport: "stdio", ProtocolVersion: v})
	})
	return tap, path
}

func readTape(t testing.TB, path string) (tape.Header, []tape.Message) {
	t.Helper()
	r, err := tape.Open(path)
	if err != nil {
		t.Fatal(err)
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
	return r.Header(), msgs
}

// TestStdioByteForByte relays odd-but-valid JSON both ways: the client
// gets exactly the server's bytes (line ends included, a banner too), the
// server's answers arrive for each request, and the tape holds each
// message's exact bytes, in order, the banner left out and counted.
func TestStdioByteForByte(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	argv, env := testServer("odd")
	p := newPipes(t)
	tap, path := newFileTap(t)
	clientLines := []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n",
		"{ \"method\" : \"notifications/initialized\",\"jsonrpc\":\"2.0\" }\r\n",
		"not json from the client\n",
		`{"jsonrpc":"2.0","id":"x\u0041","method":"tools/list"}` + "\n",
	}
	type outcome struct {
		res StdioResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := Stdio(ctx, tap, p.in, p.out, argv, env, StdioStderr(io.Discard))
		done <- outcome{res, err}
	}()
	// The client waits for each answer before it goes on.
	var got bytes.Buffer
	out := bufio.NewReader(io.TeeReader(p.fromOut, &got))
	for _, l := range clientLines {
		if _, err := io.WriteString(p.toProxy, l); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(l, `"id"`) {
			continue
		}
		for {
			line, err := out.ReadString('\n')
			if err != nil {
				t.Fatalf("waiting for the answer to %s: %v", l, err)
			}
			if strings.Contains(line, `"id"`) {
				break
			}
		}
	}
	p.toProxy.Close()
	if _, err := io.Copy(io.Discard, out); err != nil {
		t.Fatal(err)
	}
	o := <-done
	if o.err != nil || !o.res.ClientClosed || o.res.ExitCode != 0 {
		t.Fatalf("Stdio: %+v, %v; want the client closed, status 0, no error", o.res, o.err)
	}
	answers := []string{oddAnswer([]byte("0")), oddAnswer([]byte(`"x\u0041"`))}
	want := "odd server ready\n\n" + answers[0] + "\r\n" + answers[1] + "\n"
	if got.String() != want {
		t.Errorf("client got\n%q\nwant\n%q", got.String(), want)
	}
	if o.res.NonJSONFromClient != 1 || o.res.NonJSONFromServer != 1 {
		t.Errorf("non-JSON lines: %d from the client, %d from the server; want 1 and 1", o.res.NonJSONFromClient, o.res.NonJSONFromServer)
	}
	if err := tap.Close(); err != nil {
		t.Fatal(err)
	}
	h, msgs := readTape(t, path)
	if h.ProtocolVersion != "2025-06-18" {
		t.Errorf("header protocol_version %q, want 2025-06-18 (from the initialize answer)", h.ProtocolVersion)
	}
	wantMsgs := []struct {
		dir tape.Dir
		msg string
	}{
		{tape.C2S, strings.TrimSuffix(clientLines[0], "\n")},
		{tape.S2C, answers[0]},
		{tape.C2S, strings.TrimSuffix(clientLines[1], "\r\n")},
		{tape.C2S, strings.TrimSuffix(clientLines[3], "\n")},
		{tape.S2C, answers[1]},
	}
	if len(msgs) != len(wantMsgs) {
		t.Fatalf("tape has %d messages, want %d: %v", len(msgs), len(wantMsgs), msgs)
	}
	for i, w := range wantMsgs {
		m := msgs[i]
		if m.Seq != int64(i) || m.Dir != w.dir || string(m.Msg) != w.msg || m.Session != "s1" {
			t.Errorf("message %d: seq %d %s %s %q; want seq %d s1 %s %q", i, m.Seq, m.Session, m.Dir, m.Msg, i, w.dir, w.msg)
		}
	}
}

// TestStdioServerExits: a server that exits on its own with status 3 ends
// the recording with an error that matches ErrTarget and names the status.
func TestStdioServerExits(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	argv, env := testServer("exit3")
	p := newPipes(t)
	tap, _ := newFileTap(t)
	defer tap.Close()
	res, err := Stdio(ctx, tap, p.in, p.out, argv, env, StdioStderr(io.Discard))
	if !errors.Is(err, transport.ErrTarget) || !strings.Contains(fmt.Sprint(err), "status 3") || res.ExitCode != 3 || res.ClientClosed {
		t.Errorf("got %+v, %v; want status 3 and an error matching ErrTarget", res, err)
	}
}

// TestStdioClientEOFSeenFirst: when the client's input has ended by the
// time the proxy looks how the recording ends (its relay has returned),
// the end is the client's: ClientClosed, and with StdioAwaitAnswers the
// answer is on the tape. Go's select picks at random among the ready
// cases, so a relay's return must not look like a failure beside the EOF;
// each round forces that order, and rounds make a coin toss fail.
func TestStdioClientEOFSeenFirst(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	argv, env := testServer("odd")
	relayDone := func(o *stdioOptions) {
		o.beforeEnd = func(done <-chan struct{}) { <-done }
	}
	for round := range 16 {
		tap, path := newFileTap(t)
		in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n")
		res, err := Stdio(ctx, tap, in, io.Discard, argv, env, StdioStderr(io.Discard), StdioAwaitAnswers(), relayDone)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if err := tap.Close(); err != nil {
			t.Fatal(err)
		}
		if !res.ClientClosed {
			t.Fatalf("round %d: got %+v, want ClientClosed (the client's EOF came first)", round, res)
		}
		if _, msgs := readTape(t, path); len(msgs) != 2 {
			t.Fatalf("round %d: got %d messages on the tape, want 2 (the request and its answer)", round, len(msgs))
		}
	}
}

// TestStdioStubbornServer: a server that ignores the end of its input and
// SIGTERM is killed after the stop timeout, on the client's EOF and on
// cancellation alike.
func TestStdioStubbornServer(t *testing.T) {
	for _, how := range []string{"client closes", "cancel"} {
		t.Run(how, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			argv, env := testServer("stubborn")
			p := newPipes(t)
			tap, _ := newFileTap(t)
			defer tap.Close()
			run, stop := context.WithCancel(ctx)
			defer stop()
			done := make(chan error, 1)
			var res StdioResult
			go func() {
				var err error
				res, err = Stdio(run, tap, p.in, p.out, argv, env, StdioStderr(io.Discard), StdioStopTimeout(100*time.Millisecond))
				done <- err
			}()
			// Once it ignores SIGTERM: before, a stop would end it with
			// SIGTERM, not the SIGKILL under test.
			if line, err := bufio.NewReader(p.fromOut).ReadString('\n'); line != "ready\n" {
				t.Fatalf("server said %q, %v; want ready", line, err)
			}
			if how == "cancel" {
				stop()
			} else {
				p.toProxy.Close()
			}
			err := <-done
			if how == "cancel" && !errors.Is(err, context.Canceled) {
				t.Errorf("got %v, want context.Canceled", err)
			}
			if how != "cancel" && err != nil {
				t.Errorf("got %v, want nil (the client ended the session)", err)
			}
			if !res.Stopped || res.Signal != "killed" {
				t.Errorf("got %+v, want the server stopped by SIGKILL", res)
			}
		})
	}
}

// TestStdioLineTooLong: a client line over the limit ends the recording
// with a *ClientTooLargeError, the client's fault (not the server's:
// it does not match transport.ErrTarget); nothing of it reaches the
// server.
func TestStdioLineTooLong(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	argv, env := testServer("odd")
	p := newPipes(t)
	tap, _ := newFileTap(t)
	defer tap.Close()
	go func() {
		_, _ = io.WriteString(p.toProxy, `{"jsonrpc":"2.0","id":1,"method":"x","params":"`+strings.Repeat("a", 5000)+`"}`+"\n")
	}()
	go func() { _, _ = io.Copy(io.Discard, p.fromOut) }()
	_, err := Stdio(ctx, tap, p.in, p.out, argv, env, StdioStderr(io.Discard), StdioMaxMessage(1000))
	var ct *ClientTooLargeError
	if !errors.As(err, &ct) || ct.Limit != 1000 || !errors.Is(err, ErrClientTooLarge) || errors.Is(err, transport.ErrTarget) {
		t.Errorf("got %v, want a ClientTooLargeError with limit 1000, not a target error", err)
	}
	if n := tap.Messages(); n != 0 {
		t.Errorf("%d messages recorded, want 0", n)
	}
}

// closedOutput is a client's output that is gone (`| head` exited).
type closedOutput struct{}

func (closedOutput) Write([]byte) (int, error) { return 0, os.ErrClosed }

// TestStdioAwaitClientGone: with StdioAwaitAnswers, a client's output
// that is closed while answers are due (`record < file | head`) ends the
// wait, and the *UnansweredError says the answers had nowhere to go
// (ClientGone), not that the server ended. Before, it said "never
// answered before the server ended".
func TestStdioAwaitClientGone(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tap, _ := newFileTap(t)
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n")
	// The server answers initialize (whose answer cannot be passed on),
	// then reads to its end without answering the ping.
	argv := []string{"sh", "-c", `read l; echo '{"jsonrpc":"2.0","id":1,"result":{}}'; cat >/dev/null`}
	relayDone := func(o *stdioOptions) {
		o.beforeEnd = func(done <-chan struct{}) { <-done } // the input is all read first
	}
	_, err := Stdio(ctx, tap, in, closedOutput{}, argv, StdioStderr(io.Discard), StdioAwaitAnswers(), StdioDrain(0), relayDone)
	var ue *UnansweredError
	if !errors.As(err, &ue) || !ue.ClientGone || len(ue.Requests) != 1 || ue.Requests[0].Method != "ping" {
		t.Fatalf("got %v (%+v), want an UnansweredError for the ping with ClientGone", err, ue)
	}
	if msg := err.Error(); !strings.Contains(msg, "before the client's output was closed") {
		t.Errorf("got %q, want it to say the client's output was closed", msg)
	}
	_ = tap.Close()
}
