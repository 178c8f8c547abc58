package history_test

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/replayctl/replayctl/history"
	"github.com/replayctl/replayctl/report"
)

func TestParseBudget(t *testing.T) {
	for _, tc := range []struct {
		in       string
		metric   string
		up       bool
		relative float64
		absolute float64
		err      string
	}{
		{in: "p99{method:tools/call}+20%", metric: "p99{method:tools/call}", up: true, relative: 0.2},
		{in: "throughput-10%", metric: "throughput", relative: 0.1},
		{in: "error_rate+0.5pt", metric: "error_rate", up: true, absolute: 0.5},
		{in: "p95 + 5ms", metric: "p95", up: true, absolute: 5},
		{in: "p99{tool:my-tool}+15%", metric: "p99{tool:my-tool}", up: true, relative: 0.15},
		{in: "p99*20%", err: "no + or -"},
		{in: "p98+20%", err: "unknown metric"},
		{in: "throughput+1pt", err: "points (pt) are for rates"},
		{in: "error_rate+5ms", err: "want a percentage"},
		{in: "p99+lots%", err: "want a percentage"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			b, err := history.ParseBudget(tc.in)
			if tc.err != "" {
				if !errors.Is(err, history.ErrBudget) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want ErrBudget with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if b.Metric.String() != tc.metric || b.Up != tc.up || b.Relative != tc.relative || b.Absolute != tc.absolute {
				t.Errorf("got %s up %v rel %v abs %v, want %s %v %v %v", b.Metric, b.Up, b.Relative, b.Absolute, tc.metric, tc.up, tc.relative, tc.absolute)
			}
		})
	}
}

func TestBudgetRegressed(t *testing.T) {
	up, _ := history.ParseBudget("p99+20%")
	down, _ := history.ParseBudget("throughput-10%")
	pts, _ := history.ParseBudget("error_rate+0.5pt")
	for _, tc := range []struct {
		b               history.Budget
		value, baseline float64
		want            bool
	}{
		{up, 119, 100, false}, {up, 121, 100, true},
		{down, 91, 100, false}, {down, 89, 100, true},
		{pts, 1.4, 1, false}, {pts, 1.6, 1, true},
	} {
		if got := tc.b.Regressed(tc.value, tc.baseline); got != tc.want {
			t.Errorf("%s: %v against %v: got %v, want %v", tc.b.Expr, tc.value, tc.baseline, got, tc.want)
		}
	}
	if m := history.Median([]float64{5, 1, 3, 100}); m != 4 {
		t.Errorf("median %v, want 4", m)
	}
}

// sample is a histogram of n latencies around mean µs (normal, sd 5%).
func sample(seed uint64, n int, mean float64) *hdrhistogram.Histogram {
	h := hdrhistogram.New(1, 3_600_000_000, 3)
	rng := rand.New(rand.NewPCG(seed, 7))
	for range n {
		_ = h.RecordValue(int64(mean * (1 + 0.05*rng.NormFloat64())))
	}
	return h
}

func TestKSAndMannWhitney(t *testing.T) {
	same, same2 := sample(1, 2000, 20000), sample(2, 2000, 20000)
	slower := sample(3, 2000, 26000)
	if d, p := history.KS(same, same2); p < 0.01 || d > 0.1 {
		t.Errorf("same distribution: D %v p %v, want p >= 0.01", d, p)
	}
	if d, p := history.KS(same, slower); p > 1e-6 || d < 0.9 {
		t.Errorf("30%% slower: D %v p %v, want D near 1, p tiny", d, p)
	}
	if prob, p := history.MannWhitney(same, slower); prob < 0.99 || p > 1e-6 {
		t.Errorf("MW 30%% slower: P(B>A) %v p %v, want near 1 and tiny", prob, p)
	}
	if prob, p := history.MannWhitney(same, same2); math.Abs(prob-0.5) > 0.05 || p < 0.01 {
		t.Errorf("MW same: P(B>A) %v p %v, want near 0.5, p >= 0.01", prob, p)
	}
	empty := hdrhistogram.New(1, 3_600_000_000, 3)
	if d, p := history.KS(same, empty); d != 0 || p != 1 {
		t.Errorf("empty side: D %v p %v, want 0 and 1", d, p)
	}
	changes := history.Compare(
		map[history.Group]*hdrhistogram.Histogram{{Method: "a"}: same, {Method: "b"}: same},
		map[history.Group]*hdrhistogram.Histogram{{Method: "a"}: same2, {Method: "b"}: slower, {Method: "c"}: same},
		history.CompareOptions{})
	got := map[string]string{}
	for _, c := range changes {
		got[c.Method] = map[bool]string{true: "changed", false: "same"}[c.Changed] + c.Missing
	}
	want := map[string]string{"a": "same", "b": "changed", "c": "sameonly in B"}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("compare %s: %q, want %q", k, got[k], w)
		}
	}
}

func TestFlakyOf(t *testing.T) {
	diff := []report.Difference{{Path: "result.x", Expected: json.RawMessage(`1`), Actual: json.RawMessage(`2`)}}
	obs := func(verdicts string, version string) []history.Observation {
		var out []history.Observation
		for i, c := range verdicts {
			o := history.Observation{Run: int64(i + 1), Version: version}
			switch c {
			case 'P':
				o.Verdict = report.Passed
			case 'F':
				o.Verdict, o.Differences = report.Failed, diff
			case 'S':
				o.Verdict = report.Skipped
			}
			out = append(out, o)
		}
		return out
	}
	for _, tc := range []struct {
		verdicts     string
		flaky        bool
		flips        int
		passRate     float64
		inconsistent bool
	}{
		{"PPPPP", false, 0, 1, false},
		{"PFPFP", true, 4, 0.6, true},
		{"PFPF", false, 3, 0.5, true},       // fewer than 5 runs
		{"PPPPPPPPPF", false, 1, 0.9, true}, // pass rate 0.9: flips, not flaky
		{"FFFFFFFFPP", false, 1, 0.2, true}, // 0.2 is not inside (0.2, 0.8)
		{"PSFSPSFSPS", true, 4, 0.6, true},  // skipped runs do not count
	} {
		f := history.FlakyOf(obs(tc.verdicts, "v1"), history.DefaultRule)
		if f.Flaky != tc.flaky || f.Flips != tc.flips || f.PassRate != tc.passRate || (len(f.Inconsistent) > 0) != tc.inconsistent {
			t.Errorf("%s: flaky %v flips %d pass rate %v inconsistent %v; want %v %d %v %v", tc.verdicts, f.Flaky, f.Flips, f.PassRate, f.Inconsistent, tc.flaky, tc.flips, tc.passRate, tc.inconsistent)
		}
	}
	f := history.FlakyOf(obs("PFPFF", ""), history.DefaultRule)
	if len(f.Inconsistent) != 0 || len(f.Differences) != 1 || f.Differences[0].Runs != 3 || f.FirstFail != 2 || f.LastFail != 5 {
		t.Errorf("no version: %+v; want no inconsistency, one difference seen 3 times, fails 2..5", f)
	}
}

func TestSlope(t *testing.T) {
	pts := []history.Point{{Value: 1, Measured: true}, {Measured: false}, {Value: 5, Measured: true}}
	if s, n := history.Slope(pts); s != 2 || n != 2 {
		t.Errorf("slope %v over %d, want 2 over 2", s, n)
	}
}
