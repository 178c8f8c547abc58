package transport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The go-sdk client, an independent implementation of the client side,
// against StreamableHandler and LegacyHandler serving fakeServer.

// sdkClient is a go-sdk client that answers sampling with "Paris" and
// collects the progress and log notifications it gets.
type sdkClient struct {
	*sdk.Client
	progress chan float64 // buffered: the handler never blocks
	logs     chan string
}

func newSDKClient() *sdkClient {
	c := &sdkClient{progress: make(chan float64, 100), logs: make(chan string, 100)}
	c.Client = sdk.NewClient(&sdk.Implementation{Name: "servetest", Version: "1"}, &sdk.ClientOptions{
		CreateMessageHandler: func(context.Context, *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			return &sdk.CreateMessageResult{Role: "assistant", Model: "fake", Content: &sdk.TextContent{Text: "Paris"}}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			c.progress <- r.Params.Progress
		},
		LoggingMessageHandler: func(_ context.Context, r *sdk.LoggingMessageRequest) {
			s, _ := r.Params.Data.(string)
			c.logs <- s
		},
	})
	return c
}

// next waits for the next value on ch: the client's handlers run on
// goroutines of their own, so a notification sent before an answer may
// be handled after the call returns.
func next[T any](ctx context.Context, t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-ctx.Done():
		var zero T
		t.Fatalf("no %s: %v", what, ctx.Err())
		return zero
	}
}

// callText calls a tool and returns the text of its answer.
func callText(ctx context.Context, t *testing.T, cs *sdk.ClientSession, name string, args map[string]any, meta sdk.Meta) string {
	t.Helper()
	params := &sdk.CallToolParams{Name: name, Arguments: args}
	if meta != nil {
		params.Meta = meta
	}
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("call %s: %d contents, want 1", name, len(res.Content))
	}
	tc, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("call %s: content %T, want text", name, res.Content[0])
	}
	return tc.Text
}

// serveFake serves a fakeServer over HTTP on loopback. stop closes the
// handler, then the server, which waits for every request in progress
// to end; it runs at cleanup if not before.
func serveFake(t *testing.T, opts ...ServerOption) (fake *fakeServer, stop func(), url string) {
	t.Helper()
	fake = &fakeServer{}
	h := NewStreamableHandler(fake, opts...)
	srv := httptest.NewServer(h)
	var once sync.Once
	stop = func() {
		once.Do(func() {
			if err := h.Close(); err != nil {
				t.Errorf("handler Close: %v", err)
			}
			srv.Close()
		})
	}
	t.Cleanup(stop)
	return fake, stop, srv.URL + "/mcp"
}

func TestStreamableGoSDKClient(t *testing.T) {
	for _, tc := range []struct {
		name      string
		version   string // "" lets the client choose: 2026-07-28
		stateless bool
	}{
		{"2025-11-25", "2025-11-25", false},
		{"2025-06-18", "2025-06-18", false},
		{"2026-07-28", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake, stop, url := serveFake(t)
			ctx, cancel := context.WithTimeout(t.Context(), exchangeTimeout)
			defer cancel()
			hc := &http.Client{Transport: &http.Transport{}}
			defer hc.CloseIdleConnections()
			c := newSDKClient()
			var opts *sdk.ClientSessionOptions
			if tc.version != "" {
				opts = &sdk.ClientSessionOptions{ProtocolVersion: tc.version}
			}
			cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, opts)
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cs.Close()
			want := tc.version
			if want == "" {
				want = "2026-07-28"
			}
			if got := cs.InitializeResult().ProtocolVersion; got != want {
				t.Errorf("negotiated %q, want %q", got, want)
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatalf("list tools: %v", err)
			}
			if len(tools.Tools) != 3 {
				t.Errorf("got %d tools, want 3", len(tools.Tools))
			}
			if got := callText(ctx, t, cs, "echo", map[string]any{"text": "héllo"}, sdk.Meta{"progressToken": "p1"}); got != "héllo" {
				t.Errorf("echo: got %q, want %q", got, "héllo")
			}
			if got := next(ctx, t, "progress notification", c.progress); got != 1 {
				t.Errorf("progress %v, want 1", got)
			}
			if !tc.stateless {
				if got := callText(ctx, t, cs, "sample", nil, nil); got != "sampled Paris" {
					t.Errorf("sample: got %q, want %q", got, "sampled Paris")
				}
				if got := callText(ctx, t, cs, "log", nil, nil); got != "logged" {
					t.Errorf("log: got %q", got)
				}
				// sent unsolicited: over the GET stream
				if got := next(ctx, t, "log notification", c.logs); got != "fake log" {
					t.Errorf("log notification %q, want %q", got, "fake log")
				}
			}
			if err := cs.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
			// A handler may still be closing its stateless session after
			// its answer went out: count once every request has ended.
			stop()
			infos := fake.sessionInfos()
			if len(infos) == 0 {
				t.Fatal("no session opened")
			}
			for _, info := range infos {
				if info.Stateless != tc.stateless {
					t.Errorf("session %s: Stateless %v, want %v", info.ID, info.Stateless, tc.stateless)
				}
				if info.ProtocolVersion != want {
					t.Errorf("session %s: ProtocolVersion %q, want %q", info.ID, info.ProtocolVersion, want)
				}
			}
			if tc.stateless {
				// discover, tools/list, tools/call: one session each.
				if got := fake.opened.Load(); got != 3 {
					t.Errorf("stateless: %d sessions opened, want 3 (one per POST)", got)
				}
			} else if got := fake.opened.Load(); got != 1 {
				t.Errorf("%d sessions opened, want 1", got)
			}
			if o, c := fake.opened.Load(), fake.closed.Load(); o != c {
				t.Errorf("%d sessions opened, %d closed after the client's DELETE", o, c)
			}
		})
	}
}

func TestLegacyGoSDKClient(t *testing.T) {
	fake := &fakeServer{}
	h := NewLegacyHandler(fake)
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer h.Close()
	ctx, cancel := context.WithTimeout(t.Context(), exchangeTimeout)
	defer cancel()
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	c := newSDKClient()
	cs, err := c.Connect(ctx, &sdk.SSEClientTransport{Endpoint: srv.URL + "/sse", HTTPClient: hc}, &sdk.ClientSessionOptions{ProtocolVersion: "2024-11-05"})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if got := callText(ctx, t, cs, "echo", map[string]any{"text": "old"}, sdk.Meta{"progressToken": "p"}); got != "old" {
		t.Errorf("echo: %q", got)
	}
	next(ctx, t, "progress notification", c.progress)
	if got := callText(ctx, t, cs, "sample", nil, nil); got != "sampled Paris" {
		t.Errorf("sample: %q", got)
	}
	callText(ctx, t, cs, "log", nil, nil)
	if got := next(ctx, t, "log notification", c.logs); got != "fake log" {
		t.Errorf("log: %q", got)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	// The GET's handler closes the session once it sees the client gone.
	srv.Close()
	if o, cl := fake.opened.Load(), fake.closed.Load(); o != 1 || cl != 1 {
		t.Errorf("sessions opened %d closed %d, want 1 and 1", o, cl)
	}
}
