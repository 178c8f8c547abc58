package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testtrace"
)

// promWait bounds each wait on Prometheus: its start, a scrape, a query.
const promWait = 60 * time.Second

// startPrometheus starts Debian's prometheus on loopback, scraping the
// targets listed in the file it returns (file service discovery: a
// target written there is picked up at once) every second, with a
// second's timeout (realistic; 200ms is tight on a loaded machine), and waits
// until it is ready. It returns its API's base URL.
func startPrometheus(t *testing.T) (api, targets string) {
	t.Helper()
	prom, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("prometheus is not installed (Debian: apt-get install prometheus; .ci/run does): the scrape test is skipped")
	}
	dir := t.TempDir()
	targets = filepath.Join(dir, "targets.json")
	writeTargets(t, targets, nil)
	config := filepath.Join(dir, "prometheus.yml")
	cfg := fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: replayctl
    file_sd_configs:
      - files: [%q]
        refresh_interval: 1s
`, targets)
	if err := os.WriteFile(config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	// A free port: prometheus does not say which port 0 picked.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	p := startProc(t, prom, "--config.file="+config, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	api = "http://" + addr
	deadline := time.Now().Add(promWait)
	for {
		resp, err := http.Get(api + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return api, targets
			}
		}
		select {
		case <-p.done:
			t.Fatalf("prometheus exited (%d) before it was ready:\n%s", p.code, p.stderr)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus not ready within %s:\n%s", promWait, p.stderr)
		}
	}
}

// writeTargets replaces the targets file (renamed into place: prometheus
// never reads half of it).
func writeTargets(t *testing.T, path string, hosts []string) {
	t.Helper()
	b, _ := json.Marshal([]map[string]any{{"targets": append([]string{}, hosts...), "labels": map[string]string{}}})
	if err := os.WriteFile(path+".tmp", b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
}

// promQuery runs an instant query and returns its one value, "" when it
// has no result.
func promQuery(t *testing.T, api, query string) string {
	t.Helper()
	resp, err := http.Get(api + "/api/v1/query?query=" + url.QueryEscape(query))
	if err != nil {
		t.Fatalf("query %s: %v", query, err)
	}
	defer resp.Body.Close()
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Status != "success" {
		t.Fatalf("query %s: %v %s %s", query, err, r.Status, r.Error)
	}
	switch len(r.Data.Result) {
	case 0:
		return ""
	case 1:
		s, _ := r.Data.Result[0].Value[1].(string)
		return s
	}
	t.Fatalf("query %s: %d results, want one", query, len(r.Data.Result))
	return ""
}

var metricsURL = regexp.MustCompile(`metrics on (http://\S+/metrics)`)

// TestMetricsPrometheus: a real Prometheus scrapes --metrics every second
// during a stepped replay of 5 sessions. While the replay waits for the
// next step, Prometheus has the requests sent so far and the run not
// ended; after it, the run's request count (the JSON report's) and
// its end; a request with a foreign Host is refused; --metrics-linger
// keeps the endpoint up until that last scrape, then replayctl exits.
func TestMetricsPrometheus(t *testing.T) {
	api, targets := startPrometheus(t)
	reportPath := filepath.Join(t.TempDir(), "report.json")
	p := startProc(t, binary, "run", quickTape, "--speed", "stepped", "--sessions", "5",
		"--metrics", "127.0.0.1:0", "--metrics-linger", promWait.String(), "--report", reportPath)
	p.waitOutput(p.stderr, "/metrics (Prometheus text format)", promWait)
	m := metricsURL.FindStringSubmatch(p.stderr.String())
	if m == nil {
		t.Fatalf("no metrics URL on stderr:\n%s", p.stderr)
	}
	u, _ := url.Parse(m[1])

	// DNS rebinding: a foreign Host is refused.
	req, _ := http.NewRequest(http.MethodGet, m[1], nil)
	req.Host = foreignHost
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "DNS rebinding") {
		t.Errorf("GET %s with Host %s: %d %s, want 403 saying why", m[1], foreignHost, resp.StatusCode, body)
	}

	writeTargets(t, targets, []string{u.Host})
	// Mid-run: three steps (three messages judged: initialize requests,
	// or an initialized notification), then the replay waits for the next.
	if _, err := p.stdin.Write([]byte("\n\n\n")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			// Scrapes Prometheus dropped (up 0, e.g. past its timeout) and the slowest kept.
			t.Logf("scrapes: %s, failed: %s, slowest: %ss", promQuery(t, api, `count_over_time(up[5m])`),
				promQuery(t, api, `count_over_time(up[5m]) - sum_over_time(up[5m])`), promQuery(t, api, `max_over_time(scrape_duration_seconds[5m])`))
			t.Logf("metrics:\n%s\nstderr:\n%s", dumpMetrics(m[1]), p.stderr)
		}
	})
	pollUntil(t, promWait, func() bool {
		return promQuery(t, api, `sum(replayctl_requests_total)`) != "" &&
			promQuery(t, api, `replayctl_run_ended`) == "0" &&
			promQuery(t, api, `sum(replayctl_results_total)`) == "3"
	}, "prometheus to scrape the three messages of a replay waiting for its next step")

	// The rest: more steps than the replay has messages.
	if _, err := p.stdin.Write([]byte(strings.Repeat("\n", 100))); err != nil {
		t.Fatal(err)
	}
	// Once the last scrape is taken, replayctl exits: the series are
	// then stale, so the last value scraped is asked for.
	if code := p.wait(promWait); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr)
	}
	b, err := os.ReadFile(reportPath)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		PerMethod []struct {
			Requests int64 `json:"requests"`
		} `json:"per_method"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	var want int64
	for _, pm := range rep.PerMethod {
		want += pm.Requests
	}
	if want != 5*8 {
		t.Fatalf("the report counts %d requests, want 40 (5 sessions of 8): the test's premise is gone", want)
	}
	// replayctl exits once Prometheus has read the last answer; Prometheus
	// stores it a moment later (at load, after the exit): wait for the
	// run's end to be stored before the figures are asked for.
	polls := 0
	pollUntil(t, promWait, func() bool {
		polls++
		return promQuery(t, api, `last_over_time(replayctl_run_ended[5m])`) == "1"
	}, "prometheus to store the last scrape, of the run ended")
	if polls > 1 {
		t.Logf("prometheus stored the last scrape %d polls after replayctl exited", polls)
	}
	got := promQuery(t, api, `sum(last_over_time(replayctl_requests_total[5m]))`)
	if got != strconv.FormatInt(want, 10) {
		t.Errorf("prometheus: sum(replayctl_requests_total) = %q, want %d (the report's)", got, want)
	}
	if got := promQuery(t, api, `last_over_time(replayctl_run_ended[5m])`); got != "1" {
		t.Errorf("prometheus: replayctl_run_ended = %q, want 1", got)
	}
	if got := promQuery(t, api, `last_over_time(replayctl_sessions_started_total[5m])`); got != "5" {
		t.Errorf("prometheus: replayctl_sessions_started_total = %q, want 5", got)
	}
}

// dumpMetrics is what the endpoint at u serves now, for a failure's log.
func dumpMetrics(u string) string {
	resp, err := http.Get(u)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	var b strings.Builder
	_, _ = io.Copy(&b, resp.Body)
	return b.String()
}

// TestMetricsFlagErrors: a bad --metrics or --metrics-linger is bad
// usage (exit 2) naming the flag and what to write, before any replay.
func TestMetricsFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--metrics", "9464"}, "--metrics 9464: a port alone; write 127.0.0.1:9464"},
		{[]string{"--metrics", "nohost:port"}, "--metrics nohost:port:"},
		{[]string{"--metrics-linger", "5s"}, "--metrics-linger 5s: it keeps --metrics up: give --metrics ADDR too"},
		{[]string{"--metrics", "127.0.0.1:0", "--metrics-linger", "-1s"}, "--metrics-linger -1s: want a duration of 0 or more"},
		{[]string{"--metrics", "127.0.0.1:0", "--local-shards", "2"}, "--metrics is not supported with --local-shards yet"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			res := replayctl(t, append([]string{"run", quickTape, "--speed", "fast"}, tc.args...)...)
			if res.code != 2 || !strings.Contains(res.stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", res.code, res.stderr, tc.want)
			}
		})
	}
}

// TestDebugMetricsAndTrace: debug serves --metrics while the debugger
// waits for its next command (the tape's 8 requests counted after
// continue), and writes --out trace=FILE when it quits.
func TestDebugMetricsAndTrace(t *testing.T) {
	tracePath := filepath.Join(t.TempDir(), "debug.trace.json")
	p := startProc(t, binary, "debug", quickTape, "--metrics", "127.0.0.1:0", "--out", "trace="+tracePath)
	p.waitOutput(p.stderr, "/metrics (Prometheus text format)", promWait)
	m := metricsURL.FindStringSubmatch(p.stderr.String())
	if m == nil {
		t.Fatalf("no metrics URL on stderr:\n%s", p.stderr)
	}
	if _, err := p.stdin.Write([]byte("continue\n")); err != nil {
		t.Fatal(err)
	}
	requests := func() int {
		n := 0
		for _, line := range strings.Split(dumpMetrics(m[1]), "\n") {
			if rest, ok := strings.CutPrefix(line, "replayctl_requests_total{"); ok {
				v, _ := strconv.Atoi(rest[strings.LastIndexByte(rest, ' ')+1:])
				n += v
			}
		}
		return n
	}
	pollUntil(t, promWait, func() bool { return requests() == 8 }, "the debugger's metrics to count the tape's 8 requests")
	if _, err := p.stdin.Write([]byte("quit\n")); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(promWait); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr)
	}
	b, err := os.ReadFile(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	s, err := testtrace.Check(b)
	if err != nil {
		t.Fatalf("the trace breaks the format's rules: %v", err)
	}
	if s.Slices["request"] != 8 || s.Flows != 8 {
		t.Errorf("%d request slices, %d flows; want the tape's 8 requests, each answered", s.Slices["request"], s.Flows)
	}
}
