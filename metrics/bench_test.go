package metrics

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/replayctl/replayctl/engine/event"
)

// BenchmarkObserve counts the pipeline's five events of a request (held,
// due, sent, answered, judged) over 8 methods: the cost of --metrics on
// the hot path, per request.
func BenchmarkObserve(b *testing.B) {
	methods := []string{"tools/call", "tools/list", "resources/read", "resources/list", "prompts/get", "prompts/list", "ping", "completion/complete"}
	var evs []event.Event
	for i, m := range methods {
		evs = append(evs,
			event.Event{Type: event.Held, Session: "s1", Seq: int64(i), Method: m, Reason: "order"},
			event.Event{Type: event.Due, Session: "s1", Seq: int64(i), Method: m},
			event.Event{Type: event.Sent, Session: "s1", Seq: int64(i), Method: m, Kind: "request"},
			event.Event{Type: event.Answered, Session: "s1", Seq: int64(i), Method: m},
			event.Event{Type: event.Judged, Session: "s1", Seq: int64(i), Method: m, Kind: "request", Dir: "c2s", Verdict: "passed",
				HasLag: true, Lag: time.Duration(i) * 30 * time.Microsecond, HasHeld: true, HasLatency: true, Latency: time.Duration(i) * time.Millisecond})
	}
	m := New()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for i := range evs {
			m.Observe(&evs[i])
		}
		n += len(methods)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/request")
}

// BenchmarkScrape writes the exposition of a run of methods methods.
func BenchmarkScrape(b *testing.B) {
	for _, methods := range []int{8, 100} {
		b.Run(fmt.Sprintf("methods=%d", methods), func(b *testing.B) {
			m := New()
			for i := range methods {
				e := event.Event{Type: event.Judged, Method: fmt.Sprintf("method/%d", i), Verdict: "passed", HasLatency: true, Latency: time.Millisecond}
				m.Observe(&e)
			}
			var buf bytes.Buffer
			b.ReportAllocs()
			for b.Loop() {
				buf.Reset()
				m.WriteText(&buf)
			}
			b.ReportMetric(float64(buf.Len()), "bytes/scrape")
		})
	}
}
