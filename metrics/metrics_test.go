package metrics

import (
	"bufio"
	"bytes"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/replayctl/replayctl/engine/event"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// run is a short replay's events: two sessions, one failing answer, a
// fault, a retry, a hold, a reconnect, one session stopped early.
func run() []event.Event {
	return []event.Event{
		{Type: event.Dialled, TUS: 10, Session: "s1", Seq: -1},
		{Type: event.Dialled, TUS: 12, Session: "s2", Seq: -1},
		{Type: event.Due, TUS: 20, Session: "s1", Seq: 1, Method: "initialize"},
		{Type: event.Sent, TUS: 21, Session: "s1", Seq: 1, Method: "initialize", Kind: "request"},
		{Type: event.Answered, TUS: 400, Session: "s1", Seq: 1, Method: "initialize"},
		{Type: event.Judged, TUS: 401, Session: "s1", Seq: 1, Method: "initialize", Kind: "request", Dir: "c2s", Verdict: "passed",
			Lag: 30 * time.Microsecond, HasLag: true, HasHeld: true, Latency: 379 * time.Microsecond, HasLatency: true},
		{Type: event.Sent, TUS: 410, Session: "s1", Seq: 2, Method: "notifications/initialized", Kind: "notification"},
		{Type: event.Judged, TUS: 411, Session: "s1", Seq: 2, Method: "notifications/initialized", Kind: "notification", Dir: "c2s", Verdict: "sent",
			HasLag: true, Lag: 0},
		{Type: event.Held, TUS: 500, Session: "s2", Seq: 3, Method: "tools/call", Reason: "order"},
		{Type: event.Fault, TUS: 510, Session: "s2", Seq: 3, Method: "tools/call", Reason: "timeout"},
		{Type: event.Retry, TUS: 515, Session: "s2", Seq: 3, Method: "tools/call", Reason: "http_status", Attempt: 1},
		{Type: event.Sent, TUS: 520, Session: "s2", Seq: 3, Method: "tools/call", Kind: "request", Held: 2 * time.Millisecond},
		{Type: event.Answered, TUS: 3520, Session: "s2", Seq: 3, Method: "tools/call"},
		{Type: event.Judged, TUS: 3521, Session: "s2", Seq: 3, Method: "tools/call", Kind: "request", Dir: "c2s", Verdict: "failed",
			Held: 2 * time.Millisecond, HasHeld: true, HasLag: true, Lag: 5 * time.Second, Latency: 3 * time.Millisecond, HasLatency: true},
		{Type: event.Sent, TUS: 3600, Session: "s2", Seq: 4, Method: "tools/call", Kind: "request"},
		{Type: event.Judged, TUS: 3700, Session: "s2", Seq: 4, Method: "tools/call", Kind: "request", Dir: "c2s", Verdict: "timeout", HasLag: true},
		{Type: event.Reconnect, TUS: 3800, Session: "s2", Seq: -1},
		{Type: event.SessionEnded, TUS: 4000, Session: "s1", Seq: -1},
		{Type: event.SessionEnded, TUS: 4100, Session: "s2", Seq: -1, Detail: "target failed"},
		{Type: event.SessionEnded, TUS: 4200, Session: "s3", Seq: -1, Detail: "dial refused"}, // never dialled
		{Type: event.RunEnded, TUS: 5000, Seq: -1},
	}
}

// samples parses the exposition into series (name with labels as
// written) → value, failing on a line that is not a comment or a sample.
func samples(t *testing.T, text string) map[string]string {
	t.Helper()
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "# HELP ") || strings.HasPrefix(line, "# TYPE ") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i <= 0 {
			t.Fatalf("line %q: not a sample", line)
		}
		if _, dup := out[line[:i]]; dup {
			t.Fatalf("series %s written twice", line[:i])
		}
		out[line[:i]] = line[i+1:]
	}
	return out
}

func scrape(m *Metrics) string {
	var b bytes.Buffer
	m.WriteText(&b)
	return b.String()
}

func TestCounts(t *testing.T) {
	m := New(Info("command", "run"), Info("tape", `a "quoted"\path`), Info("bad-name", "x"))
	for _, e := range run() {
		m.Observe(&e)
	}
	got := samples(t, scrape(m))
	want := map[string]string{
		`replayctl_run_info{command="run",tape="a \"quoted\"\\path"}`:                  "1",
		`replayctl_run_elapsed_seconds`:                                                "0.005",
		`replayctl_run_ended`:                                                          "1",
		`replayctl_events_total`:                                                       strconv.Itoa(len(run())),
		`replayctl_sessions_started_total`:                                             "2",
		`replayctl_sessions_ended_total{outcome="completed"}`:                          "1",
		`replayctl_sessions_ended_total{outcome="stopped"}`:                            "2",
		`replayctl_sessions_alive`:                                                     "0",
		`replayctl_requests_total{method="initialize"}`:                                "1",
		`replayctl_requests_total{method="tools/call"}`:                                "2",
		`replayctl_requests_total{method="notifications/initialized"}`:                 "0",
		`replayctl_answers_total{method="tools/call"}`:                                 "1",
		`replayctl_validation_failures_total{method="tools/call"}`:                     "1",
		`replayctl_errors_total{method="tools/call"}`:                                  "1",
		`replayctl_errors_total{method="initialize"}`:                                  "0",
		`replayctl_results_total{method="tools/call",verdict="failed"}`:                "1",
		`replayctl_results_total{method="tools/call",verdict="timeout"}`:               "1",
		`replayctl_results_total{method="notifications/initialized",verdict="sent"}`:   "1",
		`replayctl_request_duration_seconds_bucket{method="initialize",le="0.00025"}`:  "0",
		`replayctl_request_duration_seconds_bucket{method="initialize",le="0.0005"}`:   "1",
		`replayctl_request_duration_seconds_bucket{method="tools/call",le="0.0025"}`:   "0",
		`replayctl_request_duration_seconds_bucket{method="tools/call",le="0.005"}`:    "1",
		`replayctl_request_duration_seconds_bucket{method="tools/call",le="+Inf"}`:     "1",
		`replayctl_request_duration_seconds_count{method="tools/call"}`:                "1",
		`replayctl_request_duration_seconds_sum{method="tools/call"}`:                  "0.003",
		`replayctl_request_duration_seconds_count{method="notifications/initialized"}`: "0",
		`replayctl_schedule_lag_seconds_bucket{le="5e-05"}`:                            "3", // 30µs, and two of 0
		`replayctl_schedule_lag_seconds_bucket{le="2.5"}`:                              "3",
		`replayctl_schedule_lag_seconds_bucket{le="5"}`:                                "4",
		`replayctl_schedule_lag_seconds_count`:                                         "4",
		`replayctl_held_seconds_count`:                                                 "2",
		`replayctl_held_seconds_bucket{le="0.001"}`:                                    "1",
		`replayctl_holds_total{reason="order"}`:                                        "1",
		`replayctl_faults_injected_total{kind="timeout"}`:                              "1",
		`replayctl_retries_total{reason="http_status"}`:                                "1",
		`replayctl_reconnects_total`:                                                   "1",
	}
	for series, v := range want {
		if got[series] != v {
			t.Errorf("%s = %q, want %q", series, got[series], v)
		}
	}
	for series := range got {
		if strings.Contains(series, "bad-name") {
			t.Errorf("an info label that is no label name was written: %s", series)
		}
	}
}

// TestPromtool: promtool, Prometheus's own linter, finds nothing wrong
// with the exposition (names, units, suffixes, HELP, the format).
func TestPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not installed (Debian: apt-get install prometheus): the exposition is not linted")
	}
	m := New(Info("command", "run"))
	for _, e := range run() {
		m.Observe(&e)
	}
	cmd := exec.CommandContext(t.Context(), promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(scrape(m))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}
}

func TestMethodLimit(t *testing.T) {
	m := New(MethodLimit(2))
	for _, method := range []string{"a", "b", "c", "d", "a"} {
		m.Observe(&event.Event{Type: event.Sent, Kind: "request", Method: method})
		m.Observe(&event.Event{Type: event.Judged, Method: method, Verdict: "passed"})
	}
	got := samples(t, scrape(m))
	for series, v := range map[string]string{
		`replayctl_requests_total{method="a"}`:                       "2",
		`replayctl_requests_total{method="b"}`:                       "1",
		`replayctl_requests_total{method="(other)"}`:                 "2",
		`replayctl_results_total{method="(other)",verdict="passed"}`: "2",
		`replayctl_request_duration_seconds_count{method="(other)"}`: "0",
	} {
		if got[series] != v {
			t.Errorf("%s = %q, want %q", series, got[series], v)
		}
	}
	if _, ok := got[`replayctl_requests_total{method="c"}`]; ok {
		t.Errorf("method c past the limit has a series of its own")
	}
}

// TestConcurrentScrape: scrapes while events are observed from several
// goroutines always see cumulative buckets ending in the count, and the
// end counts are exact.
func TestConcurrentScrape(t *testing.T) {
	const writers, each = 4, 2000
	m := New()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				m.Observe(&event.Event{Type: event.Sent, Kind: "request", Method: "m" + strconv.Itoa(i%7)})
				m.Observe(&event.Event{Type: event.Judged, Method: "m" + strconv.Itoa(i%7), Verdict: "passed",
					HasLatency: true, Latency: time.Duration(i*w) * time.Microsecond})
			}
		})
	}
	done := make(chan struct{})
	var scrapes sync.WaitGroup
	scrapes.Go(func() {
		for {
			checkHistograms(t, samples(t, scrape(m)))
			select {
			case <-done:
				return
			default:
			}
		}
	})
	wg.Wait()
	close(done)
	scrapes.Wait()
	got := samples(t, scrape(m))
	checkHistograms(t, got)
	var total int
	for i := range 7 {
		n, _ := strconv.Atoi(got[`replayctl_requests_total{method="m`+strconv.Itoa(i)+`"}`])
		total += n
		c, _ := strconv.Atoi(got[`replayctl_request_duration_seconds_count{method="m`+strconv.Itoa(i)+`"}`])
		if c != n {
			t.Errorf("method m%d: %d latencies, want %d", i, c, n)
		}
	}
	if total != writers*each {
		t.Errorf("requests_total sums to %d, want %d", total, writers*each)
	}
}

// checkHistograms checks each latency histogram's buckets are
// cumulative and its +Inf bucket is its count.
func checkHistograms(t *testing.T, got map[string]string) {
	t.Helper()
	for series, v := range got {
		name, labels, ok := strings.Cut(series, "{")
		if name != "replayctl_request_duration_seconds_count" || !ok {
			continue
		}
		method := strings.TrimSuffix(labels, "}")
		var prev uint64
		for _, le := range append(bucketLabels(DefaultBuckets), "+Inf") {
			n, err := strconv.ParseUint(got[`replayctl_request_duration_seconds_bucket{`+method+`,le="`+le+`"}`], 10, 64)
			if err != nil || n < prev {
				t.Fatalf("%s le=%s: %d after %d (%v): not cumulative", method, le, n, prev, err)
			}
			prev = n
		}
		if strconv.FormatUint(prev, 10) != v {
			t.Fatalf("%s: +Inf bucket %d, count %s", method, prev, v)
		}
	}
}

func bucketLabels(bounds []time.Duration) []string {
	var out []string
	for _, b := range bounds {
		out = append(out, seconds(b))
	}
	return out
}

func TestServeHTTP(t *testing.T) {
	m := New()
	m.Observe(&event.Event{Type: event.Sent, Kind: "request", Method: "ping"})
	srv := httptest.NewServer(m)
	defer srv.Close()
	for _, tc := range []struct {
		method string
		code   int
		body   string
	}{
		{http.MethodGet, 200, `replayctl_requests_total{method="ping"} 1`},
		{http.MethodHead, 200, ""},
		{http.MethodPost, 405, "GET or HEAD only"},
	} {
		t.Run(tc.method, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), tc.method, srv.URL+"/metrics", nil)
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var b bytes.Buffer
			_, _ = b.ReadFrom(resp.Body)
			if resp.StatusCode != tc.code || !strings.Contains(b.String(), tc.body) {
				t.Fatalf("%s: got %d %q, want %d containing %q", tc.method, resp.StatusCode, b.String(), tc.code, tc.body)
			}
			if tc.code == 200 && resp.Header.Get("Content-Type") != ContentType {
				t.Fatalf("Content-Type %q, want %q", resp.Header.Get("Content-Type"), ContentType)
			}
		})
	}
}

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"a\"b", `a\"b`},
		{`a\b`, `a\\b`},
		{"a\nb", `a\nb`},
		{"bad\xffutf8", "bad\uFFFDutf8"},
	} {
		if got := escapeLabel(tc.in); got != tc.want {
			t.Errorf("escapeLabel(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
