package ui

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/replayctl/replayctl/internal/testos"
	"github.com/replayctl/replayctl/replay"
)

// BenchmarkPipelineView is engine's BenchmarkPipeline (one session of n
// requests, fast, the built-in mock, every answer validated) through
// package replay, without the browser view (view=none) and with it
// (view=page: the server fed by the replay, and one viewer reading its
// SSE feed, as a page does). requests/s and the CPU per request are the
// figures; frames/op and bytes/op say what the viewer read.
//
// timing10x is the 10x timing benchmark (5,000 requests 2 ms apart at
// 10x): the schedule lag's p99 with and without the view.
func BenchmarkPipelineView(b *testing.B) {
	for _, c := range []struct {
		name  string
		n     int
		gap   int64
		speed string
	}{
		{"msgs=100000", 100_000, 10, "fast"},
		{"timing10x", 5_000, 2000, "10x"},
	} {
		for _, view := range []bool{false, true} {
			name := c.name + "/view=none"
			if view {
				name = c.name + "/view=page"
			}
			b.Run(name, func(b *testing.B) {
				path := writeTape(b, filepath.Join(b.TempDir(), "tape.jsonl"), 1, c.n, c.gap, nil)
				b.ReportAllocs()
				var frames, bytes atomic.Int64
				var lagP99, dur float64
				cpu0 := testos.CPUTime()
				b.ResetTimer()
				for b.Loop() {
					opts := []replay.Option{replay.SpeedText(c.speed)}
					var stop func()
					if view {
						var s *Server
						s, stop = benchView(b, &frames, &bytes)
						opts = append(opts, s.Options()...)
					}
					rep, err := replay.Run(context.Background(), path, opts...)
					if err != nil || !rep.Passed() {
						b.Fatalf("Run: %v, passed %v", err, rep != nil && rep.Passed())
					}
					if stop != nil {
						stop()
					}
					lagP99 += rep.Performance.ScheduleLagMS.P99
					dur += rep.Summary.DurationMS
				}
				b.ReportMetric(float64(c.n)*float64(b.N)/b.Elapsed().Seconds(), "requests/s")
				b.ReportMetric(float64((testos.CPUTime()-cpu0).Nanoseconds())/float64(b.N)/float64(c.n)/1000, "cpu-µs/request")
				b.ReportMetric(lagP99*1000/float64(b.N), "lag-p99-µs")
				b.ReportMetric(dur/float64(b.N), "duration-ms")
				if view {
					b.ReportMetric(float64(frames.Load())/float64(b.N), "frames/op")
					b.ReportMetric(float64(bytes.Load())/float64(b.N), "feed-bytes/op")
				}
			})
		}
	}
}

// benchView serves a view on loopback with one viewer connected to its
// feed, reading everything; stop ends both once the viewer has read the
// run's end.
func benchView(b *testing.B, frames, bytes *atomic.Int64) (*Server, func()) {
	s := New()
	ln, err := listen()
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	resp, err := http.Get(strings.Replace(s.URL(ln), "/?token=", "/events?token=", 1))
	if err != nil {
		b.Fatal(err)
	}
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 256<<20)
		for sc.Scan() {
			l := sc.Bytes()
			bytes.Add(int64(len(l)) + 1)
			if len(l) > 4 && string(l[:4]) == "id: " {
				frames.Add(1)
			}
			if strings.Contains(string(l), "event: result") {
				return
			}
		}
	}()
	return s, func() {
		s.Finish(nil)
		<-read
		resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		cancel()
		if err := <-served; err != nil {
			b.Fatal(err)
		}
	}
}

var _ = fmt.Sprint
