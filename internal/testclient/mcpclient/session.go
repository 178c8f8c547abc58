package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// terminateTimeout bounds a stdio server's exit once its stdin is closed.
const terminateTimeout = 2 * time.Second

// The answers the client gives to the server's own requests.
var (
	elicitContent = map[string]any{"name": "Ada", "username": "ada", "context": "tests", "color": "blue"}
	sampleText    = "Paris"
	roots         = []*mcp.Root{{URI: "file:///tmp/replayctl-testclient", Name: "testclient"}}
)

// runClient runs client k's session: connect (the "initialize" step), the
// script, close. It returns the steps done; a step that failed ends the
// session there, as does ctx.
func runClient(ctx context.Context, cfg *config, k int, stderr io.Writer) []step {
	tr, closeIdle := transport(ctx, cfg, stderr)
	defer closeIdle()
	var opts *mcp.ClientSessionOptions
	if cfg.protocol != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: cfg.protocol}
	}
	cs, err := newClient(k, !cfg.noRoots).Connect(ctx, tr, opts)
	if err != nil {
		return []step{failed(k, "initialize", err)}
	}
	steps := []step{done(k, "initialize", cs.InitializeResult(), nil)}
	sc := &session{ctx: ctx, cs: cs, k: k, changed: cfg.script == "changed", secret: cfg.secret}
	steps = append(steps, sc.run()...)
	// Not a step: a stdio server that needs a signal to stop (as
	// server-everything does once a session has run) is no fault of the
	// script.
	if err := cs.Close(); err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "mcpclient: client %d: close: %v\n", k, err)
	}
	return steps
}

// transport is the SDK transport to the server cfg names, and a function
// to call once its session is closed.
func transport(ctx context.Context, cfg *config, stderr io.Writer) (mcp.Transport, func()) {
	if cfg.url != "" {
		hc := &http.Client{Transport: &headerTransport{headers: cfg.headers, inner: &http.Transport{}}}
		return &mcp.StreamableClientTransport{Endpoint: cfg.url, HTTPClient: hc, MaxRetries: -1}, hc.CloseIdleConnections
	}
	cmd := exec.CommandContext(ctx, cfg.argv[0], cfg.argv[1:]...)
	cmd.Stderr = stderr
	return &mcp.CommandTransport{Command: cmd, TerminateDuration: terminateTimeout}, func() {}
}

// headerTransport adds the -header values to every request.
type headerTransport struct {
	headers headers
	inner   http.RoundTripper
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for _, h := range t.headers {
			req.Header.Set(h[0], h[1])
		}
	}
	return t.inner.RoundTrip(req)
}

// newClient is test client k: it accepts every elicitation with
// elicitContent, answers every sampling request with sampleText from model
// "fake", and, withRoots, lists roots (else it offers no roots
// capability). Its clientInfo names k
// ("replayctl-testclient-go-0", …): concurrent clients of one process are
// told apart by what they send, as a recording proxy of stateless
// (2026-07-28) traffic needs to give each its own session.
func newClient(k int, withRoots bool) *mcp.Client {
	var caps *mcp.ClientCapabilities // nil: the SDK's default, roots
	if !withRoots {
		caps = &mcp.ClientCapabilities{}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: fmt.Sprintf("replayctl-testclient-go-%d", k), Version: "1"}, &mcp.ClientOptions{
		Capabilities: caps,
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: elicitContent}, nil
		},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "fake", Content: &mcp.TextContent{Text: sampleText}}, nil
		},
	})
	if withRoots {
		c.AddRoots(roots...) // before Connect: no roots/list_changed is sent
	}
	return c
}

// step is one line of the transcript.
type step struct {
	Client  int    `json:"client"`
	Step    string `json:"step"`
	OK      bool   `json:"ok"`
	Skipped string `json:"skipped,omitempty"`
	Result  any    `json:"result,omitempty"`
	Error   any    `json:"error,omitempty"`
}

// done is a step that got result, or err.
func done(k int, name string, result any, err error) step {
	if err != nil {
		return failed(k, name, err)
	}
	return step{Client: k, Step: name, OK: true, Result: result}
}

// failed is a step that got err: a JSON-RPC error as {code, message,
// data}, any other error as its text.
func failed(k int, name string, err error) step {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		e := map[string]any{"code": we.Code, "message": we.Message}
		if len(we.Data) > 0 {
			e["data"] = we.Data
		}
		return step{Client: k, Step: name, Error: e}
	}
	return step{Client: k, Step: name, Error: fmt.Sprint(err)}
}

func skipped(k int, name, why string) step {
	return step{Client: k, Step: name, OK: true, Skipped: why}
}
