package history_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/replayctl/replayctl/history"
	"github.com/replayctl/replayctl/internal/testserver/moody"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
)

// fixture is a moody server on loopback and a tape of it.
type fixture struct {
	srv  *moody.Server
	url  string
	tape string
	hash string
}

func newFixture(t testing.TB, rounds int, tools ...string) fixture {
	t.Helper()
	srv := moody.New()
	hs := httptest.NewServer(srv) // 127.0.0.1
	t.Cleanup(hs.Close)
	path := filepath.Join(t.TempDir(), "moody.jsonl")
	if err := os.WriteFile(path, moody.Tape(rounds, tools...), 0o644); err != nil {
		t.Fatal(err)
	}
	hash, err := history.HashFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fixture{srv: srv, url: hs.URL + "/mcp", tape: path, hash: hash}
}

func (f fixture) run(t testing.TB, opts ...replay.Option) *report.Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	opts = append([]replay.Option{replay.Against(replay.HTTP(f.url)), replay.WithSpeed(replay.Fast())}, opts...)
	rep, err := replay.Run(ctx, f.tape, opts...)
	if err != nil && rep == nil {
		t.Fatalf("replay: %v", err)
	}
	return rep
}

func openStore(t *testing.T, dir string) *history.Store {
	t.Helper()
	s, err := history.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestFlakyNamesTheFlakyTool: 20 runs against a server that answers tool
// "flaky" wrongly in 6 of them (a seeded choice) and "steady" always
// right; history names exactly the flaky tool's messages, with their flip
// rate, pass rate and the differences on each side.
func TestFlakyNamesTheFlakyTool(t *testing.T) {
	f := newFixture(t, 2, "steady", "flaky")
	s := openStore(t, t.TempDir())
	ctx := context.Background()
	wrong := map[int]bool{}
	for _, i := range rand.New(rand.NewPCG(29, 1)).Perm(20)[:6] {
		wrong[i] = true
	}
	var verdicts []bool // the flaky tool's pass per run
	for i := range 20 {
		f.srv.SetWrong("flaky", wrong[i])
		rep := f.run(t)
		if got, want := rep.Validation.Failed, map[bool]int64{false: 0, true: 2}[wrong[i]]; got != want {
			t.Fatalf("run %d: %d failed, want %d", i+1, got, want)
		}
		if _, err := s.Record(ctx, rep, history.Info{TapeHash: f.hash, Version: "v1"}); err != nil {
			t.Fatal(err)
		}
		verdicts = append(verdicts, !wrong[i])
	}
	flips := 0
	for i := 1; i < len(verdicts); i++ {
		if verdicts[i] != verdicts[i-1] {
			flips++
		}
	}
	got, err := s.Flaky(ctx, history.Query{Tape: f.hash}, history.DefaultRule)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("got %d flaky messages, want the 2 calls of tool flaky: %+v", len(got), got)
	}
	for _, fl := range got {
		if fl.Method != "tools/call" || !fl.Flaky {
			t.Errorf("%s/%d %s: flaky %v, want a flaky tools/call", fl.Session, fl.Seq, fl.Method, fl.Flaky)
		}
		if fl.Runs != 20 || fl.Passes != 14 || fl.PassRate != 0.7 {
			t.Errorf("seq %d: runs %d passes %d pass rate %v, want 20, 14, 0.7", fl.Seq, fl.Runs, fl.Passes, fl.PassRate)
		}
		if fl.Flips != flips || fl.FlipRate != float64(flips)/19 {
			t.Errorf("seq %d: flips %d (rate %v), want %d", fl.Seq, fl.Flips, fl.FlipRate, flips)
		}
		if !slices.Equal(fl.Inconsistent, []string{"v1"}) {
			t.Errorf("seq %d: inconsistent versions %v, want [v1]", fl.Seq, fl.Inconsistent)
		}
		if len(fl.Differences) != 1 || fl.Differences[0].Runs != 6 {
			t.Fatalf("seq %d: differences %+v, want one seen in 6 runs", fl.Seq, fl.Differences)
		}
		d := fl.Differences[0]
		want := fmt.Sprintf(`"flaky %d"`, map[int64]int{4: 0, 10: 1}[fl.Seq])
		if string(d.Expected) != want || string(d.Actual) != `"wrong"` {
			t.Errorf("seq %d: difference %s: expected %s actual %s, want %s and \"wrong\"", fl.Seq, d.Path, d.Expected, d.Actual, want)
		}
	}
}

// syntheticRun is the report of a run of 4 sessions, each with 2
// tools/call of tool "echo" and 2 pings, each answered after the delay of
// its method plus a jitter of up to 20ms drawn from rng: the latencies of
// a run against a server with fixed delays, known exactly, so that no
// load of the machine can move them.
func syntheticRun(rng *rand.Rand, delays map[string]time.Duration) *report.Report {
	c := report.NewCollector()
	start := time.Unix(1_800_000_000, 0)
	c.Start(start)
	at := start
	var seq int64
	for s := range 4 {
		session := fmt.Sprintf("s%d", s+1)
		for range 2 {
			for _, m := range []struct{ method, name string }{{"tools/call", "echo"}, {"ping", ""}} {
				lat := delays[m.method] + time.Duration(rng.IntN(20_000))*time.Microsecond
				c.Add(report.Result{Seq: seq, Session: session, Method: m.method, Name: m.name, Dir: report.DirC2S,
					Kind: report.KindRequest, Due: at, Sent: at, Answered: at.Add(lat), Verdict: report.Passed})
				seq++
				at = at.Add(lat)
			}
		}
	}
	c.Finish(at)
	rep := c.Report(report.Meta{Tape: "moody.jsonl", Sessions: 4})
	return &rep
}

// TestSlowerMethodFoundAndGated: 20 runs, tools/call 30% slower from run
// 11 on (500ms, then 650ms; ping stays at 500ms). compare finds
// tools/call changed and ping not; the regression gate fails run 11 on
// tools/call only. The runs' reports are synthetic (syntheticRun): what
// is tested is the gate and compare on known latencies, which a loaded
// machine's scheduling noise (it failed the gate when the latencies were
// measured against a live server) cannot change.
func TestSlowerMethodFoundAndGated(t *testing.T) {
	s := openStore(t, t.TempDir())
	ctx := context.Background()
	hash := history.HashPrefix + "synthetic"
	delays := map[string]time.Duration{"tools/call": 500 * time.Millisecond, "ping": 500 * time.Millisecond}
	rng := rand.New(rand.NewPCG(31, 7))
	budgets := []history.Budget{}
	for _, e := range []string{"p99{method:tools/call}+20%", "p95{method:tools/call}+15%", "p99{method:ping}+20%", "p95{method:ping}+15%", "error_rate+0.5pt"} {
		b, err := history.ParseBudget(e)
		if err != nil {
			t.Fatal(err)
		}
		budgets = append(budgets, b)
	}
	for i := range 20 {
		if i == 10 {
			delays["tools/call"] = 650 * time.Millisecond
		}
		rep := syntheticRun(rng, delays)
		if !rep.Passed() {
			t.Fatalf("run %d did not pass: %+v", i+1, rep.Summary)
		}
		if i == 10 {
			res, err := s.Gate(ctx, rep, hash, budgets, 5, 0)
			if err != nil {
				t.Fatal(err)
			}
			for j, r := range res {
				wantPass := j >= 2 // the tools/call budgets fail, the rest hold
				if r.Passed != wantPass {
					t.Errorf("gate %s: passed %v, want %v (value %s, limit %s, %s)", r.Expr, r.Passed, wantPass, r.Value, r.Limit, r.Detail)
				}
			}
		}
		if _, err := s.Record(ctx, rep, history.Info{TapeHash: hash}); err != nil {
			t.Fatal(err)
		}
	}
	// The 5 runs either side of the change: ping must not be found
	// changed there; tools/call must be, there and over all 10 runs
	// either side.
	compare := func(refA, refB string) map[string]history.Change {
		t.Helper()
		sides := [2]map[history.Group]*hdrhistogram.Histogram{}
		for i, ref := range []string{refA, refB} {
			ids, err := s.Select(ctx, ref, history.Query{})
			if err != nil {
				t.Fatal(err)
			}
			if sides[i], err = s.Histograms(ctx, ids); err != nil {
				t.Fatal(err)
			}
		}
		out := map[string]history.Change{}
		for _, c := range history.Compare(sides[0], sides[1], history.CompareOptions{}) {
			key := c.Method
			if c.Name != "" {
				key += " " + c.Name
			}
			out[key] = c
		}
		return out
	}
	near := compare("6..10", "11..15")
	want := map[string]bool{"tools/call": true, "tools/call echo": true, "ping": false}
	for k, w := range want {
		if c := near[k]; c.Changed != w {
			t.Errorf("6..10 against 11..15: %s changed %v, want %v (%+v)", k, c.Changed, w, c)
		}
	}
	for k, c := range compare("1..10", "11..20") {
		if strings.HasPrefix(k, "tools/call") && (!c.Changed || c.Effect.P50 < 100 || c.Effect.P50 > 200) {
			t.Errorf("1..10 against 11..20: %s changed %v, p50 effect %.1fms; want changed, about 150ms (%+v)", k, c.Changed, c.Effect.P50, c)
		}
	}
}

// TestParallelWritersLoseNoRun: 4 writers, each with its own connection
// to the store, record 25 runs each at once; all 100 are there.
func TestParallelWritersLoseNoRun(t *testing.T) {
	f := newFixture(t, 1, "echo")
	base := f.run(t)
	dir := t.TempDir()
	openStore(t, dir) // made once, so the writers race on writes, not on creation only
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := range 4 {
		wg.Go(func() {
			s, err := history.Open(context.Background(), dir)
			if err != nil {
				errs <- err
				return
			}
			defer s.Close()
			for i := range 25 {
				rep := *base
				rep.Summary.RunID = fmt.Sprintf("writer-%d-run-%02d", w, i)
				if _, err := s.Record(context.Background(), &rep, history.Info{TapeHash: f.hash}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	runs, err := openStore(t, dir).Runs(context.Background(), history.Query{Tape: f.hash})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 100 {
		t.Fatalf("%d runs stored, want 100", len(runs))
	}
}

// TestParallelOpenersOfANewStore: writers that open a store that does
// not exist yet, all at once (CI jobs sharing a fresh folder), each keep
// their run: the store's creation and its switch to WAL are waited for,
// never an error.
func TestParallelOpenersOfANewStore(t *testing.T) {
	f := newFixture(t, 1, "echo")
	base := f.run(t)
	const rounds, writers = 10, 6
	for r := range rounds {
		dir := filepath.Join(t.TempDir(), "runs")
		start := make(chan struct{})
		var wg sync.WaitGroup
		errs := make(chan error, writers)
		for w := range writers {
			wg.Go(func() {
				<-start
				s, err := history.Open(context.Background(), dir)
				if err != nil {
					errs <- fmt.Errorf("round %d, writer %d: open: %w", r, w, err)
					return
				}
				defer s.Close()
				rep := *base
				rep.Summary.RunID = fmt.Sprintf("round-%d-writer-%d", r, w)
				if _, err := s.Record(context.Background(), &rep, history.Info{TapeHash: f.hash}); err != nil {
					errs <- fmt.Errorf("round %d, writer %d: record: %w", r, w, err)
				}
			})
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if t.Failed() {
			return
		}
	}
}
