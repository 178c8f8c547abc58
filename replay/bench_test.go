package replay_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/internal/testtape"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/tape"
)

// echoCalls is a tape of one session: the handshake, then n echo calls.
func echoCalls(n int) tape.Source {
	var b bytes.Buffer
	b.WriteString(`{"type":"header","format":"replayctl-tape","version":1,"protocol_version":"2025-06-18","transport":"stdio"}` + "\n")
	b.WriteString(`{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}}` + "\n")
	b.WriteString(`{"type":"message","seq":1,"t_us":500,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"echo","version":"1.0.0"}}}}` + "\n")
	b.WriteString(`{"type":"message","seq":2,"t_us":600,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}` + "\n")
	for i := range n {
		seq, t := 3+2*i, 1000*(i+1)
		fmt.Fprintf(&b, `{"type":"message","seq":%d,"t_us":%d,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"m%d"}}}}`+"\n", seq, t, i+1, i)
		fmt.Fprintf(&b, `{"type":"message","seq":%d,"t_us":%d,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"Echo: m%d"}]}}}`+"\n", seq+1, t+500, i+1, i)
	}
	return tape.Bytes("echo-calls.jsonl", b.Bytes())
}

// slowEcho is echoServer with a delay per call.
func slowEcho(delay time.Duration) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1.0.0"}, nil)
	type in struct {
		Message string `json:"message"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(ctx context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Echo: " + a.Message}}}, nil, nil
	})
	return s
}

// BenchmarkTargets replays sessions of echo calls, fast, against the
// go-sdk server through each kind of target: its handler in process, its
// handler over loopback HTTP, and over in-process streams; and against
// the mock. One op is one replay; requests/s counts the tools/call.
func BenchmarkTargets(b *testing.B) {
	for _, c := range []struct {
		delay          time.Duration
		sessions, call int
	}{{0, 1, 200}, {0, 20, 50}, {20 * time.Millisecond, 50, 10}} {
		src := echoCalls(c.call)
		s := slowEcho(c.delay)
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
		srv := httptest.NewServer(h)
		targets := []struct {
			name string
			t    replay.Target
		}{
			{"handler", replay.Handler(h)},
			{"loopback-http", replay.HTTP(srv.URL)},
			{"streams", replay.Streams(func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
				return slowEcho(c.delay).Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
			})},
		}
		if c.delay == 0 {
			targets = append(targets, struct {
				name string
				t    replay.Target
			}{"mock", replay.Mock()})
		}
		for _, tg := range targets {
			name := fmt.Sprintf("server=go-sdk-%s/sessions=%d/target=%s", c.delay, c.sessions, tg.name)
			b.Run(name, func(b *testing.B) {
				start := time.Now()
				for b.Loop() {
					rep, err := replay.RunSource(context.Background(), src, replay.WithSpeed(replay.Fast()),
						replay.Sessions(c.sessions), replay.Against(tg.t),
						replay.Ignore("result.serverInfo", "result.capabilities"))
					if err != nil || !rep.Passed() {
						b.Fatalf("err %v, passed %v", err, rep != nil && rep.Passed())
					}
				}
				calls := float64(b.N * c.sessions * c.call)
				b.ReportMetric(calls/time.Since(start).Seconds(), "requests/s")
			})
		}
		srv.Close()
	}
}

// BenchmarkRevisions replays go-sdk client sessions of each revision
// (recorded once) against the conformance server over HTTP, fast, 50
// sessions: what stateless replay costs beside session-based (the
// headers derived per request, no handshake). One op is one replay.
func BenchmarkRevisions(b *testing.B) {
	stateless, stateful := testserver.GoSDKHTTPStateless(b), testserver.GoSDKHTTP(b)
	for _, c := range []struct {
		name, version, url string
	}{{"2026-07-28", "", stateless}, {"2025-11-25", "2025-11-25", stateful}} {
		path := testtape.RecordClient(b, testtape.HTTP(c.url), c.version, testtape.ScriptAll)
		b.Run("revision="+c.name+"/sessions=50", func(b *testing.B) {
			var requests int64
			start := time.Now()
			for b.Loop() {
				rep, err := replay.Run(context.Background(), path, replay.WithSpeed(replay.Fast()), replay.Sessions(50), replay.Against(replay.HTTP(c.url)))
				if err != nil || !rep.Passed() {
					b.Fatalf("err %v, passed %v", err, rep != nil && rep.Passed())
				}
				requests += rep.Performance.Requests
			}
			b.ReportMetric(float64(requests)/time.Since(start).Seconds(), "requests/s")
		})
	}
}
