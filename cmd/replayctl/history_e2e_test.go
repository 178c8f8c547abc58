package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/replayctl/replayctl/history"
	"github.com/replayctl/replayctl/internal/testserver/moody"
	"github.com/replayctl/replayctl/report"
)

// moodyTape starts a moody server on loopback and writes its tape.
func moodyTape(t *testing.T, rounds int, tools ...string) (*moody.Server, string, string) {
	t.Helper()
	srv := moody.New()
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	path := filepath.Join(t.TempDir(), "moody.jsonl")
	if err := os.WriteFile(path, moody.Tape(rounds, tools...), 0o644); err != nil {
		t.Fatal(err)
	}
	return srv, hs.URL + "/mcp", path
}

// TestHistoryFlakyNamesTheFlakyTool: 20 runs of the binary against a
// server that answers tool "flaky" wrongly in a seeded 6 of them and
// "steady" always right; history flaky names the flaky tool's calls
// only, with pass rate, flip rate and the answers on each side.
func TestHistoryFlakyNamesTheFlakyTool(t *testing.T) {
	srv, url, tape := moodyTape(t, 1, "steady", "flaky")
	dir := t.TempDir()
	wrong := map[int]bool{}
	for _, i := range rand.New(rand.NewPCG(29, 2)).Perm(20)[:6] {
		wrong[i] = true
	}
	flips := 0
	for i := range 20 {
		srv.SetWrong("flaky", wrong[i])
		if i > 0 && wrong[i] != wrong[i-1] {
			flips++
		}
		res := replayctl(t, "run", tape, "--target", url, "--speed", "fast", "--history", dir, "--version-under-test", "v1", "-q")
		if want := map[bool]int{false: 0, true: 1}[wrong[i]]; res.code != want {
			t.Fatalf("run %d: exit %d, want %d\n%s%s", i+1, res.code, want, res.stdout, res.stderr)
		}
	}
	res := replayctl(t, "history", "flaky", "--history", dir)
	if res.code != 0 {
		t.Fatalf("history flaky: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	out := res.stdout
	for _, want := range []string{
		"s1 seq 4 tools/call",
		"FLAKY",
		"pass rate 70% (14 of 20 runs)",
		fmt.Sprintf("flip rate %.0f%% (%d flips)", float64(flips)/19*100, flips),
		"passed and failed on the same version: v1",
		`passing runs "flaky 0", failing runs "wrong" (6 runs)`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("history flaky lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "steady") || strings.Count(out, " seq ") != 1 {
		t.Errorf("history flaky names more than the flaky tool's call:\n%s", out)
	}
	list := replayctl(t, "history", "list", "--history", dir)
	if n := strings.Count(list.stdout, "moody.jsonl"); n != 20 {
		t.Errorf("history list shows %d runs, want 20:\n%s", n, list.stdout)
	}

	// Quarantined, the flaky tool's wrong answer warns; the steady one's
	// still fails.
	srv.SetWrong("flaky", true)
	res = replayctl(t, "run", tape, "--target", url, "--speed", "fast", "--history", dir, "--quarantine-flaky")
	if res.code != 0 || !strings.Contains(res.stdout, "quarantined (flaky: it warns instead of failing): s1 seq 4 tools/call, pass rate 67% over 21 runs") {
		t.Errorf("quarantined run: exit %d, want 0 and the quarantine listed:\n%s%s", res.code, res.stdout, res.stderr)
	}
	srv.SetWrong("flaky", false)
	srv.SetWrong("steady", true)
	res = replayctl(t, "run", tape, "--target", url, "--speed", "fast", "--history", dir, "--quarantine-flaky", "-q")
	if res.code != 1 {
		t.Errorf("steady tool wrong, with quarantine: exit %d, want 1", res.code)
	}
}

// keepSynthetic keeps in the store dir a run of tape whose latencies are
// known: 2 sessions of 10 tools/call of tool "echo" and 10 pings, each
// answered after its method's delay plus a jitter of up to 20ms drawn
// from rng, started at start.
func keepSynthetic(t *testing.T, dir, tape string, start time.Time, rng *rand.Rand, delays map[string]time.Duration) {
	t.Helper()
	c := report.NewCollector()
	c.Start(start)
	at := start
	var seq int64
	for s := range 2 {
		for range 10 {
			for _, m := range []struct{ method, name string }{{"tools/call", "echo"}, {"ping", ""}} {
				lat := delays[m.method] + time.Duration(rng.IntN(20_000))*time.Microsecond
				c.Add(report.Result{Seq: seq, Session: fmt.Sprintf("s%d", s+1), Method: m.method, Name: m.name, Dir: report.DirC2S,
					Kind: report.KindRequest, Due: at, Sent: at, Answered: at.Add(lat), Verdict: report.Passed})
				seq++
				at = at.Add(lat)
			}
		}
	}
	c.Finish(at)
	rep := c.Report(report.Meta{Tape: tape, Sessions: 2})
	keepReport(t, dir, tape, &rep)
}

// keepReport keeps rep, a run of tape, in the history store at dir.
func keepReport(t *testing.T, dir, tape string, rep *report.Report) {
	t.Helper()
	hash, err := history.HashFile(tape)
	if err != nil {
		t.Fatal(err)
	}
	s, err := history.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Record(t.Context(), rep, history.Info{TapeHash: hash}); err != nil {
		t.Fatal(err)
	}
}

// TestHistoryRegressionGate: 5 runs in the store with tools/call at
// 100ms and ping at 1s, then a run of the binary against a server that
// answers tools/call in 400ms and ping in 200ms: --fail-on-regression
// fails the run on tools/call only; and history compare of those 5 runs
// with 5 more at 400ms and 1s finds tools/call changed and ping not.
//
// The baseline runs are synthetic (keepSynthetic): their latencies are
// known, and the live run's are bounded below by the server's delays. A
// loaded machine only adds to a live latency, so the verdicts stand
// under any load: tools/call is at least 4 times its baseline (the
// budget allows 1.2), ping would need a second of delay to reach its.
// (Both measured live, at 200ms and 260ms, load moved the verdicts.)
func TestHistoryRegressionGate(t *testing.T) {
	srv, url, tape := moodyTape(t, 10, "echo")
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(31, 8))
	base := map[string]time.Duration{"tools/call": 100 * time.Millisecond, "ping": time.Second}
	start := time.Now().Add(-time.Hour)
	for i := range 5 {
		keepSynthetic(t, dir, tape, start.Add(time.Duration(i)*time.Minute), rng, base)
	}
	srv.SetDelay("tools/call", 400*time.Millisecond)
	srv.SetDelay("ping", 200*time.Millisecond)
	run := []string{"run", tape, "--target", url, "--speed", "fast", "--sessions", "2", "--history", dir}
	res := replayctl(t, append(run, "-o", "json",
		"--fail-on-regression", "p99{method:tools/call}+20%", "--fail-on-regression", "p99{method:ping}+20%", "--fail-on-regression", "error_rate+0.5pt")...)
	if res.code != 1 {
		t.Fatalf("slower run: exit %d, want 1\n%s", res.code, res.stderr)
	}
	var rep struct {
		Thresholds []struct {
			Expr   string `json:"expr"`
			Passed bool   `json:"passed"`
			Value  string `json:"value"`
			Limit  string `json:"limit"`
			Detail string `json:"detail"`
		} `json:"thresholds"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"p99{method:tools/call}+20%": false, "p99{method:ping}+20%": true, "error_rate+0.5pt": true}
	if len(rep.Thresholds) != len(want) {
		t.Fatalf("thresholds %+v, want %d", rep.Thresholds, len(want))
	}
	for _, th := range rep.Thresholds {
		if th.Passed != want[th.Expr] {
			t.Errorf("%s: passed %v, want %v (value %s, limit %s, %s)", th.Expr, th.Passed, want[th.Expr], th.Value, th.Limit, th.Detail)
		}
	}
	slower := map[string]time.Duration{"tools/call": 400 * time.Millisecond, "ping": time.Second}
	for i := range 5 { // runs 7 to 11, for compare
		keepSynthetic(t, dir, tape, time.Now().Add(time.Duration(i)*time.Minute), rng, slower)
	}
	cmp := replayctl(t, "history", "compare", "1..5", "7..11", "--history", dir)
	if cmp.code != 0 {
		t.Fatalf("history compare: exit %d\n%s", cmp.code, cmp.stderr)
	}
	changed := map[string]string{}
	for _, line := range strings.Split(cmp.stdout, "\n") {
		fields := strings.Fields(line)
		if len(fields) > 2 && fields[1] == "-" {
			changed[fields[0]] = fields[len(fields)-1]
		}
	}
	if changed["tools/call"] != "YES" || changed["ping"] != "no" {
		t.Errorf("compare: tools/call changed %q, ping %q; want YES and no:\n%s", changed["tools/call"], changed["ping"], cmp.stdout)
	}
}

// TestHistoryParallelWriters: 4 replayctl processes keep 3 runs each in
// one store at once; all 12 are kept.
func TestHistoryParallelWriters(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	results := make(chan result, 12)
	for range 4 {
		wg.Go(func() {
			for range 3 {
				results <- replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--history", dir, "-q")
			}
		})
	}
	wg.Wait()
	close(results)
	for res := range results {
		if res.code != 0 || res.stderr != "" {
			t.Errorf("run: exit %d, stderr %q", res.code, res.stderr)
		}
	}
	list := replayctl(t, "history", "--history", dir)
	if n := strings.Count(list.stdout, "quickstart.jsonl"); n != 12 {
		t.Errorf("history lists %d runs, want 12:\n%s", n, list.stdout)
	}
}

// TestHistoryStoreUnwritable: a --history that is a file, not a folder:
// the run is said not kept on stderr, its report is written and its exit
// status is that of the run; with a gate, the gate fails and says why.
func TestHistoryStoreUnwritable(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := filepath.Join(t.TempDir(), "r.json")
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--history", notDir, "--report", rep, "-q")
	if res.code != 0 || !strings.Contains(res.stderr, "history: run not kept") {
		t.Errorf("exit %d, stderr %q; want 0 and a line saying the run was not kept", res.code, res.stderr)
	}
	if _, err := os.Stat(rep); err != nil {
		t.Errorf("report not written: %v", err)
	}
	res = replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--history", notDir, "--fail-on-new-failure", "-q")
	if res.code != 1 || !strings.Contains(res.stderr, "could not be judged") {
		t.Errorf("with a gate: exit %d, stderr %q; want 1 and why", res.code, res.stderr)
	}
}

// TestHistoryBadInput: gates without a store, a bad budget, a bad metric,
// a missing store: exit 2 with what to do.
func TestHistoryBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "examples/quickstart.jsonl", "--fail-on-regression", "p99+20%"}, "--history DIR"},
		{[]string{"run", "examples/quickstart.jsonl", "--history", dir, "--fail-on-regression", "p99*20%"}, "no + or -"},
		{[]string{"run", "examples/quickstart.jsonl", "--history", dir, "--fail-on-regression", "throughput+1pt"}, "points (pt) are for rates"},
		{[]string{"run", "examples/quickstart.jsonl", "--history", dir, "--flaky-runs", "0"}, "--flaky-runs 0: want 1 or more"},
		{[]string{"run", "examples/quickstart.jsonl", "--history", dir, "--history-busy-timeout", "0s"}, "want a positive duration"},
		{[]string{"run", "examples/quickstart.jsonl", "--quarantine-flaky"}, "--history DIR"},
		{[]string{"run", "examples/quickstart.jsonl", "--history", dir, "--regression-alpha", "2"}, "want a probability between 0 and 1"},
		{[]string{"history", "--history", dir}, "holds no run store"},
		{[]string{"history", "trend", "p98", "--history", dir}, "unknown metric"},
		{[]string{"history", "lst", "--history", dir}, `did you mean "list"`},
		{[]string{"run", "examples/quickstart.jsonl", "--speed", "fsat"}, `did you mean "fast"`},
	} {
		res := replayctlEnv(t, []string{"REPLAYCTL_HISTORY="}, "", tc.args...)
		if res.code != 2 || !strings.Contains(res.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, res.code, res.stderr, tc.want)
		}
	}
	if res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--history", dir, "-q"); res.code != 0 {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"history", "compare", "1", "x..y", "--history", dir}, "want FIRST..LAST"},
		{[]string{"history", "compare", "1", "99", "--history", dir}, "holds no run 99"},
		{[]string{"history", "compare", "1", "abc", "--history", dir}, "at least 8 characters"},
		{[]string{"history", "compare", "1", "1", "--min-shift", "-5ms", "--history", dir}, "--min-shift -5ms: want a duration of 0 or more"},
	} {
		res := replayctl(t, tc.args...)
		if res.code != 2 || !strings.Contains(res.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, res.code, res.stderr, tc.want)
		}
	}
	// Latencies under a millisecond are shown in µs, not as 0.03 (ms),
	// and one run is "1 run".
	if res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--history", dir, "-q"); res.code != 0 {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
	cmp := replayctl(t, "history", "compare", "1", "2", "--history", dir)
	if cmp.code != 0 {
		t.Fatalf("history compare: exit %d\n%s", cmp.code, cmp.stderr)
	}
	if !strings.Contains(cmp.stdout, "A: 1 (1 run)  B: 2 (1 run)") || regexp.MustCompile(`\b0\.0\d*→|→0\.0\d*\s|[+-]0\.0\d*ms`).MatchString(cmp.stdout) {
		t.Errorf("history compare: want \"(1 run)\" and no latency rounded to 0.00:\n%s", cmp.stdout)
	}
}

// TestHistoryTrendHTMLAndEnv: runs kept through $REPLAYCTL_HISTORY and
// the version from $REPLAYCTL_VERSION_UNDER_TEST; trend writes text and a
// self-contained HTML chart.
func TestHistoryTrendHTMLAndEnv(t *testing.T) {
	dir := t.TempDir()
	env := []string{"REPLAYCTL_HISTORY=" + dir, "REPLAYCTL_VERSION_UNDER_TEST=abc123"}
	reports := t.TempDir()
	for range 3 {
		res := replayctlEnv(t, env, "", "run", "examples/quickstart.jsonl", "--speed", "fast", "-q",
			"--report", filepath.Join(reports, "r.json"), "--report", filepath.Join(reports, "r.html"))
		if res.code != 0 {
			t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
		}
	}
	// The last run's reports link it to the store, with a sparkline per method.
	var rep struct {
		History struct {
			Run    int64 `json:"run"`
			Trends []struct {
				Method string     `json:"method"`
				P99MS  []*float64 `json:"p99_ms"`
			} `json:"trends"`
		} `json:"history"`
	}
	if b, err := os.ReadFile(filepath.Join(reports, "r.json")); err != nil || json.Unmarshal(b, &rep) != nil {
		t.Fatalf("report: %v", err)
	}
	if rep.History.Run != 3 || len(rep.History.Trends) == 0 || len(rep.History.Trends[0].P99MS) != 3 {
		t.Errorf("history section %+v, want run 3 with 3 points per method", rep.History)
	}
	if b, _ := os.ReadFile(filepath.Join(reports, "r.html")); !strings.Contains(string(b), `<section id="history">`) || strings.Count(string(b), "<polyline") != len(rep.History.Trends) {
		t.Errorf("HTML report has no sparkline per method (%d methods)", len(rep.History.Trends))
	}
	html := filepath.Join(t.TempDir(), "trend.html")
	res := replayctlEnv(t, env, "", "history", "trend", "p99{method:tools/call}", "--html", html)
	if res.code != 0 || strings.Count(res.stdout, "abc123") != 3 {
		t.Fatalf("trend: exit %d, want 3 runs of abc123:\n%s%s", res.code, res.stdout, res.stderr)
	}
	b, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	if !strings.Contains(page, "<svg") || strings.Count(page, "<circle") != 3 || strings.Contains(page, "<script") || strings.Contains(page, "src=") {
		t.Errorf("trend page is not a self-contained chart of 3 runs:\n%s", page)
	}
}

// TestHistoryFolderPrecedence: the config's history key keeps runs; the
// environment wins over it, and --history over both.
func TestHistoryFolderPrecedence(t *testing.T) {
	base := t.TempDir()
	fromConfig, fromEnv, fromFlag := filepath.Join(base, "config"), filepath.Join(base, "env"), filepath.Join(base, "flag")
	cfg := filepath.Join(base, "replay.yaml")
	if err := os.WriteFile(cfg, []byte("history: "+fromConfig+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := []string{"run", "examples/quickstart.jsonl", "--speed", "fast", "--config", cfg, "-q"}
	for _, tc := range []struct {
		env  string
		args []string
	}{
		{"", nil},
		{fromEnv, nil},
		{fromEnv, []string{"--history", fromFlag}},
	} {
		if res := replayctlEnv(t, []string{"REPLAYCTL_HISTORY=" + tc.env}, "", append(run, tc.args...)...); res.code != 0 {
			t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
		}
	}
	for _, dir := range []string{fromConfig, fromEnv, fromFlag} {
		res := replayctlEnv(t, []string{"REPLAYCTL_HISTORY="}, "", "history", "--history", dir)
		if n := strings.Count(res.stdout, "quickstart.jsonl"); n != 1 {
			t.Errorf("%s holds %d runs, want 1:\n%s%s", dir, n, res.stdout, res.stderr)
		}
	}
}

// TestLocalShardsKeepOneRun: a run split into --local-shards keeps one
// run in --history, the merged one, not one a shard; REPLAYCTL_HISTORY in the environment does not make the
// shards keep theirs either. historyFlagNames, which the runner leaves out
// of the shards' arguments, names every flag of the run store.
func TestLocalShardsKeepOneRun(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(envHistory, dir)
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--sessions", "4", "--local-shards", "2", "-q")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	s, err := history.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs, err := s.Runs(t.Context(), history.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Options["local-shards"] != "2" || runs[0].Options["shard"] != "" {
		t.Errorf("runs kept %+v, want one: the runner's, not a shard's", runs)
	}

	fl := pflag.NewFlagSet("run", pflag.ContinueOnError)
	addHistoryFlags(fl, &historyFlags{})
	var all []string
	fl.VisitAll(func(f *pflag.Flag) { all = append(all, f.Name) })
	slices.Sort(all)
	names := slices.Sorted(slices.Values(historyFlagNames))
	if !slices.Equal(all, names) {
		t.Errorf("historyFlagNames %v, want the run store's flags %v", names, all)
	}
}

// TestHistoryBadNumbers: history's numbers that mean nothing exit 2
// naming the flag (they were taken: "changed when p < 5", every row
// changed).
func TestHistoryBadNumbers(t *testing.T) {
	dir := t.TempDir()
	if res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--history", dir, "-q"); res.code != 0 {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
	for _, args := range [][]string{
		{"compare", "1", "1", "--alpha", "5"},
		{"compare", "1", "1", "--alpha", "0"},
		{"compare", "1", "1", "--min-effect", "-1"},
		{"list", "--last", "-5"},
		{"flaky", "--min-runs", "-1"},
	} {
		res := replayctl(t, append(append([]string{"history"}, args...), "--history", dir)...)
		flag := args[len(args)-2]
		if res.code != 2 || !strings.Contains(res.stderr, flag) {
			t.Errorf("history %v: exit %d, stderr %q; want 2 naming %s", args, res.code, res.stderr, flag)
		}
	}
}

// TestHistoryNewFailure: --fail-on-new-failure's threshold fails the run
// whose check fails for the first time on the tape, naming the message as
// everything names one (s1 seq N), and passes once the failure is known.
func TestHistoryNewFailure(t *testing.T) {
	srv, url, tape := moodyTape(t, 1, "steady", "flaky")
	dir := t.TempDir()
	newFailures := func(wrong bool) report.ThresholdResult {
		t.Helper()
		srv.SetWrong("flaky", wrong)
		res := replayctl(t, "run", tape, "--target", url, "--speed", "fast", "--history", dir, "--fail-on-new-failure", "-o", "json", "-q")
		var rep report.Report
		if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
			t.Fatalf("exit %d, stdout not a report: %v\n%s", res.code, err, res.stderr)
		}
		for _, th := range rep.Thresholds {
			if th.Metric == "new_failures" {
				return th
			}
		}
		t.Fatalf("no new_failures threshold in %+v", rep.Thresholds)
		return report.ThresholdResult{}
	}
	if th := newFailures(false); !th.Passed {
		t.Errorf("a clean first run: %+v, want passed", th)
	}
	th := newFailures(true)
	if th.Passed || !regexp.MustCompile(`failed for the first time on this tape: s1 seq \d+ tools/call`).MatchString(th.Detail) {
		t.Errorf("the first failure: %+v, want failed, naming s1 seq N tools/call", th)
	}
	if th := newFailures(true); !th.Passed {
		t.Errorf("the same failure again: %+v, want passed (not new)", th)
	}
}

// TestHistoryCommandOnAFile: history --history FILE says it is a file and
// names a folder, not "keep runs there with run --history FILE", which
// run would refuse.
func TestHistoryCommandOnAFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := replayctl(t, "history", "--history", file)
	if res.code != 2 || !strings.Contains(res.stderr, file+" is a file") || strings.Contains(res.stderr, "run --history "+file) {
		t.Errorf("history --history FILE: exit %d, want 2, a message that it is a file and no advice to keep runs in it\nstderr: %s", res.code, res.stderr)
	}
}

// TestHistoryUnknownTape: a --tape that names no run kept (here the
// file's base name, where run was given its path) is refused, exit 2,
// naming the tapes the store has; list said "no runs", trend printed its
// header alone and flaky "no message flipped between runs", each exit 0,
// so a typo in a CI job passed unseen.
func TestHistoryUnknownTape(t *testing.T) {
	dir := t.TempDir()
	if res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--history", dir, "-q"); res.code != 0 {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
	for _, args := range [][]string{
		{"list"},
		{"trend", "p99"},
		{"flaky"},
		{"compare", "1", "1"},
	} {
		res := replayctl(t, append(append([]string{"history"}, args...), "--history", dir, "--tape", "quickstart.jsonl")...)
		for _, want := range []string{"--tape quickstart.jsonl: no run", "examples/quickstart.jsonl"} {
			if res.code != 2 || !strings.Contains(res.stderr, want) {
				t.Errorf("history %v --tape quickstart.jsonl: exit %d, stderr %q; want 2 and %q", args, res.code, res.stderr, want)
			}
		}
	}
	// The name run was given, and the hash's first 8 hex digits, find it.
	list := replayctl(t, "history", "--history", dir)
	hash := regexp.MustCompile(`\b[0-9a-f]{8}\b`).FindString(list.stdout)
	if hash == "" { // --tape "" filters nothing: the hash would pass untested
		t.Fatalf("history list shows no 8-digit hash:\n%s%s", list.stdout, list.stderr)
	}
	for _, tape := range []string{"examples/quickstart.jsonl", hash} {
		if res := replayctl(t, "history", "trend", "p99", "--history", dir, "--tape", tape); res.code != 0 || !strings.Contains(res.stdout, "\n1 ") {
			t.Errorf("history trend --tape %s: exit %d\n%s%s; want run 1", tape, res.code, res.stdout, res.stderr)
		}
	}
}

// TestHistoryFlakySaysOneFlip: two runs, the flaky tool right then
// wrong: one flip, one failing run, said in the singular ("(1 flips)"
// before).
func TestHistoryFlakySaysOneFlip(t *testing.T) {
	srv, url, tape := moodyTape(t, 1, "flaky")
	dir := t.TempDir()
	for i, wrong := range []bool{false, true} {
		srv.SetWrong("flaky", wrong)
		res := replayctl(t, "run", tape, "--target", url, "--speed", "fast", "--history", dir, "-q")
		if want := map[bool]int{false: 0, true: 1}[wrong]; res.code != want {
			t.Fatalf("run %d: exit %d, want %d\n%s%s", i+1, res.code, want, res.stdout, res.stderr)
		}
	}
	res := replayctl(t, "history", "flaky", "--history", dir)
	if res.code != 0 {
		t.Fatalf("history flaky: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	for _, want := range []string{"(1 of 2 runs)", "(1 flip)", "(1 run)\n"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("history flaky lacks %q:\n%s", want, res.stdout)
		}
	}
}
