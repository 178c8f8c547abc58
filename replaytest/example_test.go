package replaytest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/replaytest"
)

// Replay a recorded session against your server's command, in a test of
// your project (func TestRecordedSession(t *testing.T) in a _test.go
// file). Each failed message is one t.Error.
func ExampleRun() {
	t := exampleT() // in your test: its *testing.T
	defer t.end()
	rep := replaytest.Run(t, "../examples/go-sdk-2025.jsonl",
		replay.Against(replay.Command("go", "tool", "everything-server")))
	fmt.Println(rep.Passed(), rep.Validation.Checked, "answers checked")
	// Output: true 15 answers checked
}

// Replay against a go-sdk server in the same process: its Streamable HTTP
// handler, no port. What the server says of itself is not compared.
func ExampleRun_inProcess() {
	t := exampleT()
	defer t.end()
	server := everythingInGo() // mcp.NewServer and mcp.AddTool, as in your main
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	rep := replaytest.Run(t, "../examples/everything.jsonl",
		replay.Against(replay.Handler(handler)),
		replay.Ignore("result.serverInfo", "result.capabilities", "result.instructions", "result.tools", "result.prompts", "result.cacheScope", "result.ttlMs"))
	fmt.Println(rep.Passed(), rep.Validation.Checked, "answers checked")
	// Output: true 28 answers checked
}

// Or over a pair of streams, as over stdio, with a server per session.
func ExampleRun_streams() {
	t := exampleT()
	defer t.end()
	rep := replaytest.Run(t, "../examples/everything.jsonl",
		replay.Against(replay.Streams(func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
			server := everythingInGo()
			return server.Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
		})),
		replay.Sessions(3),
		replay.Ignore("result.serverInfo", "result.capabilities", "result.instructions", "result.tools", "result.prompts", "result.cacheScope", "result.ttlMs"))
	fmt.Println(rep.Passed(), rep.Validation.Checked, "answers checked")
	// Output: true 84 answers checked
}

// With a config: validation rules, transformations, thresholds. Options
// given here override the file (made for debug: stepped, pausing at
// errors). Without a target,
// the tape's own answers (the built-in mock) are checked: a way to try a
// config.
func ExampleRun_config() {
	t := exampleT()
	defer t.end()
	rep := replaytest.Run(t, "../examples/quickstart.jsonl",
		replay.ConfigFile("../examples/debug.yaml"),
		replay.WithSpeed(replay.Fast()), replay.OnError("continue"),
		replay.Thresholds("error_rate<1%"))
	fmt.Println(rep.Passed(), rep.Validation.Failed, "failed")
	// Output: true 0 failed
}

// Test a client or an agent against a recorded server: Server serves the
// tape on 127.0.0.1 for the test's lifetime and returns its Streamable
// HTTP endpoint; a request the tape has no answer for fails the test. A
// client of any revision connects as to the server recorded: here the
// go-sdk's, which asks server/discover first, against a 2025-11-25 tape.
func ExampleServer() {
	t := exampleT()
	defer t.end()
	url := replaytest.Server(t, "../examples/go-sdk-2025.jsonl")
	client := mcp.NewClient(&mcp.Implementation{Name: "my-agent", Version: "1.0.0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	// … the code under test uses cs, and gets the recorded answers.
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "test_simple_text", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(cs.InitializeResult().ProtocolVersion, res.Content[0].(*mcp.TextContent).Text)
	// Output: 2025-11-25 This is a simple text response for testing.
}

// standIn stands in for the *testing.T of a test in these examples, which
// go test runs with none: what fails prints, and end runs the cleanups.
type standIn struct {
	testing.TB // the methods replaytest does not call: nil
	ctx        context.Context
	cancel     context.CancelFunc
	dir        string
	cleanups   []func()
	failed     bool
}

func exampleT() *standIn {
	ctx, cancel := context.WithCancel(context.Background())
	return &standIn{ctx: ctx, cancel: cancel}
}

func (t *standIn) Helper()                   {}
func (t *standIn) Context() context.Context  { return t.ctx }
func (t *standIn) Cleanup(f func())          { t.cleanups = append(t.cleanups, f) }
func (t *standIn) Failed() bool              { return t.failed }
func (t *standIn) Log(...any)                {}
func (t *standIn) Logf(string, ...any)       {}
func (t *standIn) Error(args ...any)         { t.failed = true; fmt.Println(args...) }
func (t *standIn) Errorf(f string, a ...any) { t.Error(fmt.Sprintf(f, a...)) }
func (t *standIn) Fatal(args ...any)         { t.Error(args...); panic("stand-in test failed") }
func (t *standIn) Fatalf(f string, a ...any) { t.Fatal(fmt.Sprintf(f, a...)) }
func (t *standIn) TempDir() string           { return t.ArtifactDir() }
func (t *standIn) ArtifactDir() string {
	if t.dir == "" {
		var err error
		if t.dir, err = os.MkdirTemp("", "replaytest-example-"); err != nil {
			t.Fatal(err)
		}
	}
	return t.dir
}

// end runs the cleanups, last first, as go test does after a test.
func (t *standIn) end() {
	t.cancel()
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
	if t.dir != "" {
		os.RemoveAll(t.dir)
	}
}
