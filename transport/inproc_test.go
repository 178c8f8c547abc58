package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"
	"go.uber.org/goleak"
)

// sdkServer is an official Go SDK server with two tools: echo, and
// progress (a progress notification, then the answer).
func sdkServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "inproc-test", Version: "0"}, nil)
	type echoIn struct {
		Message string `json:"message"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "says the message back"},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Echo: " + in.Message}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "progress", Description: "reports progress, then answers"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			if tok := req.Params.GetProgressToken(); tok != nil {
				p := &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 2, Message: "halfway"}
				if err := req.Session.NotifyProgress(ctx, p); err != nil {
					return nil, nil, err
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
		})
	return s
}

// sdkPipe serves a fresh SDK server per Dial over the Pipe's streams.
func sdkPipe(t testing.TB) Pipe {
	return Pipe{Name: "go-sdk", Logger: benchOrTestLogger(t), Serve: func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
		return sdkServer().Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
	}}
}

// sdkHandler serves one SDK server's sessions with its Streamable HTTP
// handler.
func sdkHandler() http.Handler {
	s := sdkServer()
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
}

func benchOrTestLogger(t testing.TB) zerolog.Logger {
	if tt, ok := t.(*testing.T); ok {
		return testLogger(tt)
	}
	return zerolog.Nop()
}

// inProcessTargets are the two in-process dialers serving SDK servers.
func inProcessTargets(t *testing.T) []struct {
	name string
	d    Dialer
} {
	return []struct {
		name string
		d    Dialer
	}{
		{"handler", Handler{Handler: sdkHandler(), Logger: testLogger(t)}},
		{"pipe", sdkPipe(t)},
	}
}

func dialIn(t *testing.T, d Dialer, session string) Conn {
	t.Helper()
	c, err := d.Dial(t.Context(), session)
	if err != nil {
		t.Fatalf("Dial %s: %v", session, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// progressCall calls the progress tool as id 5 and checks that the
// notification comes before the answer.
func progressCall(t *testing.T, c Conn) {
	t.Helper()
	send(t, c, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":"p1"}}}`)
	_, call, before := await(t, c, 5)
	if call.Error != nil || !strings.Contains(string(call.Result), "done") {
		t.Fatalf("tools/call progress: got result %s error %v, want done", call.Result, call.Error)
	}
	var msgs []string
	for _, in := range before {
		msgs = append(msgs, string(in.Msg))
	}
	if len(msgs) != 1 || !strings.Contains(msgs[0], `"notifications/progress"`) {
		t.Fatalf("before the answer: got %q, want the progress notification", msgs)
	}
}

func TestInProcessGoSDK(t *testing.T) {
	for _, tc := range inProcessTargets(t) {
		t.Run(tc.name, func(t *testing.T) {
			c := dialIn(t, tc.d, "s1")
			init := mcpSession(t, c, "echo", `{"message":"in process"}`, "Echo: in process")
			progressCall(t, c)
			switch c := c.(type) {
			case *HTTPConn:
				if init.HTTP == nil || init.HTTP.Status != 200 || c.SessionID() == "" || c.ProtocolVersion() == "" {
					t.Errorf("got HTTP meta %+v session %q version %q, want status 200 and both set", init.HTTP, c.SessionID(), c.ProtocolVersion())
				}
			case *PipeConn:
				if init.HTTP != nil || init.SSE != nil {
					t.Errorf("got HTTP %+v SSE %+v, want no transport metadata over a pipe", init.HTTP, init.SSE)
				}
			default:
				t.Fatalf("got a %T, want *HTTPConn or *PipeConn", c)
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

func TestInProcessConcurrentSessions(t *testing.T) {
	const sessions = 8
	for _, tc := range inProcessTargets(t) {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex // guards ids
			ids := map[string]bool{}
			t.Run("sessions", func(t *testing.T) {
				for i := range sessions {
					t.Run(fmt.Sprint(i), func(t *testing.T) {
						t.Parallel()
						c := dialIn(t, tc.d, fmt.Sprintf("s%d", i))
						msg := fmt.Sprintf("session %d", i)
						mcpSession(t, c, "echo", `{"message":"`+msg+`"}`, "Echo: "+msg)
						progressCall(t, c)
						if hc, ok := c.(*HTTPConn); ok {
							mu.Lock()
							ids[hc.SessionID()] = true
							mu.Unlock()
						}
					})
				}
			})
			if tc.name == "handler" && len(ids) != sessions {
				t.Errorf("got %d distinct session ids %v, want %d", len(ids), ids, sessions)
			}
		})
	}
}

func TestInProcessCloseLeavesNoGoroutines(t *testing.T) {
	for _, tc := range inProcessTargets(t) {
		t.Run(tc.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			c, err := tc.d.Dial(t.Context(), "s1")
			if err != nil {
				t.Fatal(err)
			}
			mcpSession(t, c, "echo", `{"message":"bye"}`, "Echo: bye")
			if err := c.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
		})
	}
}

func TestPipeServeEndsEarly(t *testing.T) {
	boom := errors.New("config.yaml: no such file")
	tests := []struct {
		name   string
		serve  func() error
		is     error
		inText string
	}{
		{"error", func() error { return boom }, boom, "config.yaml: no such file"},
		{"nil", func() error { return nil }, nil, "Serve returned nil"},
		{"panic", func() error { panic("nil map") }, nil, "panic: nil map"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := dialIn(t, Pipe{Name: "early", Logger: testLogger(t), Serve: func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
				fmt.Fprintln(out, "starting (not JSON)")
				fmt.Fprintln(out, `{"jsonrpc":"2.0","method":"last words"}`)
				return tc.serve()
			}}, "s1")
			var got []string
			for in := range c.Incoming() {
				got = append(got, string(in.Msg))
			}
			if len(got) != 1 || !strings.Contains(got[0], "last words") {
				t.Errorf("got messages %q, want the one JSON line written before Serve returned", got)
			}
			err := c.Err()
			var se *ServeError
			if !errors.As(err, &se) || se.Name != "early" || !errors.Is(err, ErrTarget) {
				t.Fatalf("Err: got %v (%T), want a *ServeError of \"early\" wrapping ErrTarget", err, err)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("Err: got %v, want it to wrap %v", err, tc.is)
			}
			if !strings.Contains(err.Error(), tc.inText) {
				t.Errorf("Err: got %q, want it to contain %q", err, tc.inText)
			}
			if err := c.Send(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); !errors.Is(err, ErrTarget) {
				t.Errorf("Send after Serve returned: got %v, want an error wrapping ErrTarget", err)
			}
		})
	}
}

func TestPipeServerNeverReads(t *testing.T) {
	c := dialIn(t, Pipe{Logger: testLogger(t), Serve: func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
		<-ctx.Done()
		return ctx.Err()
	}}, "s1")
	big := []byte(`"` + strings.Repeat("x", 4<<20) + `"`) // more than a pipe holds
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	err := c.Send(ctx, big)
	if !errors.Is(err, ErrTarget) || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "did not read its input") {
		t.Fatalf("Send to a server that does not read: got %v, want ErrTarget and DeadlineExceeded, \"did not read its input\"", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := c.Err(); err != nil {
		t.Errorf("Err after Close: got %v, want nil", err)
	}
}

// Close does not wait long for a Serve that ignores what should stop it.
func TestPipeCloseIsBounded(t *testing.T) {
	tests := []struct {
		name  string
		serve func(ctx context.Context, in io.Reader, release <-chan struct{}) error
	}{
		{"reads until EOF, ignores ctx", func(_ context.Context, in io.Reader, _ <-chan struct{}) error {
			_, err := io.Copy(io.Discard, in)
			return err
		}},
		{"ignores ctx and input", func(_ context.Context, _ io.Reader, release <-chan struct{}) error {
			<-release
			return nil
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			release, returned := make(chan struct{}), make(chan struct{})
			c := dialIn(t, Pipe{Logger: testLogger(t), StopTimeout: 50 * time.Millisecond,
				Serve: func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
					defer close(returned)
					return tc.serve(ctx, in, release)
				}}, "s1")
			send(t, c, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			closed := make(chan struct{})
			go func() { _ = c.Close(); close(closed) }()
			select {
			case <-closed:
			case <-time.After(exchangeTimeout):
				t.Fatalf("Close did not return within %s", exchangeTimeout)
			}
			close(release)
			<-returned
		})
	}
}

// TestPipeOwnServer: a pipe's connection says whether a reconnect
// reaches a new server (OwnServer) as its Pipe was told: by default it
// does not (Serve runs one server shared by its calls, as the example
// does and the engine then keeps a durable task's id across a
// reconnect); with Pipe.OwnServer it does, as stdio's connections do.
func TestPipeOwnServer(t *testing.T) {
	shared := sdkServer()
	for _, tc := range []struct {
		name string
		p    Pipe
		want bool
	}{
		{"one server shared", Pipe{Logger: testLogger(t), Serve: func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
			return shared.Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
		}}, false},
		{"a server per call", func() Pipe { p := sdkPipe(t); p.OwnServer = true; return p }(), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialIn(t, tc.p, "s1")
			mcpSession(t, c, "echo", `{"message":"own"}`, "Echo: own")
			o, ok := c.(OwnServer)
			if !ok {
				t.Fatalf("a %T is not an OwnServer", c)
			}
			if got := o.OwnServer(); got != tc.want {
				t.Errorf("OwnServer() = %v, want %v", got, tc.want)
			}
		})
	}
}
