package tape

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// go test -run '^$' -bench 'OpenVCR' -benchtime 5x ./tape
//
// One OpenSource of an Agent VCR cassette of n tools/call interactions,
// written on one line with a space after each colon and comma (as
// Python's json.dump writes it), and a read of every message: what a
// replay of a cassette costs before its first send.

// bigVCR is a cassette of n tools/call echo interactions on one line.
func bigVCR(n int) []byte {
	var sb strings.Builder
	sb.WriteString(`{"format_version": "1.0.0", "metadata": {"version": "1.0.0", "recorded_at": "2026-03-14T13:40:00", "transport": "stdio", "client_info": {"name": "ledger-agent", "version": "0.9.2"}, "server_info": {"name": "abacus-server", "version": "2.0.0"}, "server_command": "node abacus.js", "server_args": ["--exact"], "tags": {"env": "staging"}}, "session": {"initialize_request": {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {"roots": {}}, "clientInfo": {"name": "ledger-agent", "version": "0.9.2"}}}, "initialize_response": {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {"listChanged": true}}, "serverInfo": {"name": "abacus-server", "version": "2.0.0"}}}, "capabilities": {}, "interactions": [`)
	for i := range n {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, `{"sequence": %d, "timestamp": "2026-03-14T13:40:%02d.%03d", "direction": "client_to_server", "request": {"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "call %d"}}}, "response": {"jsonrpc": "2.0", "id": %d, "result": {"content": [{"type": "text", "text": "Echo: call %d"}]}}}`,
			i, i/1000%60, i%1000, i+1, i, i+1, i)
	}
	sb.WriteString("]}}")
	return []byte(sb.String())
}

func BenchmarkOpenVCR(b *testing.B) {
	for _, n := range []int{1_000, 20_000} {
		doc := bigVCR(n)
		want := 2*n + 3
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				r, err := OpenSource(Bytes("big.vcr", doc))
				if err != nil {
					b.Fatal(err)
				}
				got := 0
				for {
					_, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					got++
				}
				r.Close()
				if got != want {
					b.Fatalf("read %d messages, want %d", got, want)
				}
			}
		})
	}
}
