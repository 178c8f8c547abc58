package replay_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/tape"
)

// Replay a tape against the built-in mock, which answers from the tape.
func Example() {
	rep, err := replay.Run(context.Background(), "../examples/quickstart.jsonl", replay.WithSpeed(replay.Fast()))
	if rep == nil {
		fmt.Println(err)
		return
	}
	fmt.Println("passed:", rep.Passed(), "checked:", rep.Validation.Checked, "exit status:", rep.ExitStatus())
	// Output: passed: true checked: 8 exit status: 0
}

// A session recorded against some echo server, as a tape held in memory.
var echoTape = tape.Bytes("echo.jsonl", []byte(`{"type":"header","format":"replayctl-tape","version":1,"protocol_version":"2025-06-18","transport":"stdio"}
{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"example","version":"1.0.0"}}}}
{"type":"message","seq":1,"t_us":900,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"recorded","version":"0.1"}}}}
{"type":"message","seq":2,"t_us":1000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}
{"type":"message","seq":3,"t_us":2000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}}
{"type":"message","seq":4,"t_us":2500,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Echo: hi"}]}}}
`))

// echoServer is a go-sdk server with the echo tool.
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

// Replay against a go-sdk server's HTTP handler in this process: no port,
// no subprocess. What the server says of itself is not compared.
func ExampleHandler() {
	s := echoServer()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	rep, err := replay.RunSource(context.Background(), echoTape, replay.WithSpeed(replay.Fast()),
		replay.Against(replay.Handler(h)),
		replay.Ignore("result.serverInfo", "result.capabilities"))
	if rep == nil {
		fmt.Println(err)
		return
	}
	fmt.Println("passed:", rep.Passed(), "checked:", rep.Validation.Checked)
	// Output: passed: true checked: 2
}

// Replay against a go-sdk server run over a pair of streams, one server
// per session: here 3 virtual copies of the recorded session.
func ExampleStreams() {
	serve := func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
		return echoServer().Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
	}
	rep, err := replay.RunSource(context.Background(), echoTape, replay.WithSpeed(replay.Fast()), replay.Sessions(3),
		replay.Against(replay.Streams(serve)),
		replay.Ignore("result.serverInfo", "result.capabilities"))
	if rep == nil {
		fmt.Println(err)
		return
	}
	fmt.Println("passed:", rep.Passed(), "checked:", rep.Validation.Checked)
	// Output: passed: true checked: 6
}

// Replay with a config file (here seeded chaos) and see each fault.
func ExampleConfigFile() {
	var kinds []string
	rep, err := replay.Run(context.Background(), "../examples/quickstart.jsonl",
		replay.ConfigFile("../examples/chaos.yaml"),
		replay.OnFault(func(f report.Fault) { kinds = append(kinds, f.Kind) }))
	if rep == nil {
		fmt.Println(err)
		return
	}
	slices.Sort(kinds)
	fmt.Println("seed:", *rep.Chaos.Seed, "faults:", kinds)
	// Output: seed: 42 faults: [invalid timeout]
}

// Edit a message before it is sent: the server's answer then differs from
// the recording, and the report says where.
func ExampleBeforeSend() {
	rep, err := replay.RunSource(context.Background(), echoTape, replay.WithSpeed(replay.Fast()),
		replay.Against(replay.Streams(func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
			return echoServer().Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
		})),
		replay.Ignore("result.serverInfo", "result.capabilities"),
		replay.BeforeSend(func(m *replay.Message) bool {
			if m.Method == "tools/call" {
				m.Raw = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"bye"}}}`)
			}
			return true
		}))
	if rep == nil {
		fmt.Println(err)
		return
	}
	for _, f := range rep.Validation.Failures {
		for _, d := range f.Differences {
			fmt.Printf("seq %d %s: %s: expected %s, got %s\n", f.Seq, f.Method, d.Path, d.Expected, d.Actual)
		}
	}
	fmt.Println("exit status:", rep.ExitStatus())
	// Output:
	// seq 3 tools/call: result.content[0].text: expected "Echo: hi", got "Echo: bye"
	// exit status: 1
}
