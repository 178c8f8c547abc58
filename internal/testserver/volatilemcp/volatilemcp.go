// Package volatilemcp is a small go-sdk MCP test server whose answers
// change from call to call, for tests of `replayctl compare`: tool stamp
// answers a random id, a random number, the time now (as text and as Unix
// milliseconds) and one stable field; greet answers a greeting and a
// language (WithLang changes the language alone); add answers a sum.
// WithDelay answers every tools/call late. Serve it in process (Handler,
// Server) or as ../volatile over stdio or HTTP.
package volatilemcp

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Option changes the server's answers.
type Option func(*config)

type config struct {
	delay time.Duration
	lang  string
}

// WithDelay answers every tools/call after d.
func WithDelay(d time.Duration) Option { return func(c *config) { c.delay = d } }

// WithLang sets greet's structuredContent.lang (default "en"); nothing
// else of any answer changes with it.
func WithLang(lang string) Option { return func(c *config) { c.lang = lang } }

// Stamp is the structured answer of tool stamp: every member but Stable
// differs from call to call.
type Stamp struct {
	ID     string  `json:"id"`      // 16 random hex digits
	At     string  `json:"at"`      // RFC 3339, to the nanosecond
	UnixMS int64   `json:"unix_ms"` // the same time, as a number
	Nonce  float64 `json:"nonce"`   // random, in [0, 1)
	Stable string  `json:"stable"`  // always "same"
}

// Greeting is the structured answer of tool greet.
type Greeting struct {
	Greeting string `json:"greeting"`
	Lang     string `json:"lang"`
}

// Sum is the structured answer of tool add.
type Sum struct {
	Sum int `json:"sum"`
}

// Server returns a new server with opts.
func Server(opts ...Option) *mcp.Server {
	c := config{lang: "en"}
	for _, o := range opts {
		o(&c)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "volatile", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "stamp", Description: "a random id, a random number and the time"},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, Stamp, error) {
			if err := c.wait(ctx); err != nil {
				return nil, Stamp{}, err
			}
			now := time.Now()
			st := Stamp{ID: randomHex(8), At: now.Format(time.RFC3339Nano), UnixMS: now.UnixMilli(), Nonce: rand.Float64(), Stable: "same"}
			text := "stamp " + st.ID + " at " + st.At
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, st, nil
		})
	type greetIn struct {
		Name string `json:"name"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "greet", Description: "a greeting and its language"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in greetIn) (*mcp.CallToolResult, Greeting, error) {
			if err := c.wait(ctx); err != nil {
				return nil, Greeting{}, err
			}
			g := Greeting{Greeting: "Hello, " + in.Name, Lang: c.lang}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: g.Greeting}}}, g, nil
		})
	type addIn struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "the sum of a and b"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, Sum, error) {
			if err := c.wait(ctx); err != nil {
				return nil, Sum{}, err
			}
			return nil, Sum{Sum: in.A + in.B}, nil
		})
	return s
}

// Handler is Server(opts...) as a Streamable HTTP handler: one server for
// every session.
func Handler(opts ...Option) http.Handler {
	s := Server(opts...)
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
}

// wait waits the configured delay, or until ctx is done.
func (c config) wait(ctx context.Context) error {
	if c.delay <= 0 {
		return nil
	}
	t := time.NewTimer(c.delay)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = crand.Read(b) // it never fails (Go 1.24 and later)
	return hex.EncodeToString(b)
}
