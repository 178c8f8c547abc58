package tracefile

import (
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/replayctl/replayctl/engine/event"
)

// BenchmarkTrace keeps n requests of 10 sessions (due, held, sent,
// answered, judged: the pipeline's five events a request) and writes the
// trace to io.Discard: the cost of --out trace=FILE beside the replay.
func BenchmarkTrace(b *testing.B) {
	for _, n := range []int{1000, 100_000} {
		b.Run(fmt.Sprintf("requests=%d", n), func(b *testing.B) {
			evs := make([]event.Event, 0, 5*n)
			for i := range n {
				s, seq, at := fmt.Sprintf("s1#%d", i%10+1), int64(i), int64(i)*10
				evs = append(evs,
					event.Event{Type: event.Held, TUS: at, Session: s, Seq: seq, Method: "tools/call", Reason: "order"},
					event.Event{Type: event.Due, TUS: at, Session: s, Seq: seq, Method: "tools/call"},
					event.Event{Type: event.Sent, TUS: at + 2, Session: s, Seq: seq, Method: "tools/call", Kind: "request", Held: time.Microsecond},
					event.Event{Type: event.Answered, TUS: at + 7, Session: s, Seq: seq, Method: "tools/call"},
					event.Event{Type: event.Judged, TUS: at + 8, Session: s, Seq: seq, Method: "tools/call", Name: "echo", Kind: "request", Dir: "c2s",
						Verdict: "passed", HasLag: true, Lag: time.Microsecond, HasHeld: true, Held: time.Microsecond, HasLatency: true, Latency: 5 * time.Microsecond})
			}
			b.ReportAllocs()
			var bytes int64
			for b.Loop() {
				t := New()
				for i := range evs {
					t.Observe(&evs[i])
				}
				w, err := t.WriteTo(io.Discard)
				if err != nil {
					b.Fatal(err)
				}
				bytes = w
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/request")
			b.ReportMetric(float64(bytes)/float64(n), "file-bytes/request")
		})
	}
}
