package mock

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// callsTape is a native tape of one session: initialize, then n
// tools/call of echo with the text "call i", each with its answer.
func callsTape(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"type":"header","format":"replayctl-tape","version":1,"transport":"stdio","protocol_version":"2025-06-18"}` + "\n")
	b.WriteString(`{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}` + "\n")
	b.WriteString(`{"type":"message","seq":1,"t_us":0,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}}` + "\n")
	b.WriteString(`{"type":"message","seq":2,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}` + "\n")
	for i := range n {
		fmt.Fprintf(&b, `{"type":"message","seq":%d,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"call %d"}}}}`+"\n", 3+2*i, i+1, i)
		fmt.Fprintf(&b, `{"type":"message","seq":%d,"t_us":0,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"Echo: call %d"}]}}}`+"\n", 4+2*i, i+1, i)
	}
	return []byte(b.String())
}

// TestServeMissCostIsConstant serves tapes of 500 and 5,000 recorded
// calls over Streamable HTTP on loopback and has a go-sdk client ask
// calls the tape does not have: each is a miss naming the first recorded
// call as the closest, and the recorded entries the Server examines per
// miss (to match it, and to find the closest) do not grow with the
// session's length.
func TestServeMissCostIsConstant(t *testing.T) {
	const misses = 20
	var per []float64
	for _, n := range []int{500, 5000} {
		srv, err := NewServer(tape.Bytes("calls", callsTape(n)))
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		mux := transport.NewMux(srv)
		hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		served := make(chan error, 1)
		go func() { served <- hs.Serve(ln) }()

		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
		if err != nil {
			t.Fatal(err)
		}
		before := srv.idx.examined.Load()
		for k := range misses {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": fmt.Sprintf("other %d", k)}})
			if err == nil || !strings.Contains(err.Error(), "closest recorded: seq 3 (session s1)") || !strings.Contains(err.Error(), "params.arguments.text") {
				t.Fatalf("n=%d: miss %d: got %v, want a miss naming seq 3 and params.arguments.text", n, k, err)
			}
		}
		examined := srv.idx.examined.Load() - before
		out, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "call 7"}})
		if err != nil || out.Content[0].(*mcp.TextContent).Text != "Echo: call 7" {
			t.Errorf("n=%d: the recorded call 7: %v, %v; want its recorded answer", n, out, err)
		}
		_ = cs.Close()
		cancel()
		_ = mux.Close()
		_ = hs.Close()
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
		if got := srv.MissCount(); got != misses {
			t.Errorf("n=%d: %d misses counted, want %d", n, got, misses)
		}
		per = append(per, float64(examined)/misses)
		t.Logf("n=%d: %.1f entries examined per miss", n, per[len(per)-1])
	}
	checkMissCost(t, per)
}

// TestMockMissCostIsConstant asks run's mock, over a connection of
// tapes of 500 and 5,000 recorded calls, calls the tape does not have:
// each gets the mock's error, and the recorded entries it examines per
// miss do not grow with the session's length.
func TestMockMissCostIsConstant(t *testing.T) {
	const misses = 20
	var per []float64
	for _, n := range []int{500, 5000} {
		m := FromSource(tape.Bytes("calls", callsTape(n)))
		c, err := m.Dial(t.Context(), "s1")
		if err != nil {
			t.Fatal(err)
		}
		idx, _ := m.index()
		before := idx.examined.Load()
		for k := range misses {
			if err := c.Send(t.Context(), fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"other %d"}}}`, k+1, k)); err != nil {
				t.Fatal(err)
			}
			in := <-c.Incoming()
			r, err := jsonrpc.Parse(in.Msg)
			if err != nil || r.Kind != jsonrpc.KindError || !strings.Contains(string(r.Error()), "no answer to tools/call") {
				t.Fatalf("n=%d: miss %d: got %s, want the mock's error", n, k, in.Msg)
			}
		}
		examined := idx.examined.Load() - before
		_ = c.Close()
		per = append(per, float64(examined)/misses)
		t.Logf("n=%d: %.1f entries examined per miss", n, per[len(per)-1])
	}
	checkMissCost(t, per)
}

// checkMissCost checks the entries examined per miss with 500 and 5,000
// recorded calls: some (the count is kept), a few (the nearby entries
// and the request's own key, not the session), and no more with 10× the
// calls.
func checkMissCost(t *testing.T, per []float64) {
	t.Helper()
	if per[0] <= 0 {
		t.Errorf("entries examined per miss: %.1f with 500 recorded calls; want some (is the count kept?)", per[0])
	}
	if per[1] > 16 {
		t.Errorf("entries examined per miss: %.1f with 5,000 recorded calls; want at most 16 (the nearby entries and the request's key)", per[1])
	}
	if per[1] > per[0] {
		t.Errorf("entries examined per miss: %.1f with 500 recorded calls, %.1f with 5,000; want no more with 10× the calls", per[0], per[1])
	}
}
