package tape

import (
	"path/filepath"
	"testing"

	"github.com/replayctl/replayctl/internal/testtape/calls"
)

// callsTape writes the tape the engine's BenchmarkPipeline replays: one
// session of n tools/call requests, each followed by its answer (2n+3
// messages).
func callsTape(tb testing.TB, n int) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), "calls.jsonl")
	if err := (calls.Tape{N: n}).Write(p); err != nil {
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
