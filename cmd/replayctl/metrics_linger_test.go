package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replayctl/replayctl/engine/event"
)

// lockedBuffer is an errOut that the test reads while replayctl writes.
type lockedBuffer struct {
	mu sync.Mutex // guards b
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// scrapeAs scrapes u as Prometheus does, saying its timeout in
// X-Prometheus-Scrape-Timeout-Seconds, and reads the whole answer.
func scrapeAs(t *testing.T, u, timeout string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set("X-Prometheus-Scrape-Timeout-Seconds", timeout)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("scrape %s: %v", u, err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape %s: %d %v", u, resp.StatusCode, err)
	}
}

// TestMetricsLingerScrapeGivenUp: --metrics-linger does not count a
// scrape of the final counts whose answer took longer than the scraper
// said it would wait (X-Prometheus-Scrape-Timeout-Seconds, here 1ns):
// the scraper has dropped it, so it keeps waiting, says why on stderr,
// and the next scrape answered in time ends the wait.
func TestMetricsLingerScrapeGivenUp(t *testing.T) {
	errOut := &lockedBuffer{}
	a := &app{errOut: errOut}
	s, _, err := a.startMetrics(metricsFlags{addr: "127.0.0.1:0", linger: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	m := metricsURL.FindStringSubmatch(errOut.String())
	if m == nil {
		t.Fatalf("no metrics URL on stderr:\n%s", errOut)
	}
	s.metrics().Observe(&event.Event{Type: event.RunEnded, Seq: -1})
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		a.stopMetrics(ctx, s)
	}()
	t.Cleanup(func() {
		cancel()
		<-stopped
	})
	pollUntil(t, 10*time.Second, func() bool { return strings.Contains(errOut.String(), "waiting for a last scrape") },
		"the linger to begin")

	scrapeAs(t, m[1], "0.000000001")
	pollUntil(t, 10*time.Second, func() bool { return strings.Contains(errOut.String(), "not counted") },
		"a note that the scrape the scraper gave up on was not counted")
	select {
	case <-stopped:
		t.Fatalf("--metrics stopped after a scrape its scraper gave up on:\n%s", errOut)
	default:
	}

	scrapeAs(t, m[1], "10")
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatalf("--metrics still up 10s after a scrape answered in time:\n%s", errOut)
	}
}

// TestFinalScrapeKept: which scrapes of the final counts --metrics-linger
// counts as kept by their scraper.
func TestFinalScrapeKept(t *testing.T) {
	for _, tc := range []struct {
		name    string
		header  string
		took    time.Duration
		err     error
		want    bool
		wantWhy string
	}{
		{"no timeout said", "", time.Minute, nil, true, ""},
		{"well within", "0.2", 50 * time.Millisecond, nil, true, ""},
		{"exactly half", "0.2", 100 * time.Millisecond, nil, true, ""},
		{"past half", "0.2", 101 * time.Millisecond, nil, false, "more than half the 200ms the scraper waits"},
		{"past all", "1", 2 * time.Second, nil, false, "more than half the 1s the scraper waits"},
		{"not a number", "soon", time.Minute, nil, true, ""},
		{"zero", "0", time.Minute, nil, true, ""},
		{"negative", "-1", time.Minute, nil, true, ""},
		{"not written", "10", time.Millisecond, io.ErrClosedPipe, false, "not written in full: io: read/write on closed pipe"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.header != "" {
				h.Set(scrapeTimeoutHeader, tc.header)
			}
			ok, why := finalScrape{took: tc.took, timeout: scrapeTimeout(h), err: tc.err}.kept()
			if ok != tc.want || !strings.Contains(why, tc.wantWhy) || (ok && why != "") {
				t.Fatalf("kept() = %v %q, want %v %q", ok, why, tc.want, tc.wantWhy)
			}
		})
	}
}
