package mock

import (
	"bytes"
	"context"
	"testing"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// BenchmarkServerAnswer measures a Server's answer path through
// transport.Session.Handle: parse the live request, match it (strategy
// method_and_params, volatile fields left out of the hash), send the
// recorded answer with the live id. The tape is the Go SDK client's
// 2025-11-25 recording; the request is its tools/call test_x_mcp_header.
// With WithRepeat the one session answers it again and again. (Not
// method: it would cycle through every recorded tools/call, among them
// those that ask the client, which a benchmark does not answer.)
func BenchmarkServerAnswer(b *testing.B) {
	raw := recordedTape(b, mcp.V20251125)
	var call []byte
	for _, m := range tapeMessages(b, raw) {
		if r, err := jsonrpc.Parse(m.Msg); err == nil && m.Dir == tape.C2S && r.Kind == jsonrpc.KindRequest && bytes.Contains(r.Params(), []byte("test_x_mcp_header")) {
			call = r.WithID([]byte(`"live-1"`))
			break
		}
	}
	for _, st := range []Strategy{MethodAndParams, Exact, Subset} {
		b.Run("strategy="+string(st), func(b *testing.B) {
			srv, err := NewServer(tape.Bytes("bench", raw), WithStrategy(st), WithRepeat())
			if err != nil {
				b.Fatal(err)
			}
			s, _ := srv.Open(context.Background(), transport.SessionInfo{ID: "bench"})
			defer s.Close()
			ctx := context.Background()
			n := 0
			send := func(_ context.Context, msg []byte) error { n += len(msg); return nil }
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Handle(ctx, call, send); err != nil {
					b.Fatal(err)
				}
			}
			if len(srv.Misses()) != 0 || n == 0 {
				b.Fatalf("misses %v", srv.Misses())
			}
		})
	}
}
