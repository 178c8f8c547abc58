package tape

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// callsTape writes the tape the engine's BenchmarkPipeline replays: one
// session of n tools/call requests, each followed by its answer (2n+3
// messages).
func callsTape(tb testing.TB, n int) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), "calls.jsonl")
	f, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	seq := 0
	line := func(tUS int64, dir, msg string) {
		fmt.Fprintf(w, `{"type":"message","seq":%d,"t_us":%d,"session":"s1","dir":"%s","msg":%s}`+"\n", seq, tUS, dir, msg)
		seq++
	}
	fmt.Fprintln(w, `{"type":"header","format":"replayctl-tape","version":1,"protocol_version":"2025-06-18","transport":"stdio"}`)
	line(0, "c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	line(50, "s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"bench","version":"1"}}}`)
	line(60, "c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i := 1; i <= n; i++ {
		t := int64(i) * 1000
		line(t, "c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"message %d"}}}`, i, i))
		line(t+100, "s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"Echo: message %d"}]}}`, i, i))
	}
	fmt.Fprintf(w, `{"type":"end","messages":%d,"duration_us":%d}`+"\n", seq, int64(n)*1000+100)
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return p
}

// BenchmarkReadTape reads the tape of BenchmarkPipeline (engine/) of
// 100,000 requests to its end, each message with its JSON-RPC parse.
//
//	go test -run '^$' -bench ReadTape -benchtime 5x ./tape
func BenchmarkReadTape(b *testing.B) {
	const n = 100_000
	p := callsTape(b, n)
	b.ReportAllocs()
	for b.Loop() {
		r, err := Open(p)
		if err != nil {
			b.Fatal(err)
		}
		got, err := drainEach(r, func(m Message) error {
			_, err := m.RPC()
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		if got != 2*n+3 {
			b.Fatalf("read %d messages, want %d", got, 2*n+3)
		}
		r.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64((2*n+3)*b.N), "ns/message")
}
