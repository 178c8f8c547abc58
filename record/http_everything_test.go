package record_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"net/http"

	"github.com/replayctl/replayctl/internal/testserver"
	mcpwire "github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/record"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/tape"
)

// everythingScript is a client session for server-everything: tools,
// prompts, echo and get-sum calls.
func everythingScript(ctx context.Context, cs *mcp.ClientSession) error {
	if _, err := cs.ListTools(ctx, nil); err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "through the proxy"}})
	if err != nil || len(res.Content) == 0 {
		return fmt.Errorf("echo: %v %v", res, err)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || !strings.Contains(tc.Text, "through the proxy") {
		return fmt.Errorf("echo answered %+v", res.Content[0])
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get-sum", Arguments: map[string]any{"a": 15, "b": 27}}); err != nil {
		return fmt.Errorf("get-sum: %w", err)
	}
	if _, err := cs.ListPrompts(ctx, nil); err != nil {
		return fmt.Errorf("prompts/list: %w", err)
	}
	return nil
}

// TestHTTPProxyEverything puts 8 concurrent go-sdk clients through the
// proxy to server-everything, over Streamable HTTP and over the legacy
// HTTP+SSE transport, and replays the tape against the same server.
func TestHTTPProxyEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("real servers")
	}
	testserver.NeedEverything(t)
	cases := []struct {
		name      string
		upstream  func(testing.TB) string
		transport string
		version   string // the client's: "" probes with server/discover, which the server refuses
		client    func(endpoint string) func(*http.Client) mcp.Transport
	}{
		{"streamable", testserver.EverythingHTTP, record.TransportStreamableHTTP, mcpwire.V20251125, streamable},
		{"streamable probing", testserver.EverythingHTTP, record.TransportStreamableHTTP, "", streamable},
		{"legacy sse", testserver.EverythingSSE, record.TransportLegacySSE, "", func(endpoint string) func(*http.Client) mcp.Transport {
			return func(hc *http.Client) mcp.Transport {
				return &mcp.SSEClientTransport{Endpoint: endpoint, HTTPClient: hc}
			}
		}},
	}
	const clients = 8
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			upstream := c.upstream(t)
			srv, p, path := startProxy(t, upstream)
			u := strings.TrimPrefix(upstream, "http://")
			endpoint := srv.URL + u[strings.Index(u, "/"):]
			runClientsOver(t, c.client(endpoint), c.version, clients, everythingScript)
			p.Stop()
			srv.Close()
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(raw), secretToken) {
				t.Fatal("the client's credentials are on the tape")
			}
			h, msgs := readTape(t, path)
			if h.Transport != c.transport || h.ProtocolVersion == "" {
				t.Errorf("header %+v, want transport %s and a protocol version", h, c.transport)
			}
			sessions := map[string]int{}
			for _, m := range msgs {
				sessions[m.Session]++
			}
			if len(sessions) != clients {
				t.Errorf("%d sessions on the tape (%v), want %d", len(sessions), sessions, clients)
			}
			if c.version == "" && c.transport == record.TransportStreamableHTTP {
				// The probe is in the session of the initialize that
				// follows it. Its refusal (HTTP 400, id null) is not
				// replayable as an answer: the replay is not checked.
				first := map[string]string{}
				for _, m := range msgs {
					if _, ok := first[m.Session]; !ok && m.Dir == tape.C2S {
						first[m.Session] = string(m.Msg)
					}
				}
				for s, msg := range first {
					if !strings.Contains(msg, `"server/discover"`) {
						t.Errorf("session %s begins with %s, want the probe", s, msg)
					}
				}
				return
			}
			rep, err := replay.Run(t.Context(), path, replay.WithSpeed(replay.Fast()), replay.Against(replay.HTTP(upstream)))
			if rep == nil {
				t.Fatal(err)
			}
			if err != nil || !rep.Passed() || rep.Validation.Failed != 0 || rep.Validation.Checked < int64(5*clients) {
				t.Fatalf("replay: err %v; passed %v, %d checked, %d failed, warnings %q; failures %+v, errors %+v",
					err, rep.Passed(), rep.Validation.Checked, rep.Validation.Failed, rep.Summary.Warnings, rep.Validation.Failures, rep.Errors)
			}
		})
	}
}
