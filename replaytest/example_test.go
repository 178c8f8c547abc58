package replaytest_test

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/replaytest"
)

// Replay a recorded session against your server's command, in a test of
// your project. Each failed message is one t.Error.
func ExampleRun() {
	test := func(t *testing.T) {
		replaytest.Run(t, "testdata/session.jsonl",
			replay.Against(replay.Command("node", "build/server.js")))
	}
	_ = test // func TestRecordedSession(t *testing.T) { … } in your _test.go file
}

// Replay against a go-sdk server in the same process: its Streamable HTTP
// handler, no port. What the server says of itself is not compared.
func ExampleRun_inProcess() {
	test := func(t *testing.T) {
		server := mcp.NewServer(&mcp.Implementation{Name: "mine", Version: "1.0.0"}, nil)
		// mcp.AddTool(server, …) as in your main.
		handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
		replaytest.Run(t, "testdata/session.jsonl",
			replay.Against(replay.Handler(handler)),
			replay.Ignore("result.serverInfo"))
	}
	_ = test
}

// Or over a pair of streams, as over stdio, with a server per session.
func ExampleRun_streams() {
	test := func(t *testing.T) {
		replaytest.Run(t, "testdata/session.jsonl",
			replay.Against(replay.Streams(func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
				server := mcp.NewServer(&mcp.Implementation{Name: "mine", Version: "1.0.0"}, nil)
				return server.Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
			})))
	}
	_ = test
}

// With a config: validation rules, transformations, thresholds. Options
// given here override the file.
func ExampleRun_config() {
	test := func(t *testing.T) {
		rep := replaytest.Run(t, "testdata/session.jsonl",
			replay.ConfigFile("testdata/replay.yaml"),
			replay.Thresholds("p99<200ms"),
			replay.Against(replay.HTTP("http://127.0.0.1:3000/mcp").WithHeader("Authorization", "Bearer ${TOKEN}")))
		if rep != nil && rep.Performance.Requests == 0 {
			t.Error("nothing was asked of the server")
		}
	}
	_ = test
}

// Test a client or an agent against a recorded server: Server serves the
// tape on 127.0.0.1 for the test's lifetime and returns its Streamable
// HTTP endpoint; a request the tape has no answer for fails the test.
func ExampleServer() {
	test := func(t *testing.T) {
		url := replaytest.Server(t, "testdata/session.jsonl")
		client := mcp.NewClient(&mcp.Implementation{Name: "my-agent", Version: "1.0.0"}, nil)
		cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		// … the code under test uses cs, and gets the recorded answers.
	}
	_ = test
}
