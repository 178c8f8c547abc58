package serve_test

import (
	"context"
	"fmt"
	"log"
	"net"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replayctl/replayctl/serve"
)

// Example serves a tape over Streamable HTTP on a free loopback port,
// has a go-sdk client call a tool the tape recorded, and stops.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	urls := make(chan string, 1)
	s, err := serve.New("../examples/quickstart.jsonl",
		serve.Listen("127.0.0.1:0"),
		serve.OnListening(func(a net.Addr) { urls <- "http://" + a.String() + "/mcp" }))
	if err != nil {
		log.Fatal(err)
	}
	type ran struct {
		res *serve.Result
		err error
	}
	done := make(chan ran, 1)
	go func() {
		res, err := s.Run(ctx) // until cancel
		done <- ran{res, err}
	}()
	var url string
	select {
	case url = <-urls:
	case r := <-done:
		log.Fatal(r.err) // it could not listen
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
	// The tape was recorded in protocol 2025-06-18: the client asks for it.
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		log.Fatal(err)
	}
	out, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hello, replay"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Content[0].(*mcp.TextContent).Text)
	_ = cs.Close()

	cancel()
	r := <-done
	if r.err != nil {
		log.Fatal(r.err)
	}
	fmt.Println("misses:", r.res.MissCount)
	// Output:
	// Echo: hello, replay
	// misses: 0
}
