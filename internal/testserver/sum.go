package testserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Sum is a small go-sdk server with the tools and the prompt
// examples/everything.jsonl calls, a server whose one tool changes from
// version to version: echo; get-sum, which from version 2 on adds one to
// a sum over 10, in version 3 also gives the sum as structured content
// ({"sum": 12}), and from version 4 on gives it there as a string
// ({"sum": "12"}); and simple-prompt, empty. Run it on a transport of
// the test's own (mcp.IOTransport over pipes, for replay.Streams), or as
// a process with SumMain.
func Sum(version int) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "sum", Version: "1.0.0"}, nil)
	type echoIn struct {
		Message string `json:"message"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Echo: " + in.Message}}}, nil, nil
	})
	type sumIn struct {
		A float64 `json:"a"`
		B float64 `json:"b"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "get-sum"}, func(_ context.Context, _ *mcp.CallToolRequest, in sumIn) (*mcp.CallToolResult, any, error) {
		sum := in.A + in.B
		if version >= 2 && sum > 10 {
			sum++
		}
		text := fmt.Sprintf("The sum of %g and %g is %g.", in.A, in.B, sum)
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
		switch {
		case version == 3:
			res.StructuredContent = map[string]any{"sum": sum}
		case version >= 4: // the sum's type changed
			res.StructuredContent = map[string]any{"sum": fmt.Sprint(sum)}
		}
		return res, nil, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "simple-prompt"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	return s
}

// SumMain serves Sum of version v (a number, as an environment variable
// gives it) over stdio until the client closes stdin, for a test binary
// that runs as the server (TestMain checks the variable and exits with
// what SumMain returns): 0, 1 when serving failed, 2 for a bad version.
func SumMain(v string) int {
	version, err := strconv.Atoi(v)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sum server: bad version", v)
		return 2
	}
	if err := Sum(version).Run(context.Background(), &mcp.StdioTransport{}); err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "sum server:", err)
		return 1
	}
	return 0
}
