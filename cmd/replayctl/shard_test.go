package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/replayctl/replayctl/internal/testos"
	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/internal/testtape"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/transport"
)

// countingServer is the slow test server in process, counting the bodies
// of the POSTs it is sent (but cancellations).
type countingServer struct {
	srv    *httptest.Server
	mu     sync.Mutex // guards bodies
	bodies map[string]int
	posts  chan string // every body counted, as long as it has room

	// requests counts the JSON-RPC requests received since the last
	// holdAfter; once it passes that, every further request is held
	// unanswered until its client gives it up or the test ends.
	requests, hold atomic.Int64
	release        chan struct{} // closed when the test ends
}

// holdAfter answers the next n requests and holds every one after them
// (see countingServer.requests).
func (c *countingServer) holdAfter(n int64) {
	c.requests.Store(0)
	c.hold.Store(n)
}

func newCountingServer(t *testing.T) *countingServer {
	c := &countingServer{bodies: map[string]int{}, posts: make(chan string, 4096), release: make(chan struct{})}
	inner := testserver.SlowHandler(0)
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(b, &m) == nil && m.ID != nil && m.Method != "" {
				if h := c.hold.Load(); c.requests.Add(1) > h && h > 0 {
					select {
					case <-r.Context().Done():
					case <-c.release:
						http.Error(w, "the test ended", http.StatusServiceUnavailable)
					}
					return
				}
			}
			// The replayer's own cancellations of requests still
			// unanswered when the run ends depend on timing, not on
			// the tape: not counted.
			if !strings.Contains(string(b), `"notifications/cancelled"`) {
				c.mu.Lock()
				c.bodies[string(b)]++
				c.mu.Unlock()
				select {
				case c.posts <- string(b):
				default:
				}
			}
			r.Body = io.NopCloser(strings.NewReader(string(b)))
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(c.srv.Close)
	t.Cleanup(func() { close(c.release) }) // before Close, which waits for the held
	return c
}

// take returns the bodies counted since the last take, and forgets them.
func (c *countingServer) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	got := c.bodies
	c.bodies = map[string]int{}
	return got
}

// readReport reads a JSON report the binary wrote.
func readReport(t *testing.T, path string) *report.Report {
	t.Helper()
	r, err := report.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

type faultKey struct {
	session string
	seq     int64
	kind    string
}

func faultSet(rs ...*report.Report) map[faultKey]int {
	out := map[faultKey]int{}
	for _, r := range rs {
		for _, f := range r.Chaos.Faults {
			out[faultKey{f.Session, f.Seq, f.Kind}]++
		}
	}
	return out
}

// decodeHDR reads a report's encoded histogram.
func decodeHDR(t *testing.T, e report.EncodedHistogram) *hdrhistogram.Histogram {
	t.Helper()
	h, err := hdrhistogram.Decode([]byte(e.HDR))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestShardsUnionIsTheRun replays a 50-session HTTP load with chaos whole,
// then with --local-shards 1, 2, 3, 4 and 7 (a coordinator and its shard
// processes on loopback): the server is sent every request of the
// whole run exactly once across the shards; each session is in one shard,
// under its name, the shards at most one session apart; the chaos faults
// of the shards are the whole run's; and the merged report (the runner's,
// and `replayctl merge` of the shards' reports) has the summed counts and, bucket for bucket, the histogram of
// every shard's latencies; every shard started at the common start.
func TestShardsUnionIsTheRun(t *testing.T) {
	srv := newCountingServer(t)
	tapePath := testtape.Record(t, transport.HTTP{URL: srv.srv.URL}, "http", testtape.Conversation("echo", `{"text":"call %d"}`, 4))
	srv.take()
	dir := t.TempDir()
	common := []string{"run", tapePath, "--target", srv.srv.URL, "--sessions", "50", "--speed", "fast", "-q",
		"--chaos", "unknown-method=0.1,bad-params=0.1", "--seed", "42"}
	whole := filepath.Join(dir, "whole.json")
	res := replayctl(t, append(common, "--report", whole)...)
	if res.code > 1 {
		t.Fatalf("whole run: exit %d\n%s", res.code, res.stderr)
	}
	wantBodies := srv.take()
	want := readReport(t, whole)
	wantFaults := faultSet(want)
	if want.Summary.Sessions != 50 || want.Chaos.Injected == 0 || len(wantFaults) != int(want.Chaos.Injected) {
		t.Fatalf("whole run: %d sessions, %d faults (%d listed); want 50 sessions and some faults, all listed", want.Summary.Sessions, want.Chaos.Injected, len(wantFaults))
	}
	var wantNames []string
	for _, s := range want.PerSession {
		wantNames = append(wantNames, s.Session)
	}
	slices.Sort(wantNames)

	for _, n := range []int{1, 2, 3, 4, 7} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			shardDir := filepath.Join(dir, strconv.Itoa(n))
			merged := filepath.Join(dir, fmt.Sprintf("merged-%d.json", n))
			res := replayctl(t, append(common, "--local-shards", strconv.Itoa(n), "--shard-reports", shardDir, "--report", merged)...)
			if res.code > 1 {
				t.Fatalf("--local-shards %d: exit %d\n%s", n, res.code, res.stderr)
			}
			var paths []string
			var shards []*report.Report
			var names []string
			least, most := 50, 0
			for i := range n {
				p := filepath.Join(shardDir, fmt.Sprintf("shard-%d-of-%d.json", i, n))
				r := readReport(t, p)
				if s := r.Summary.Shard; s == nil || s.Index != i || s.Count != n {
					t.Fatalf("shard %d/%d: summary.shard %+v", i, n, s)
				}
				least, most = min(least, r.Summary.Sessions), max(most, r.Summary.Sessions)
				for _, s := range r.PerSession {
					names = append(names, s.Session)
				}
				paths, shards = append(paths, p), append(shards, r)
			}
			if got := srv.take(); !maps.Equal(got, wantBodies) {
				for b, c := range got {
					if wantBodies[b] != c {
						t.Logf("got %d× %s (want %d)", c, b, wantBodies[b])
					}
				}
				for b, c := range wantBodies {
					if got[b] != c {
						t.Logf("want %d× %s (got %d)", c, b, got[b])
					}
				}
				t.Errorf("the server got %d distinct bodies from the shards, the whole run sent %d (or not as many times each)", len(got), len(wantBodies))
			}
			slices.Sort(names)
			if !slices.Equal(names, wantNames) {
				t.Errorf("the shards' sessions are %d (%v…), want the whole run's %d, each once", len(names), names[:min(3, len(names))], len(wantNames))
			}
			if most-least > 1 {
				t.Errorf("shards of %d hold %d to %d sessions, want at most one apart", n, least, most)
			}
			if got := faultSet(shards...); !maps.Equal(got, wantFaults) {
				t.Errorf("the shards' chaos faults (%d) are not the whole run's (%d) for the same seed", len(got), len(wantFaults))
			}

			// replayctl merge of the shards' files is the runner's merge.
			res = replayctl(t, append(append([]string{"merge"}, paths...), "-o", "json")...)
			var offline struct {
				Performance struct {
					Requests int64 `json:"requests"`
				} `json:"performance"`
			}
			decodeJSON(t, res.stdout, &offline)
			m := readReport(t, merged)
			var sent, requests, injected int64
			one := decodeHDR(t, shards[0].Histograms.Latency)
			for i, r := range shards {
				sent += r.Summary.Sent
				requests += r.Performance.Requests
				injected += r.Chaos.Injected
				if i > 0 {
					one.Merge(decodeHDR(t, r.Histograms.Latency))
				}
			}
			if m.Summary.Sent != sent || m.Performance.Requests != requests || m.Chaos.Injected != injected {
				t.Errorf("merged sent %d, requests %d, faults %d; want the sums %d, %d, %d", m.Summary.Sent, m.Performance.Requests, m.Chaos.Injected, sent, requests, injected)
			}
			if offline.Performance.Requests != requests {
				t.Errorf("replayctl merge of the shards' reports: %d requests, want %d", offline.Performance.Requests, requests)
			}
			if requests != want.Performance.Requests || sent != want.Summary.Sent {
				t.Errorf("the shards sent %d requests (%d messages), the whole run %d (%d)", requests, sent, want.Performance.Requests, want.Summary.Sent)
			}
			if s := m.Summary.Shards; s == nil || s.Count != n || len(s.Missing) != 0 {
				t.Errorf("merged summary.shards = %+v, want all %d", s, n)
			}
			// The local runner is a coordinated run: one start, no shard
			// sending before it, the skew measured.
			if co := m.Coordination; co == nil || len(co.Shards) != n || (n > 1) != (co.SkewMS != nil) {
				t.Errorf("coordination = %+v, want %d shards and a skew when there are two or more", co, n)
			} else {
				for i, s := range co.Shards {
					if s.State != "done" || s.FirstSentMS == nil || *s.FirstSentMS < 0 {
						t.Errorf("shard %d: %+v; want done, its first request at or after the common start", i, s)
					}
				}
			}
			got := decodeHDR(t, m.Histograms.Latency)
			if !slices.Equal(got.Distribution(), one.Distribution()) || got.TotalCount() != one.TotalCount() || m.Histograms.Latency.Count != one.TotalCount() {
				t.Errorf("merged latency histogram (%d values) is not the histogram of every shard's latencies (%d)", got.TotalCount(), one.TotalCount())
			}
		})
	}
}

// TestLocalShardsThresholdOnMergedData: --local-shards judges the
// thresholds on the merged figures: "requests<R" for the whole run's R
// requests passes in every shard and fails the run.
func TestLocalShardsThresholdOnMergedData(t *testing.T) {
	srv := newCountingServer(t)
	tapePath := testtape.Record(t, transport.HTTP{URL: srv.srv.URL}, "http", testtape.Conversation("echo", `{"text":"call %d"}`, 4))
	args := []string{"run", tapePath, "--target", srv.srv.URL, "--sessions", "50", "--speed", "fast", "-o", "json"}
	res := replayctl(t, args...)
	if res.code != 0 {
		t.Fatalf("whole run: exit %d\n%s", res.code, res.stderr)
	}
	var whole struct {
		Performance struct {
			Requests int64 `json:"requests"`
		} `json:"performance"`
	}
	decodeJSON(t, res.stdout, &whole)
	requests := whole.Performance.Requests
	srv.take()

	shardDir := t.TempDir()
	res = replayctl(t, append(args, "--local-shards", "3", "--shard-reports", shardDir, "--threshold", fmt.Sprintf("requests<%d", requests))...)
	// On a failure, what each shard says it did: which one sent fewer
	// requests, and why (its errors, an abort).
	defer func() {
		if !t.Failed() {
			return
		}
		for i := range 3 {
			r, err := report.Read(filepath.Join(shardDir, fmt.Sprintf("shard-%d-of-3.json", i)))
			if err != nil {
				t.Logf("shard %d: no report: %v", i, err)
				continue
			}
			t.Logf("shard %d: %d sessions, %d requests, %d sent, %d received, %d skipped, errors %d, timeouts %d, aborted %q, error entries %+v",
				i, r.Summary.Sessions, r.Performance.Requests, r.Summary.Sent, r.Summary.Received, r.Summary.Skipped,
				r.Performance.Errors, r.Performance.Timeouts, r.Summary.Aborted, r.Errors)
		}
	}()
	if res.code != 1 {
		t.Fatalf("--local-shards 3 with requests<%d: exit %d, want 1\n%s", requests, res.code, res.stderr)
	}
	var merged struct {
		Summary struct {
			Sent   int64                `json:"sent"`
			Shards *report.MergedShards `json:"shards"`
		} `json:"summary"`
		Performance struct {
			Requests int64 `json:"requests"`
		} `json:"performance"`
		Thresholds []struct {
			Expr   string `json:"expr"`
			Passed bool   `json:"passed"`
		} `json:"thresholds"`
	}
	decodeJSON(t, res.stdout, &merged)
	if merged.Performance.Requests != requests || len(merged.Thresholds) != 1 || merged.Thresholds[0].Passed {
		t.Errorf("merged: %d requests, thresholds %+v; want %d and requests<%d failed\n%s\n%s", merged.Performance.Requests, merged.Thresholds, requests, requests, res.stdout, res.stderr)
	}
	if s := merged.Summary.Shards; s == nil || s.Count != 3 || len(s.Merged) != 3 {
		t.Errorf("summary.shards = %+v, want 3 of 3", s)
	}
	bodies := 0
	for _, c := range srv.take() {
		bodies += c
	}
	if int64(bodies) < requests {
		t.Errorf("the server got %d POSTs, fewer than the %d requests", bodies, requests)
	}

	// Every shard alone passes the same threshold.
	res = replayctl(t, append(args, "--shard", "1/3", "--threshold", fmt.Sprintf("requests<%d", requests))...)
	if res.code != 0 {
		t.Errorf("shard 1/3 alone with requests<%d: exit %d, want 0\n%s", requests, res.code, res.stderr)
	}
}

var startedLine = regexp.MustCompile(`local shards: shard (\d+)/(\d+) started \(pid (\d+)\)`)

// TestLocalShardsKilledShardIsNamed kills shard 1 of 3 as it starts: the
// merged report names it, and the run fails.
func TestLocalShardsKilledShardIsNamed(t *testing.T) {
	srv := newCountingServer(t)
	tapePath := testtape.Record(t, transport.HTTP{URL: srv.srv.URL}, "http", testtape.Conversation("echo", `{"text":"call %d"}`, 4))
	cmd := exec.Command(binary, "run", tapePath, "--target", srv.srv.URL, "--sessions", "6", "--speed", "fixed:20ms", "--local-shards", "3", "-o", "json")
	var out strings.Builder
	cmd.Stdout = &out
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var errText strings.Builder
	sc := bufio.NewScanner(stderr)
	killed := false
	for sc.Scan() {
		errText.WriteString(sc.Text() + "\n")
		if m := startedLine.FindStringSubmatch(sc.Text()); m != nil && m[1] == "1" && !killed {
			pid, _ := strconv.Atoi(m[3])
			if err := testos.Kill(pid); err != nil {
				t.Fatalf("kill shard 1 (pid %d): %v", pid, err)
			}
			killed = true
		}
	}
	err = cmd.Wait()
	code := cmd.ProcessState.ExitCode()
	if !killed || code != 1 {
		t.Fatalf("killed %t, exit %d (%v), want 1\n%s", killed, code, err, errText.String())
	}
	var rep struct {
		Summary struct {
			Aborted  string               `json:"aborted"`
			Shards   *report.MergedShards `json:"shards"`
			Sessions int                  `json:"sessions"`
		} `json:"summary"`
	}
	decodeJSON(t, out.String(), &rep)
	if !strings.Contains(rep.Summary.Aborted, "shard 1/3 ended without a report") {
		t.Errorf("summary.aborted = %q, want shard 1/3 named", rep.Summary.Aborted)
	}
	if s := rep.Summary.Shards; s == nil || !slices.Equal(s.Missing, []int{1}) || rep.Summary.Sessions != 4 {
		t.Errorf("summary.shards = %+v with %d sessions, want shard 1 missing and 4 sessions of 6", s, rep.Summary.Sessions)
	}
}

// decodeJSON decodes the binary's JSON output into v.
func decodeJSON(t *testing.T, out string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("decode the JSON output: %v\n%s", err, out)
	}
}

// TestShardFlagErrors: a bad --shard or --local-shards is exit 2, saying
// what to give.
func TestShardFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "4/4"}, "from 0 to N-1"},
		{[]string{"--shard", "1"}, "want I/N"},
		{[]string{"--shard", "0/0"}, "want I/N"},
		{[]string{"--local-shards", "0"}, "want 1 to 256"},
		{[]string{"--local-shards", "2", "--shard", "0/2"}, "leave out --shard"},
		{[]string{"--local-shards", "2", "--out", "json=-"}, "--out is not supported"},
		{[]string{"--shard-reports", "x"}, "give --local-shards N too"},
	} {
		res := replayctl(t, append([]string{"run", "examples/quickstart.jsonl", "--speed", "fast"}, tc.args...)...)
		if res.code != 2 || !strings.Contains(res.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, res.code, res.stderr, tc.want)
		}
	}
}

// TestLocalShardsInterrupted: SIGINT to the runner once every shard is
// replaying stops them all as one run: each writes what it replayed, the
// merged report covers every shard and says it was interrupted, exit 130.
func TestLocalShardsInterrupted(t *testing.T) {
	srv := newCountingServer(t)
	tapePath := testtape.Record(t, transport.HTTP{URL: srv.srv.URL}, "http", testtape.Conversation("echo", `{"text":"call %d"}`, 4))
	srv.take()
	for len(srv.posts) > 0 {
		<-srv.posts
	}
	// 6 sessions × 6 messages at fixed:100ms: 3.6 s unless interrupted.
	cmd := exec.Command(binary, "run", tapePath, "--target", srv.srv.URL, "--sessions", "6", "--speed", "fixed:100ms", "--local-shards", "3", "-o", "json")
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Every session's initialize has reached the server: every shard is
	// replaying (its signal handling long set up).
	inits := 0
	timeout := time.After(30 * time.Second)
	for inits < 6 {
		select {
		case b := <-srv.posts:
			if strings.Contains(b, `"initialize"`) {
				inits++
			}
		case <-timeout:
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("%d initialize requests in 30 s, want 6\n%s", inits, errb.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Fatalf("exit %d, want %d\n%s", code, exitInterrupted, errb.String())
	}
	var rep struct {
		Summary struct {
			Aborted string               `json:"aborted"`
			Sent    int64                `json:"sent"`
			Shards  *report.MergedShards `json:"shards"`
		} `json:"summary"`
	}
	decodeJSON(t, out.String(), &rep)
	if s := rep.Summary.Shards; s == nil || len(s.Merged) != 3 || len(s.Missing) != 0 {
		t.Errorf("summary.shards = %+v, want all 3 merged\n%s", s, errb.String())
	}
	if !strings.Contains(rep.Summary.Aborted, "interrupted") || rep.Summary.Sent >= 36 {
		t.Errorf("aborted %q, %d sent; want interrupted, fewer than 36 sent", rep.Summary.Aborted, rep.Summary.Sent)
	}
}

// TestLocalShardsTargetFailed: a target that cannot be reached fails a
// --local-shards run as it fails one process: exit 3, the shard named by
// its index, not by the temporary file its report was in (exit 1 and a
// deleted path before).
func TestLocalShardsTargetFailed(t *testing.T) {
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--target", "http://127.0.0.1:1/mcp", "--local-shards", "2")
	if res.code != exitTarget {
		t.Errorf("exit %d, want %d\n%s%s", res.code, exitTarget, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stdout, "stopped early: shard 0/2: connect session s1") || strings.Contains(res.stdout+res.stderr, "replayctl-shards-") {
		t.Errorf("want the failure named by its shard, and no temporary path:\n%s%s", res.stdout, res.stderr)
	}
}

// TestLocalShardsBadTape: a tape torn in the middle fails --local-shards
// as it fails one process: exit 2, the tape's error said once, and no
// warning that a shard had nothing to replay (exit 1, the error three
// times and that warning before).
func TestLocalShardsBadTape(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", "quickstart.jsonl")) // the tests run in cmd/replayctl
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	lines[5] = lines[5][:len(lines[5])/2] // line 6 cut short
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	res := replayctl(t, "run", bad, "--local-shards", "2", "-q")
	const want = "line 6: the line is cut short (torn)"
	if res.code != exitBadInput || strings.Count(res.stdout+res.stderr, want) != 1 {
		t.Errorf("exit %d, %q said %d times; want exit %d, said once\n%s%s", res.code, want, strings.Count(res.stdout+res.stderr, want), exitBadInput, res.stdout, res.stderr)
	}
	if strings.Contains(res.stdout+res.stderr, "has no session to replay") {
		t.Errorf("a warning that a shard had nothing to replay:\n%s%s", res.stdout, res.stderr)
	}
}

// TestLocalShardsInterruptedBeforeStart: shards interrupted while they
// wait for a common start far ahead say they were stopped before their
// start, exit 130, and do not warn that they had no session to replay
// ("the run has 0 session(s)" before: they had not read the tape yet).
func TestLocalShardsInterruptedBeforeStart(t *testing.T) {
	p := start(t, nil, "run", "examples/quickstart.jsonl", "--local-shards", "2", "--sessions", "4", "--speed", "0.05x", "--start-lead", "10m")
	deadline := time.After(60 * time.Second)
	for strings.Count(p.err.String(), "the common start is") < 2 {
		select {
		case <-p.done:
			t.Fatalf("the run ended (exit %d) before both shards heard of the start:\n%s%s", p.code, p.out.String(), p.err.String())
		case <-deadline:
			t.Fatalf("the shards did not hear of the common start in 60 s:\n%s", p.err.String())
		case <-p.err.Wrote():
		}
	}
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t); code != exitInterrupted {
		t.Errorf("exit %d, want %d", code, exitInterrupted)
	}
	out := p.out.String() + p.err.String()
	if strings.Contains(out, "has no session to replay") {
		t.Errorf("a shard stopped before its start warned that it had no session:\n%s", out)
	}
	for _, shard := range []string{"0/2", "1/2"} {
		if want := "shard " + shard + " was stopped before its start"; !strings.Contains(out, want) {
			t.Errorf("want %q in the report:\n%s", want, out)
		}
	}
}

// TestLocalShardsCleanRunNoWarning: a clean --local-shards run warns of
// nothing: a shard's control long-poll ended by the run's end is not a
// refused call (one "WRN coordinator: refused a shard's call: context
// canceled" per shard before).
func TestLocalShardsCleanRunNoWarning(t *testing.T) {
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--sessions", "50", "--speed", "fast", "--local-shards", "2")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s%s", res.code, res.stdout, res.stderr)
	}
	if strings.Contains(res.stderr, "WRN") {
		t.Errorf("a clean run warned:\n%s", res.stderr)
	}
}
