package compare

import (
	"fmt"
	"testing"

	"github.com/replayctl/replayctl/report"
)

// BenchmarkComparePaths is compare's own work after the replays: pairing
// and comparing the answers of three runs, every answer volatile (a
// stamp: a random id, a number, the time, one stable member), so that
// each pair is walked in full. One op compares answers=N answers twice
// (raw and noise); ns/answer is per answer of a run.
func BenchmarkComparePaths(b *testing.B) {
	s := defaults()
	v, err := s.validator()
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1000, 10000} {
		runs := make([]*answers, 3)
		for r := range runs {
			runs[r] = newAnswers()
			for i := range n {
				runs[r].add(report.Result{
					Seq: int64(2 * i), Session: "s1", Method: "tools/call", Name: "stamp", Dir: report.DirC2S, Kind: report.KindRequest,
					Answer: fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"stamp %08x%08x at 2026-11-27T16:55:16.%09dZ"}],"structuredContent":{"at":"2026-11-27T16:55:16.%09dZ","id":"%08x%08x","nonce":0.%d,"stable":"same","unix_ms":%d}}}`,
						i, r, i, r*1000+i, r*1000+i, r, i, 1000+r*7+i, 1795798516091+int64(r*n+i)),
				})
			}
		}
		b.Run(fmt.Sprintf("answers=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, paths := comparePaths(v, runs[0], runs[1], runs[2])
				if len(paths) != 4 {
					b.Fatalf("paths: got %d, want 4", len(paths))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/answer")
		})
	}
}
