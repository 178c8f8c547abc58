package serve_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replayctl/replayctl/serve"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

func TestParseMode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want serve.Mode
		ok   bool
	}{
		{"replay", serve.ModeReplay, true},
		{"record", serve.ModeRecord, true},
		{"once", serve.ModeOnce, true},
		{"new", serve.ModeNew, true},
		{"", 0, false},
		{"New", 0, false},
		{"replay ", 0, false},
	} {
		got, err := serve.ParseMode(tc.in)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("ParseMode(%q) = %v, %v; want %v (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
		if tc.ok && got.String() != tc.in {
			t.Errorf("ParseMode(%q).String() = %q", tc.in, got.String())
		}
	}
	if got := strings.Join(serve.Modes(), ","); got != "replay,record,once,new" {
		t.Errorf("Modes() = %s", got)
	}
}

// TestNewRefusesIncompleteModes: a mode without what it needs is an
// *InputError from New, before anything is read or served.
func TestNewRefusesIncompleteModes(t *testing.T) {
	for _, tc := range []struct {
		mode serve.Mode
		want string
	}{
		{serve.ModeNew, "Upstream"},
		{serve.ModeRecord, "WithRecorder"},
		{serve.ModeOnce, "WithRecorder"},
		{serve.Mode(9), "unknown mode"},
	} {
		_, err := serve.New("no-such.jsonl", serve.WithMode(tc.mode))
		var ie *serve.InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(WithMode(%v)) = %v; want an *InputError naming %s", tc.mode, err, tc.want)
		}
	}
}

// TestRunBadTapeIsInputError: a tape that cannot be read is an
// *InputError, with no Result, and nothing is listened on.
func TestRunBadTapeIsInputError(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte("not a tape\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	listened := false
	s, err := serve.New(bad, serve.WithListener(func() (net.Listener, error) {
		listened = true
		return nil, errors.New("not reached")
	}))
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(t.Context())
	var ie *serve.InputError
	if res != nil || !errors.As(err, &ie) || listened {
		t.Errorf("Run of a bad tape: %v, %v (listened %v); want no result, an *InputError, no listener", res, err, listened)
	}
}

// TestModeNewFromGo: serve.ModeNew run from a program, no CLI: a request
// the tape has no answer for goes to the upstream (a go-sdk server over
// Streamable HTTP on loopback), its answer comes back to the client, and
// once Run returns the exchange is in the tape, the journal gone; a
// second Run answers it from the tape alone.
func TestModeNewFromGo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "quickstart.jsonl")
	b, err := os.ReadFile("../examples/quickstart.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return echoServer() }, nil))
	defer up.Close()

	before := countMessages(t, path)
	var notices bytes.Buffer
	res := callEcho(t, path, "new to the tape", &notices,
		serve.WithMode(serve.ModeNew), serve.Upstream(transport.HTTP{URL: up.URL}))
	if res.Forwarded != 1 || res.NotForwarded != 0 || res.MissCount != 0 {
		t.Errorf("mode new: forwarded %d, not %d, misses %d; want 1, 0, 0 (a forwarded miss is answered)", res.Forwarded, res.NotForwarded, res.MissCount)
	}
	if !strings.Contains(notices.String(), "new: 1 miss forwarded to the upstream and added to "+path) {
		t.Errorf("notices:\n%s\nwant what was added", notices.String())
	}
	if _, err := os.Stat(serve.Journal(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the journal %s is left after Run: %v", serve.Journal(path), err)
	}
	up.Close() // the next run answers from the tape alone
	res = callEcho(t, path, "new to the tape", nil)
	if res.MissCount != 0 {
		t.Errorf("replay of the added session: %d miss(es): %v", res.MissCount, res.Misses)
	}
	if n := countMessages(t, path); n <= before {
		t.Errorf("the tape holds %d messages, %d before; want the added ones too", n, before)
	}
}

// callEcho serves path with opts over HTTP, calls the echo tool with
// msg, checks the answer, and returns Run's result.
func callEcho(t *testing.T, path, msg string, notices *bytes.Buffer, opts ...serve.Option) *serve.Result {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	urls := make(chan string, 1)
	opts = append(opts, serve.Listen("127.0.0.1:0"),
		serve.OnListening(func(a net.Addr) { urls <- "http://" + a.String() + "/mcp" }))
	if notices != nil {
		opts = append(opts, serve.Notices(notices))
	}
	s, err := serve.New(path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	type ran struct {
		res *serve.Result
		err error
	}
	done := make(chan ran, 1)
	go func() {
		res, err := s.Run(ctx)
		done <- ran{res, err}
	}()
	var url string
	select {
	case url = <-urls:
	case r := <-done:
		t.Fatalf("Run before listening: %v", r.err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "serve-test", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": msg}})
	if err != nil {
		t.Fatalf("call echo: %v", err)
	}
	if got := out.Content[0].(*mcp.TextContent).Text; got != "Echo: "+msg {
		t.Errorf("echo answered %q; want %q", got, "Echo: "+msg)
	}
	_ = cs.Close()
	cancel()
	r := <-done
	if r.err != nil || r.res == nil {
		t.Fatalf("Run: %v, %v", r.res, r.err)
	}
	return r.res
}

func echoServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1.0.0"}, nil)
	type in struct {
		Message string `json:"message"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Echo: " + a.Message}}}, nil, nil
	})
	return s
}

func countMessages(t *testing.T, path string) int {
	t.Helper()
	r, err := tape.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	for {
		if _, err := r.Next(); err != nil {
			return n
		}
		n++
	}
}

// TestStdioFromGo: without a listener Run serves one client over the
// streams given with Stdio, and returns once the client closes its end,
// with what it missed.
func TestStdioFromGo(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var served []serve.Result
	s, err := serve.New("../examples/quickstart.jsonl", serve.Stdio(inR, outW),
		serve.OnServed(func(r serve.Result) { served = append(served, r) }))
	if err != nil {
		t.Fatal(err)
	}
	type ran struct {
		res *serve.Result
		err error
	}
	done := make(chan ran, 1)
	go func() {
		res, err := s.Run(t.Context())
		outW.Close()
		done <- ran{res, err}
	}()
	lines := bufio.NewScanner(outR)
	send := func(msg string) {
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if !lines.Scan() || !strings.Contains(lines.Text(), `"serverInfo"`) {
		t.Fatalf("initialize: got %q", lines.Text())
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","arguments":{"message":"hello, replay"}}}`)
	if !lines.Scan() || !strings.Contains(lines.Text(), `"id":"a"`) || !strings.Contains(lines.Text(), "Echo: hello, replay") {
		t.Fatalf("tools/call: got %q", lines.Text())
	}
	send(`{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"echo","arguments":{"message":"never recorded"}}}`)
	if !lines.Scan() || !strings.Contains(lines.Text(), `"id":"b"`) || !strings.Contains(lines.Text(), `"error"`) {
		t.Fatalf("a miss: got %q", lines.Text())
	}
	inW.Close()
	go func() { _, _ = io.Copy(io.Discard, outR) }() // drain whatever else comes
	r := <-done
	if r.err != nil || r.res == nil || r.res.MissCount != 1 || len(served) != 1 || served[0].MissCount != 1 {
		t.Fatalf("Run: %+v, %v (served %d); want one miss, seen by OnServed", r.res, r.err, len(served))
	}
}

// TestOnExchange: the OnExchange hook is told each message of a stdio
// client with its verdict: the recorded call served, an unrecorded one a
// miss with the miss's message, a notification taken; in mode New the
// miss forwarded to the upstream. Seqs count each session's messages
// from 1.
func TestOnExchange(t *testing.T) {
	var mu sync.Mutex
	var seen []serve.Exchange
	var ended []string
	hook := serve.OnExchange(func(x serve.Exchange) {
		mu.Lock()
		defer mu.Unlock()
		x.Request, x.Answer = bytes.Clone(x.Request), bytes.Clone(x.Answer)
		seen = append(seen, x)
	})
	endHook := serve.OnSessionEnded(func(s string, _ time.Time) {
		mu.Lock()
		defer mu.Unlock()
		ended = append(ended, s)
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s, err := serve.New("../examples/quickstart.jsonl", serve.Stdio(inR, outW), hook, endHook)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.Run(t.Context())
		outW.Close()
		done <- err
	}()
	lines := bufio.NewScanner(outR)
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","arguments":{"message":"hello, replay"}}}`,
		`{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"echo","arguments":{"message":"never recorded"}}}`,
	} {
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(msg, `"id"`) && !lines.Scan() {
			t.Fatalf("no answer to %s", msg)
		}
	}
	inW.Close()
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	slices.SortFunc(seen, func(a, b serve.Exchange) int { return int(a.Seq - b.Seq) })
	want := []struct {
		kind, method, name string
		verdict            serve.Verdict
	}{
		{"request", "initialize", "", serve.Served},
		{"notification", "notifications/initialized", "", serve.Taken},
		{"request", "tools/call", "echo", serve.Served},
		{"request", "tools/call", "echo", serve.Missed},
	}
	if len(seen) != len(want) {
		t.Fatalf("the hook saw %d exchanges: %+v; want %d", len(seen), seen, len(want))
	}
	// The notification has no answer to wait for: the stdio session may
	// take it and the request after it in either order (each message is
	// handled on its own goroutine), so those two seqs are 2 and 3 either
	// way round.
	if seen[1].Kind == "request" {
		seen[1], seen[2] = seen[2], seen[1]
		seen[1].Seq, seen[2].Seq = seen[2].Seq, seen[1].Seq
	}
	for i, w := range want {
		x := seen[i]
		if x.Seq != int64(i+1) || x.Session != "stdio" || x.Kind != w.kind || x.Method != w.method || x.Name != w.name || x.Verdict != w.verdict {
			t.Errorf("exchange %d: got seq %d session %q %s %s %q %s; want seq %d session stdio %s %s %q %s",
				i, x.Seq, x.Session, x.Kind, x.Method, x.Name, x.Verdict, i+1, w.kind, w.method, w.name, w.verdict)
		}
		if x.End.Before(x.Start) || (w.kind == "request") != (x.Answer != nil) {
			t.Errorf("exchange %d: start %v end %v answer %q", i, x.Start, x.End, x.Answer)
		}
	}
	if d := seen[3].Detail; !strings.Contains(d, "closest recorded") {
		t.Errorf("the miss's detail %q: want the miss's message", d)
	}
	if !slices.Equal(ended, []string{"stdio"}) {
		t.Errorf("sessions ended: %v, want [stdio]", ended)
	}

	// Mode New: the miss goes to the upstream, and is told as forwarded.
	path := filepath.Join(t.TempDir(), "quickstart.jsonl")
	b, err := os.ReadFile("../examples/quickstart.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return echoServer() }, nil))
	defer up.Close()
	seen = nil
	mu.Unlock()
	callEcho(t, path, "new to the tape", nil, serve.WithMode(serve.ModeNew), serve.Upstream(transport.HTTP{URL: up.URL}), hook)
	mu.Lock()
	var verdicts []string
	for _, x := range seen {
		if x.Method == "tools/call" {
			verdicts = append(verdicts, string(x.Verdict))
		}
	}
	if !slices.Equal(verdicts, []string{"forwarded"}) {
		t.Errorf("mode new's tools/call: verdicts %v, want [forwarded]", verdicts)
	}
}
