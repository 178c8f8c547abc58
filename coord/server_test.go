package coord

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/internal/testbuf"
	"github.com/replayctl/replayctl/report"
)

// coordinator starts a coordinator of n shards on loopback and its Run;
// wait returns Run's outcome.
func coordinator(t *testing.T, n int, opts ...Option) (srv *Server, url string, wait func() (*report.Report, error)) {
	t.Helper()
	srv, err := New(n, append([]Option{RegisterTimeout(20 * time.Second)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	type outcome struct {
		rep *report.Report
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		rep, err := srv.Run(ctx)
		done <- outcome{rep, err}
	}()
	var once sync.Once
	var got outcome
	return srv, hs.URL, func() (*report.Report, error) {
		once.Do(func() {
			select {
			case got = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("the coordinator's run did not end in 30 s")
			}
		})
		return got.rep, got.err
	}
}

func hello(i, n int, attempt string) Hello {
	return Hello{Index: i, Count: n, Fingerprint: "fp", Attempt: attempt}
}

// part is the report of latencies (ms) of requests of one session, as
// a shard's interval or final report holds them.
func part(session string, shard *report.Shard, latencies ...int) *report.Report {
	c := report.NewCollector()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, ms := range latencies {
		sent := at.Add(time.Duration(i) * time.Second)
		c.Add(report.Result{Seq: int64(i + 10), Session: session, Method: "tools/call", Dir: report.DirC2S, Kind: report.KindRequest,
			Due: sent, Sent: sent, Answered: sent.Add(time.Duration(ms) * time.Millisecond), Verdict: report.Passed})
	}
	r := c.Report(report.Meta{Tape: "t.jsonl", Shard: shard})
	return &r
}

func decodeHDR(t *testing.T, e report.EncodedHistogram) *hdrhistogram.Histogram {
	t.Helper()
	h, err := hdrhistogram.Decode([]byte(e.HDR))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestRefusals: a wrong token, another count and another fingerprint are
// refused for good (ErrRefused), naming what to fix.
func TestRefusals(t *testing.T) {
	var logs testbuf.Buffer
	_, url, _ := coordinator(t, 2, Token("secret"), Logger(zerolog.New(&logs)))
	ctx := t.Context()
	for _, tc := range []struct {
		name  string
		token string
		h     Hello
		want  string
	}{
		{"no token", "", hello(0, 2, "a"), "token"},
		{"a wrong token", "other", hello(0, 2, "a"), "token"},
		{"another count", "secret", hello(0, 3, "a"), "runs 2 shards"},
		{"an index out of range", "secret", hello(2, 2, "a"), "runs 2 shards"},
	} {
		_, err := NewClient(url, tc.token, tc.h).Register(ctx)
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrRefused saying %q", tc.name, err, tc.want)
		}
	}
	if r, err := NewClient(url, "secret", hello(0, 2, "a")).Register(ctx); err != nil || r.Action != Run {
		t.Fatalf("shard 0: %+v, %v; want run", r, err)
	}
	other := hello(1, 2, "b")
	other.Fingerprint = "another tape"
	_, err := NewClient(url, "secret", other).Register(ctx)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "same tape, config file and run flags") {
		t.Errorf("another fingerprint: %v, want refused", err)
	}
	// The coordinator's side says so too: a shard refused is not left
	// for its operator to find only when --register-timeout runs out.
	if n := strings.Count(logs.String(), "coordinator: refused a shard's call"); n != 5 {
		t.Errorf("%d refusals logged, want 5:\n%s", n, logs.String())
	}
}

// TestOneStartAndTheRetryRule: shards that register at different times
// all get one start, after the last registration; a retried process
// takes its index before the start and is told to stop after it; the
// same process reconnecting resumes; and the run's report is the merge of
// the finals, with each shard's first request after the start.
func TestOneStartAndTheRetryRule(t *testing.T) {
	const n = 3
	srv, url, wait := coordinator(t, n, StartLead(50*time.Millisecond))
	ctx := t.Context()
	clients := make([]*Client, n)
	starts := make([]time.Time, n)
	var wg sync.WaitGroup
	var last time.Time
	for i := range n {
		clients[i] = NewClient(url, "", hello(i, n, fmt.Sprintf("first-%d", i)))
		if i == 1 { // a pod retried before the start takes the index
			if r, err := clients[i].Register(ctx); err != nil || r.Action != Run {
				t.Fatalf("shard 1, first process: %+v, %v", r, err)
			}
			clients[i] = NewClient(url, "", hello(i, n, "retried-1"))
		}
		last = time.Now()
		r, err := clients[i].Register(ctx)
		if err != nil || r.Action != Run {
			t.Fatalf("shard %d: %+v, %v; want run", i, r, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := clients[i].WaitStart(ctx)
			if err != nil || r.Action != Run {
				t.Errorf("shard %d start: %+v, %v", i, r, err)
			}
			starts[i] = r.Start
		}()
	}
	wg.Wait()
	for i, s := range starts {
		if !s.Equal(starts[0]) || !s.After(last) {
			t.Errorf("shard %d starts at %v; want the one start %v, after the last registration %v", i, s, starts[0], last)
		}
	}
	if r, err := NewClient(url, "", hello(1, n, "first-1")).Register(ctx); err != nil || r.Action != Stop {
		t.Errorf("the replaced process after the start: %+v, %v; want stop", r, err)
	}
	if r, err := NewClient(url, "", hello(2, n, "late-retry")).Register(ctx); err != nil || r.Action != Stop || !strings.Contains(r.Reason, "twice") {
		t.Errorf("a retried process after the start: %+v, %v; want stop, saying why", r, err)
	}
	if r, err := clients[0].Register(ctx); err != nil || r.Action != Resume || !r.Start.Equal(starts[0]) {
		t.Errorf("the same process reconnecting: %+v, %v; want resume with the start", r, err)
	}

	one := hdrhistogram.New(1, 3_600_000_000, 3)
	for i, c := range clients {
		lat := []int{i + 1, 10 * (i + 1), 100 * (i + 1)}
		for _, ms := range lat {
			one.RecordValue(int64(ms) * 1000)
		}
		iv := Interval{Seq: 1, FirstSent: starts[0].Add(time.Duration(i) * time.Millisecond), Report: part(fmt.Sprintf("s%d", i), nil, lat...)}
		if _, err := c.Send(ctx, iv); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Send(ctx, iv); err != nil { // a retried call counts once
			t.Fatal(err)
		}
		if err := c.Deliver(ctx, Final{Report: part(fmt.Sprintf("s%d", i), &report.Shard{Index: i, Count: n}, lat...)}); err != nil {
			t.Fatal(err)
		}
	}
	live := srv.Live()
	rep, err := wait()
	if err != nil {
		t.Fatal(err)
	}
	for name, h := range map[string]report.EncodedHistogram{"merged": rep.Histograms.Latency, "live": live.Histograms.Latency} {
		got := decodeHDR(t, h)
		if !slices.Equal(got.Distribution(), one.Distribution()) || got.TotalCount() != 9 {
			t.Errorf("%s latency histogram (%d values) is not the histogram of every shard's values (9)", name, got.TotalCount())
		}
	}
	c := rep.Coordination
	if c == nil || len(c.Shards) != n || c.SkewMS == nil || *c.SkewMS != 2 {
		t.Fatalf("coordination = %+v, want %d shards and a skew of 2ms", c, n)
	}
	for i, s := range c.Shards {
		if s.State != "done" || s.FirstSentMS == nil || *s.FirstSentMS != float64(i) || s.Intervals != 1 {
			t.Errorf("shard %d: %+v; want done, first request %dms after the start, 1 interval", i, s, i)
		}
	}
	if got := c.Shards[1].Attempts; got != 2 {
		t.Errorf("shard 1: %d attempts, want 2", got)
	}
}

// TestLostShardIsNamed: a shard that goes silent after the start (no
// poll, no call) is named lost after the heartbeat, the run ends without
// it, and the report names it and fails.
func TestLostShardIsNamed(t *testing.T) {
	_, url, wait := coordinator(t, 2, StartLead(0), Heartbeat(500*time.Millisecond), Every(50*time.Millisecond))
	ctx := t.Context()
	a, b := NewClient(url, "", hello(0, 2, "a")), NewClient(url, "", hello(1, 2, "b"))
	for _, c := range []*Client{a, b} {
		if _, err := c.Register(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.WaitStart(ctx); err != nil {
		t.Fatal(err)
	}
	watched := make(chan string, 1)
	go func() { // a keeps its control poll open, as a replaying shard does
		why, _ := a.Watch(ctx)
		watched <- why
	}()
	if err := a.Deliver(ctx, Final{Report: part("s0", &report.Shard{Index: 0, Count: 2}, 5)}); err != nil {
		t.Fatal(err)
	}
	if why := <-watched; why != "its report is in" {
		t.Errorf("shard 0's control poll after its report: %q, want stop: its report is in", why)
	}
	rep, err := wait() // b never polls nor calls again
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed() || !strings.Contains(rep.Summary.Aborted, "shard 1/2 no heartbeat") {
		t.Errorf("aborted %q, passed %t; want shard 1/2 named lost", rep.Summary.Aborted, rep.Passed())
	}
	if c := rep.Coordination; c == nil || c.Shards[1].State != "dead" || len(c.Dead) != 1 {
		t.Errorf("coordination %+v, want shard 1 dead", c)
	}
	if r, err := b.Register(ctx); err != nil || r.Action != Stop {
		t.Errorf("the lost shard reconnecting: %+v, %v; want stop", r, err)
	}
}

// TestAbortOnFail: a threshold that only the merged intervals break stops
// every shard: their control polls answer stop, naming it.
func TestAbortOnFail(t *testing.T) {
	th, err := report.ParseThreshold("requests<5")
	if err != nil {
		t.Fatal(err)
	}
	srv, url, wait := coordinator(t, 2, StartLead(0), AbortOnFail(), Thresholds(th))
	ctx := t.Context()
	a, b := NewClient(url, "", hello(0, 2, "a")), NewClient(url, "", hello(1, 2, "b"))
	for _, c := range []*Client{a, b} {
		if _, err := c.Register(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []*Client{a, b} {
		if _, err := c.WaitStart(ctx); err != nil {
			t.Fatal(err)
		}
	}
	stops := make(chan string, 2)
	for _, c := range []*Client{a, b} {
		go func() {
			why, _ := c.Watch(ctx)
			stops <- why
		}()
	}
	// 3 requests each: each shard alone passes requests<5, the two fail it.
	if r, err := a.Send(ctx, Interval{Seq: 1, Report: part("s0", nil, 1, 2, 3)}); err != nil || r.Action != Continue {
		t.Fatalf("first interval: %+v, %v; want continue", r, err)
	}
	if r, err := b.Send(ctx, Interval{Seq: 1, Report: part("s1", nil, 1, 2, 3)}); err != nil || r.Action != Stop {
		t.Fatalf("second interval: %+v, %v; want stop", r, err)
	}
	for range 2 {
		if why := <-stops; !strings.Contains(why, "requests<5") {
			t.Errorf("stop %q, want the threshold named", why)
		}
	}
	for i, c := range []*Client{a, b} {
		if err := c.Deliver(ctx, Final{Report: part(fmt.Sprintf("s%d", i), &report.Shard{Index: i, Count: 2}, 1, 2, 3)}); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := wait()
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed() || rep.Coordination.Stopped == "" || len(rep.Thresholds) != 1 || rep.Thresholds[0].Passed {
		t.Errorf("passed %t, stopped %q, thresholds %+v; want failed, stopped, requests<5 failed", rep.Passed(), rep.Coordination.Stopped, rep.Thresholds)
	}
	_ = srv
}
