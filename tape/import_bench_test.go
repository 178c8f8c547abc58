package tape

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// go test -run '^$' -bench 'Import' -benchtime 5x ./tape
//
// BenchmarkImportHAR imports a HAR of n/2 exchanges as a proxy writes it
// (no _replayctl members): a POST of tools/call answered over SSE with a
// progress notification and the result, every third answer base64.
func BenchmarkImportHAR(b *testing.B) {
	const exchanges = 20_000
	base := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	var es []string
	for i := range exchanges {
		at := base.Add(time.Duration(i) * time.Millisecond).Format(time.RFC3339Nano)
		req := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":%d,"b":2}}}`, i, i)
		body := fmt.Sprintf("id: %d-1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%d,\"progress\":1}}\n\nid: %d-2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"%d\"}]}}\n\n", i, i, i, i, i+2)
		es = append(es, entry(at, "POST", "http://127.0.0.1:8080/mcp", `{"name":"Mcp-Session-Id","value":"S"}`, req, 200, "", "text/event-stream", body, ""))
	}
	doc := []byte(har(es...))
	benchImport(b, 3*exchanges, len(doc), func() (int, error) {
		_, msgs, _, err := DecodeHAR("b.har", doc)
		return len(msgs), err
	})
}

// BenchmarkImportLog imports a JSON-RPC log of wrapper lines.
func BenchmarkImportLog(b *testing.B) {
	const n = 60_000
	var sb strings.Builder
	base := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	for i := range n / 2 {
		at := base.Add(time.Duration(i) * time.Millisecond).Format(time.RFC3339Nano)
		fmt.Fprintf(&sb, `{"ts":%q,"direction":"send","message":{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":%d,"b":2}}}}`+"\n", at, i, i)
		fmt.Fprintf(&sb, `{"ts":%q,"direction":"recv","message":{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"%d"}]}}}`+"\n", at, i, i+2)
	}
	doc := []byte(sb.String())
	benchImport(b, n, len(doc), func() (int, error) {
		_, msgs, _, err := DecodeLog("b.log", doc)
		return len(msgs), err
	})
}

func benchImport(b *testing.B, want, size int, run func() (int, error)) {
	b.Run(fmt.Sprintf("msgs=%d", want), func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(size))
		for b.Loop() {
			got, err := run()
			if err != nil || got != want {
				b.Fatalf("imported %d messages (%v), want %d", got, err, want)
			}
		}
		b.ReportMetric(float64(want)*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
	})
}
