package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/internal/testtape"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// pipedLimit is the server's own limit: every request written at once,
// without waiting, and the time until the last answer is read.
func pipedLimit(tb testing.TB, d transport.Dialer, msgs [][]byte) time.Duration {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := d.Dial(ctx, "s1")
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	requests := 0
	for _, m := range msgs {
		if rpc, _ := jsonrpc.Parse(m); rpc.Kind == jsonrpc.KindRequest {
			requests++
		}
	}
	start := time.Now()
	go func() { // the server reads as fast as it can; writing must not wait for answers
		for _, m := range msgs {
			if conn.Send(ctx, m) != nil {
				return
			}
		}
	}()
	for got := 0; got < requests; {
		select {
		case in := <-conn.Incoming():
			if rpc, err := jsonrpc.Parse(in.Msg); err == nil && jsonrpc.IsResponseKind(rpc.Kind) {
				got++
			}
		case <-ctx.Done():
			tb.Fatalf("piped: %d of %d answers", got, requests)
		}
	}
	return time.Since(start)
}

// BenchmarkStdioRatio compares replayctl's throughput against a subprocess
// server (fast, order none) with the server's own limit (the same
// requests piped in without waiting). ratio is the headline figure.
func BenchmarkStdioRatio(b *testing.B) {
	const n = 3000
	servers := []struct {
		name       string
		argv       func(testing.TB) []string
		tool, args string
	}{
		{"server-everything", testserver.Everything, "echo", `{"message":"message %d"}`},
		{"go-sdk", testserver.GoSDK, "test_simple_text", `{}`},
	}
	for _, s := range servers {
		b.Run(s.name, func(b *testing.B) {
			d := transport.Stdio{Command: s.argv(b)}
			msgs := testtape.Conversation(s.tool, s.args, n)
			path := testtape.Record(b, d, "", msgs)
			var piped, replay time.Duration
			for b.Loop() {
				piped += pipedLimit(b, d, msgs)
				rep, err := replay1(b, Config{Tape: path, Dialer: d, Speed: scheduler.Speed{Mode: scheduler.Fast}, Order: OrderNone, MaxInflight: n + 10, Logger: zerolog.Nop()})
				// From the first message sent to the last answer, as piped:
				// the server's start-up and shutdown are in neither.
				replay += activeSpan(rep)
				if err != nil {
					b.Fatal(err)
				}
				if rep.Validation.Failed != 0 || rep.Validation.Passed != n+1 {
					b.Fatalf("passed %d failed %d, want %d and 0", rep.Validation.Passed, rep.Validation.Failed, n+1)
				}
			}
			b.ReportMetric(float64(piped)/float64(replay), "ratio")
			b.ReportMetric(float64(n)*float64(b.N)/replay.Seconds(), "requests/s")
			b.ReportMetric(float64(n)*float64(b.N)/piped.Seconds(), "piped-requests/s")
		})
	}
}

func replay1(tb testing.TB, cfg Config) (report.Report, error) {
	e, err := New(withMock(cfg))
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	return e.Run(ctx)
}

// BenchmarkHTTPSessions replays a recorded session as many concurrent
// virtual sessions over Streamable HTTP on loopback — 200 against the
// go-sdk conformance server, 1,000 against a server that takes 20ms per
// tools/call — and reports throughput, latency, errors and the live heap
// per session at the peak.
func BenchmarkHTTPSessions(b *testing.B) {
	cases := []struct {
		name       string
		sessions   int
		url        func(testing.TB) string
		tool, args string
		calls      int
	}{
		{"server=go-sdk/sessions=200", 200, testserver.GoSDKHTTP, "test_simple_text", `{}`, 20},
		{"server=slow-20ms/sessions=1000", 1000, func(tb testing.TB) string { return testserver.SlowHTTP(tb, "-delay", "20ms") }, "echo", `{"text":"call %d"}`, 10},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			d := transport.HTTP{URL: c.url(b), Client: transport.NewClient(c.sessions)}
			path := testtape.Record(b, d, "", testtape.Conversation(c.tool, c.args, c.calls))
			for b.Loop() {
				var rep report.Report
				var err error
				start := time.Now()
				peak := peakHeap(func() {
					rep, err = replay1(b, Config{Tape: path, Dialer: d, Speed: scheduler.Speed{Mode: scheduler.Fast}, Sessions: c.sessions, Logger: zerolog.Nop()})
				})
				elapsed := time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				p := rep.Performance
				b.ReportMetric(float64(p.Requests)/elapsed.Seconds(), "requests/s")
				b.ReportMetric(p.LatencyMS.P50, "p50-ms")
				b.ReportMetric(p.LatencyMS.P99, "p99-ms")
				b.ReportMetric(float64(p.Errors+p.Timeouts+rep.Validation.Failed), "errors")
				b.ReportMetric(float64(peak)/float64(c.sessions)/1024, "live-heap-KB/session")
			}
		})
	}
}

// peakHeap runs f and returns the peak live heap above what was live
// before it, sampled every 5ms.
func peakHeap(f func()) uint64 {
	runtime.GC()
	base, peak := heapLive(), uint64(0)
	stop := sampleHeap(&peak)
	f()
	stop()
	return peak - min(base, peak)
}

// heapLive is the heap the last garbage collection found live: what the
// replay keeps, not the garbage it has not collected yet.
func heapLive() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// sampleHeap records the peak live heap every 5ms until stopped.
func sampleHeap(peak *uint64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			*peak = max(*peak, heapLive())
			select {
			case <-t.C:
			case <-done:
				return
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// BenchmarkMultiSession10x replays a tape of 10 recorded sessions, each
// with messages 1ms apart, at 10x against the mock: schedule lag and the
// total duration against the ideal one.
func BenchmarkMultiSession10x(b *testing.B) {
	path := filepath.Join(b.TempDir(), "multi.jsonl")
	writeMulti(b, path, 10, 2000, 2*time.Millisecond)
	ideal := time.Duration(2000) * 2 * time.Millisecond / 10
	for b.Loop() {
		rep, err := replay1(b, Config{Tape: path, Speed: scheduler.Speed{Mode: scheduler.Scaled, Factor: 10}, Logger: zerolog.Nop()})
		if err != nil {
			b.Fatal(err)
		}
		if rep.Validation.Failed != 0 {
			b.Fatalf("%d failed", rep.Validation.Failed)
		}
		lag := rep.Performance.ScheduleLagMS
		b.ReportMetric(lag.P50, "lag-p50-ms")
		b.ReportMetric(lag.P99, "lag-p99-ms")
		b.ReportMetric(rep.Summary.DurationMS/float64(ideal.Milliseconds()), "duration/ideal")
	}
}

// writeMulti writes a tape of sessions interleaved sessions, each a
// handshake and n requests gap apart, answered after gap/2.
func writeMulti(tb testing.TB, path string, sessions, n int, gap time.Duration) {
	tb.Helper()
	w, err := tape.Create(path, tape.Header{Format: tape.FormatName, Version: tape.FormatVersion})
	if err != nil {
		tb.Fatal(err)
	}
	var seq int64
	put := func(us int64, s int, dir tape.Dir, msg string) {
		if err := w.Write(tape.Message{Seq: seq, TUS: us, Session: fmt.Sprintf("s%d", s), Dir: dir, Msg: []byte(msg)}); err != nil {
			tb.Fatal(err)
		}
		seq++
	}
	g := gap.Microseconds()
	for s := 1; s <= sessions; s++ {
		put(0, s, tape.C2S, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`)
		put(1, s, tape.S2C, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18"}}`)
	}
	for i := 1; i <= n; i++ {
		for s := 1; s <= sessions; s++ {
			put(int64(i)*g, s, tape.C2S, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i))
		}
		for s := 1; s <= sessions; s++ {
			put(int64(i)*g+g/2, s, tape.S2C, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, i))
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
}

// activeSpan is the time from the first message sent to the last answer
// received, from the report's timeline.
func activeSpan(rep report.Report) time.Duration {
	first, last := -1.0, 0.0
	for _, t := range rep.Timeline {
		if t.SentMS != nil && (first < 0 || *t.SentMS < first) {
			first = *t.SentMS
		}
		if t.AnsweredMS != nil && *t.AnsweredMS > last {
			last = *t.AnsweredMS
		}
	}
	return time.Duration((last - first) * float64(time.Millisecond))
}
