package history_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/replayctl/replayctl/history"
	"github.com/replayctl/replayctl/report"
)

// benchStore makes a store of n runs of one tape in dir: the reports of
// two real replays of a moody tape (5 rounds of tools steady and flaky
// and a ping: 16 requests, 19 messages judged or sent), the second with
// tool flaky answered wrongly, kept in a seeded 30% of the runs. It
// returns the tape's hash and the store's size in bytes.
func benchStore(b *testing.B, dir string, n int) (string, int64) {
	b.Helper()
	f := newFixture(b, 5, "steady", "flaky")
	good := f.run(b)
	f.srv.SetWrong("flaky", true)
	bad := f.run(b)
	if good.Validation.Failed != 0 || bad.Validation.Failed != 5 {
		b.Fatalf("reports: %d and %d failed, want 0 and 5", good.Validation.Failed, bad.Validation.Failed)
	}
	s, err := history.Open(context.Background(), dir)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	rng := rand.New(rand.NewPCG(10000, 1))
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		rep := *good
		if rng.Float64() < 0.3 {
			rep = *bad
		}
		rep.Summary.RunID = fmt.Sprintf("bench-%05d", i)
		rep.Summary.StartedAt = start.Add(time.Duration(i) * time.Minute)
		if _, err := s.Record(context.Background(), &rep, history.Info{TapeHash: f.hash, Version: fmt.Sprintf("v%d", i/100)}); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, history.FileName))
	if err != nil {
		b.Fatal(err)
	}
	return f.hash, fi.Size()
}

// BenchmarkQueries answers trend and flaky over a store of 10,000 runs
// (made once, not timed), and reports the store's size per run.
func BenchmarkQueries(b *testing.B) {
	for _, n := range []int{10000} {
		dir := b.TempDir()
		hash, size := benchStore(b, dir, n)
		s, err := history.Open(context.Background(), dir)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		ctx := context.Background()
		for _, metric := range []string{"p99{method:tools/call}", "p99{tool:flaky}", "p99", "error_rate"} {
			m, err := report.ParseMetric(metric)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("trend/metric=%s/runs=%d", metric, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					pts, err := s.Trend(ctx, history.Query{Tape: hash}, m)
					if err != nil || len(pts) != n || !pts[n-1].Measured {
						b.Fatalf("%d points, %v", len(pts), err)
					}
				}
				b.ReportMetric(float64(size)/float64(n), "bytes/run")
			})
		}
		b.Run(fmt.Sprintf("flaky/runs=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				fl, err := s.Flaky(ctx, history.Query{Tape: hash}, history.DefaultRule)
				if err != nil || len(fl) != 5 {
					b.Fatalf("%d flaky, %v", len(fl), err)
				}
			}
		})
		b.Run(fmt.Sprintf("flaky-last100/runs=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				fl, err := s.Flaky(ctx, history.Query{Tape: hash, Last: 100}, history.DefaultRule)
				if err != nil || len(fl) != 5 {
					b.Fatalf("%d flaky, %v", len(fl), err)
				}
			}
		})
		b.Run(fmt.Sprintf("gate/runs=%d", n), func(b *testing.B) {
			budget, _ := history.ParseBudget("p99{method:tools/call}+20%")
			rep, err := s.Report(ctx, 1)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Gate(ctx, rep, hash, []history.Budget{budget}, 5, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRecord keeps one run (16 requests, 7 lines by method and
// name) per op in a store on disk.
func BenchmarkRecord(b *testing.B) {
	f := newFixture(b, 5, "steady", "flaky")
	rep := f.run(b)
	s, err := history.Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		r := *rep
		r.Summary.RunID = fmt.Sprintf("record-%d", i)
		i++
		if _, err := s.Record(context.Background(), &r, history.Info{TapeHash: f.hash}); err != nil {
			b.Fatal(err)
		}
	}
}
