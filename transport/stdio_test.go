package transport

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testos"
	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/rs/zerolog"
)

func testLogger(t *testing.T) zerolog.Logger {
	return zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.InfoLevel)
}

func dialStdio(t *testing.T, s Stdio) *StdioConn {
	t.Helper()
	s.Logger = testLogger(t)
	c, err := s.Dial(t.Context(), "s1")
	if err != nil {
		t.Fatalf("Dial %v: %v", s.Command, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c.(*StdioConn)
}

func TestStdioRealServers(t *testing.T) {
	tests := []struct {
		name           string
		argv           func(testing.TB) []string
		tool, args, in string
	}{
		{"server-everything", testserver.Everything, "echo", `{"message":"hi there"}`, "Echo: hi there"},
		{"go-sdk conformance", testserver.GoSDK, "test_simple_text", `{}`, "simple text response"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := dialStdio(t, Stdio{Command: tc.argv(t)})
			init := mcpSession(t, c, tc.tool, tc.args, tc.in)
			if init.At.IsZero() || init.HTTP != nil || init.SSE != nil {
				t.Errorf("got Incoming At %v HTTP %v SSE %v, want a time and no HTTP/SSE metadata", init.At, init.HTTP, init.SSE)
			}
			if err := c.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if err := c.Err(); err != nil {
				t.Errorf("Err after Close: got %v, want nil", err)
			}
			if _, ok := <-c.Incoming(); ok {
				t.Errorf("Incoming after Close: got a message, want closed")
			}
		})
	}
}

func TestStdioEchoAndBanner(t *testing.T) {
	argv, env := helperCommand(t, "echo")
	c := dialStdio(t, Stdio{Command: argv, Env: env})
	for i, msg := range []string{`{"a":1}`, `[1,2]`, `"s"`} {
		send(t, c, msg)
		in := <-c.Incoming()
		if string(in.Msg) != msg {
			t.Fatalf("message %d: got %q, want %q", i, in.Msg, msg)
		}
	}
	if got := c.NonJSONLines(); got != 1 {
		t.Errorf("NonJSONLines: got %d, want 1 (the banner)", got)
	}
}

func TestStdioExitStatusAndStderr(t *testing.T) {
	argv, env := helperCommand(t, "exit3")
	c := dialStdio(t, Stdio{Command: argv, Env: env})
	for range c.Incoming() {
		t.Errorf("got a message, want none")
	}
	err := c.Err()
	var ee *ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("Err: got %v (%T), want *ExitError", err, err)
	}
	if ee.Status != 3 || !strings.Contains(ee.Stderr, "fatal: config.yaml: no such file") {
		t.Errorf("got status %d stderr %q, want 3 and the fatal line", ee.Status, ee.Stderr)
	}
	if !errors.Is(err, ErrTarget) {
		t.Errorf("errors.Is(Err, ErrTarget): got false, want true")
	}
	for _, want := range []string{"exited with status 3", "fatal: config.yaml"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Err(): got %q, want it to contain %q", err, want)
		}
	}
	if err := c.Send(t.Context(), []byte(`{}`)); err == nil {
		t.Errorf("Send to an exited server: got nil, want an error")
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if !errors.Is(c.Err(), ErrTarget) {
		t.Errorf("Err after Close of a dead server: got %v, want the exit error kept", c.Err())
	}
}

func TestStdioHugeLine(t *testing.T) {
	argv, env := helperCommand(t, "bigline")
	c := dialStdio(t, Stdio{Command: argv, Env: env})
	in := <-c.Incoming()
	if len(in.Msg) < bigLineBytes || !bytes.HasSuffix(in.Msg, []byte(`"}}`)) {
		t.Fatalf("got a message of %d bytes ending %q, want %d+ bytes ending \"}}", len(in.Msg), in.Msg[max(0, len(in.Msg)-10):], bigLineBytes)
	}
}

func TestStdioCloseKillsStubbornServer(t *testing.T) {
	argv, env := helperCommand(t, "stubborn")
	c := dialStdio(t, Stdio{Command: argv, Env: env, StopTimeout: 50 * time.Millisecond})
	if in := <-c.Incoming(); !bytes.Contains(in.Msg, []byte("ready")) {
		t.Fatalf("got %q, want the ready notification", in.Msg)
	}
	pid := c.PID()
	for range 2 { // idempotent
		if err := c.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
	}
	if gone, err := testos.Gone(t, pid); !gone {
		t.Errorf("signal 0 to pid %d after Close: got %v, want ESRCH (process gone)", pid, err)
	}
	if ps := c.proc.cmd.ProcessState; ps == nil || ps.String() != "signal: killed" {
		t.Errorf("got process state %v, want signal: killed", ps)
	}
}

// TestStdioSendCancelled: a Send whose ctx is done returns its error; one
// whose deadline passes while its message is part written fails by the
// deadline and leaves the connection unusable (the server would read a
// torn message). The deadline passes once the pipe holds part of the
// message, not after an amount of time: under load a 300ms deadline
// passed before the write began, nothing was torn, and the connection
// rightly stayed usable.
func TestStdioSendCancelled(t *testing.T) {
	argv, env := helperCommand(t, "noread")
	c := dialStdio(t, Stdio{Command: argv, Env: env, StopTimeout: 50 * time.Millisecond})
	<-c.Incoming()
	ctx, cancel := context.WithCancel(t.Context())
	big := bytes.Repeat([]byte("x"), 4<<20) // more than a pipe holds
	cancel()
	if err := c.Send(ctx, big); !errors.Is(err, context.Canceled) {
		t.Fatalf("Send with a cancelled ctx: got %v, want context.Canceled", err)
	}
	dl := newExpiringCtx(time.Now().Add(time.Minute)) // the write can never finish
	sent := make(chan error, 1)
	go func() { sent <- c.Send(dl, big) }()
	waitPipeHolds(t, c.w.f, dl.bound)
	dl.expire()
	if err := <-sent; !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Send to a server that does not read: got %v, want context.DeadlineExceeded", err)
	}
	after, cancel := context.WithTimeout(t.Context(), 10*time.Second) // the pipe is full: a send that writes waits
	defer cancel()
	if err := c.Send(after, []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "cancelled mid-message") {
		t.Fatalf("Send after a torn write: got %v, want the torn-write error", err)
	}
}

// expiringCtx is a context whose deadline passes when expire is called;
// Deadline reports bound, when it passes at the latest.
type expiringCtx struct {
	bound time.Time
	done  chan struct{}
	once  sync.Once
}

func newExpiringCtx(bound time.Time) *expiringCtx {
	return &expiringCtx{bound: bound, done: make(chan struct{})}
}

func (c *expiringCtx) Deadline() (time.Time, bool) { return c.bound, true }
func (c *expiringCtx) Done() <-chan struct{}       { return c.done }
func (c *expiringCtx) Value(any) any               { return nil }
func (c *expiringCtx) expire()                     { c.once.Do(func() { close(c.done) }) }

func (c *expiringCtx) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// waitPipeHolds waits until the pipe whose write end is f holds bytes not
// yet read, failing the test at bound.
func waitPipeHolds(t *testing.T, f *os.File, bound time.Time) {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	for {
		var n int
		var ierr error
		if err := rc.Control(func(fd uintptr) { n, ierr = pipeBytes(int(fd)) }); err != nil {
			t.Fatal(err)
		}
		if errors.Is(ierr, errors.ErrUnsupported) {
			t.Skip("cannot count the unread bytes of a pipe on this system (no FIONREAD)")
		}
		if ierr != nil {
			t.Fatalf("unread bytes of the pipe to the server's stdin: %v", ierr)
		}
		if n > 0 {
			return
		}
		if time.Now().After(bound) {
			t.Fatalf("the pipe to the server's stdin is still empty at %s", bound.Format(time.TimeOnly))
		}
		time.Sleep(time.Millisecond)
	}
}

func TestStdioDialErrors(t *testing.T) {
	tests := []struct {
		name string
		argv []string
		want string
	}{
		{"no command", nil, "no server command"},
		{"no such program", []string{"replayctl-no-such-server-xyz"}, "no such program in PATH"},
		{"not executable", []string{"/dev/null"}, "start server \"/dev/null\""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Stdio{Command: tc.argv}.Dial(t.Context(), "s")
			if err == nil {
				_ = c.Close()
				t.Fatalf("got a connection, want an error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

// A server that closes its stdin and exits on its own a moment later (as
// one that checks its configuration first): the Send that finds the pipe
// closed says the exit status and the last stderr lines, not only that the
// server stopped reading. The server waits on a FIFO between closing stdin
// and exiting, so the write always fails before the exit.
func TestStdioSendToExitingServerSaysStatus(t *testing.T) {
	fifo := t.TempDir() + "/release"
	testos.Mkfifo(t, fifo)
	script := `exec 0<&-; echo "Error: missing API_KEY" >&2; read x < "$1"; exit 1`
	c := dialStdio(t, Stdio{Command: []string{"sh", "-c", script, "sh", fifo}})
	// Opening the write end returns once the server has closed its stdin
	// and opened the read end; closing it lets the server exit.
	release, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatalf("open fifo: %v", err)
	}
	sent := make(chan error, 1)
	go func() { sent <- c.Send(t.Context(), []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize"}`)) }()
	_ = release.Close()
	err = <-sent
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Status != 1 || !strings.Contains(ee.Stderr, "Error: missing API_KEY") {
		t.Fatalf("Send: got %v, want the *ExitError with status 1 and the stderr line", err)
	}
	if !errors.Is(err, ErrTarget) {
		t.Errorf("errors.Is(Send's error, ErrTarget): got false, want true")
	}
}

// A server that closes its stdin and goes on running: the Send that finds
// the pipe closed waits for it to exit no longer than its bound (or its
// ctx), then gives the send's own error, wrapping ErrTarget; Close stops
// the server (goleak checks that no goroutine is left).
func TestStdioSendToServerThatClosedStdinAndRuns(t *testing.T) {
	fifo := t.TempDir() + "/closed"
	testos.Mkfifo(t, fifo)
	script := `exec 0<&-; echo closed > "$1"; exec sleep 600`
	c := dialStdio(t, Stdio{Command: []string{"sh", "-c", script, "sh", fifo}, StopTimeout: 100 * time.Millisecond})
	// The write end opens once the server has closed its stdin.
	closed, err := os.ReadFile(fifo)
	if err != nil || strings.TrimSpace(string(closed)) != "closed" {
		t.Fatalf("read fifo: %q, %v", closed, err)
	}
	msg := []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize"}`)
	err = c.Send(t.Context(), msg)
	var ee *ExitError
	if err == nil || !errors.Is(err, ErrTarget) || errors.As(err, &ee) || !strings.Contains(err.Error(), "no longer reads its stdin") {
		t.Fatalf("Send: got %v, want the send's error wrapping ErrTarget (no exit to report)", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := c.Send(ctx, msg); err == nil {
		t.Fatalf("Send with its ctx done: got nil, want an error")
	}
	_ = c.Close() // the server is stopped: SIGTERM after StopTimeout
}
