package history

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/report"
)

// ErrBudget is wrapped by every error [ParseBudget] returns.
var ErrBudget = errors.New("history: bad regression budget")

// DefaultBaselineRuns is how many of the tape's last runs a regression
// gate compares a run with.
const DefaultBaselineRuns = 5

// DefaultGateAlpha is the significance level a latency budget's
// distribution test must reach before the gate fails a run: stricter than
// [DefaultAlpha], since a failed gate stops a pipeline, and one run's
// latencies on a busy machine move together (a burst of load shifts them
// all) more than independent samples would. A real 30% slowdown over a few
// dozen latencies is far below it (p around 1e-6).
const DefaultGateAlpha = 0.001

// Budget is how far a metric may move from its baseline before a run
// counts as a regression: "p99{method:tools/call}+20%" (may rise 20%),
// "throughput-10%" (may fall 10%), "error_rate+0.5pt" (may rise half a
// percentage point), "p95+5ms".
type Budget struct {
	Expr   string
	Metric report.Metric
	// Up: higher is worse (the budget is a rise); false: lower is worse.
	Up bool
	// Relative is the allowed move as a fraction of the baseline (0.2 for
	// 20%); Absolute, when Relative is 0, in the metric's unit
	// (percentage points for a rate).
	Relative, Absolute float64
}

// ParseBudget reads a budget: a metric as a threshold names it (with its
// filter), then + (may rise) or - (may fall), then the move allowed: a
// percentage of the baseline ("20%"), points of a rate ("0.5pt"), or a
// duration ("5ms").
func ParseBudget(s string) (Budget, error) {
	whole := strings.TrimSpace(s)
	bad := func(format string, a ...any) (Budget, error) {
		return Budget{}, fmt.Errorf("%w %q: %s", ErrBudget, whole, fmt.Sprintf(format, a...))
	}
	from := 0
	if i := strings.IndexByte(whole, '}'); i >= 0 {
		from = i
	}
	at := strings.IndexAny(whole[from:], "+-")
	if at < 0 {
		return bad("no + or -; write METRIC+N%% (may rise N%%) or METRIC-N%% (may fall N%%), e.g. p99{method:tools/call}+20%%, throughput-10%%, error_rate+0.5pt")
	}
	at += from
	m, err := report.ParseMetric(whole[:at])
	if err != nil {
		return bad("%v", err)
	}
	b := Budget{Expr: whole, Metric: m, Up: whole[at] == '+'}
	amount := strings.TrimSpace(whole[at+1:])
	switch {
	case strings.HasSuffix(amount, "%"):
		f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(amount, "%")), 64)
		if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
			return bad("%q: want a percentage of the baseline such as 20%%", amount)
		}
		b.Relative = f / 100
	case strings.HasSuffix(amount, "pt") || strings.HasSuffix(amount, "points"):
		if m.Unit() != "%" {
			return bad("points (pt) are for rates; %s is in %q: give a percentage of the baseline, e.g. %s%c10%%", m, m.Unit(), m, whole[at])
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(amount, "points"), "pt")), 64)
		if err != nil || f < 0 {
			return bad("%q: want percentage points such as 0.5pt", amount)
		}
		b.Absolute = f
	default:
		if !m.IsDuration() {
			return bad("%q: want a percentage of the baseline such as 10%%, or points of a rate such as 0.5pt", amount)
		}
		t, err := report.ParseThreshold(m.Name + "<" + amount)
		if err != nil || t.Limit < 0 {
			return bad("%q: want a percentage such as 20%% or a duration such as 5ms", amount)
		}
		b.Absolute = t.Limit
	}
	if b.Relative == 0 && b.Absolute == 0 && !strings.HasPrefix(amount, "0") {
		return bad("%q: no move allowed", amount)
	}
	return b, nil
}

// Limit is the worst value b allows against baseline.
func (b Budget) Limit(baseline float64) float64 {
	move := b.Absolute
	if b.Relative != 0 {
		move = math.Abs(baseline) * b.Relative
	}
	if b.Up {
		return baseline + move
	}
	return baseline - move
}

// Regressed reports whether value is past b's limit against baseline.
func (b Budget) Regressed(value, baseline float64) bool {
	if b.Up {
		return value > b.Limit(baseline)
	}
	return value < b.Limit(baseline)
}

// Median is the median of vs (0 for none).
func Median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Gate judges rep against the budgets, each against the median of its
// metric over the last n runs of the tape (tapeHash) already in the
// store. A latency budget on a method or name regresses only when its
// distribution also changed (the KS test of [Compare] with p below alpha,
// 0 for [DefaultGateAlpha], against the baseline runs' histograms
// merged), so that a percentile moved by noise alone does not fail a run.
// The results are in the report's threshold shape, to be appended to
// rep.Thresholds. With no earlier run a budget passes and says so.
func (s *Store) Gate(ctx context.Context, rep *report.Report, tapeHash string, budgets []Budget, n int, alpha float64) ([]report.ThresholdResult, error) {
	if n <= 0 {
		n = DefaultBaselineRuns
	}
	if alpha <= 0 {
		alpha = DefaultGateAlpha
	}
	runs, err := s.Runs(ctx, Query{Tape: tapeHash, Last: n})
	if err != nil {
		return nil, err
	}
	var base []*report.Report
	var ids []int64
	for _, r := range runs {
		if r.RunID == rep.Summary.RunID {
			continue
		}
		br, err := s.Report(ctx, r.ID)
		if err != nil {
			return nil, err
		}
		base, ids = append(base, br), append(ids, r.ID)
	}
	var hists map[Group]*hdrHist
	out := make([]report.ThresholdResult, 0, len(budgets))
	for _, b := range budgets {
		res := report.ThresholdResult{Expr: b.Expr, Metric: b.Metric.Name, Filter: b.Metric.Filter.String(), Unit: b.Metric.Unit(), Passed: true}
		v, ok := rep.Value(b.Metric)
		var vals []float64
		for _, br := range base {
			if bv, ok := br.Value(b.Metric); ok {
				vals = append(vals, bv)
			}
		}
		switch {
		case !ok:
			res.Value, res.Detail = "no data", "this run has no "+b.Metric.String()
			res.Passed = false
		case len(vals) == 0:
			res.Value = b.Metric.Format(v)
			res.Actual = &v
			res.Limit = "no baseline"
			res.Detail = "no earlier run of this tape measured " + b.Metric.String() + ": this run is the first baseline"
		default:
			baseline := Median(vals)
			limit := b.Limit(baseline)
			res.Value = b.Metric.Format(v)
			res.Actual = &v
			res.LimitValue = limit
			op := "<="
			if !b.Up {
				op = ">="
			}
			of := fmt.Sprintf("median %s of %d runs", b.Metric.Format(baseline), len(vals))
			if len(vals) == 1 {
				of = "the one earlier run's " + b.Metric.Format(baseline)
			}
			// The comparison leads the limit: report's failure text keys on
			// it to say a budget's limit, which its expression does not.
			res.Limit = fmt.Sprintf("%s %s (%s %s)", op, b.Metric.Format(limit), of, budgetMove(b))
			res.Passed = !b.Regressed(v, baseline)
			if !res.Passed && b.Metric.IsDuration() && b.Metric.Filter.Key != "" {
				if hists == nil {
					if hists, err = s.Histograms(ctx, ids); err != nil {
						return nil, err
					}
				}
				d, p, tested := distributionTest(rep, b.Metric.Filter, hists)
				if tested {
					res.Detail = fmt.Sprintf("latency distribution against the baseline runs: KS D=%.3f p=%.2g", d, p)
					res.Passed = p >= alpha
					if res.Passed {
						res.Detail += fmt.Sprintf(" (not below %g: the move is within the baseline's noise)", alpha)
					}
				}
			}
		}
		out = append(out, res)
	}
	return out, nil
}

func budgetMove(b Budget) string {
	sign := "+"
	if !b.Up {
		sign = "-"
	}
	if b.Relative != 0 {
		return sign + strconv.FormatFloat(b.Relative*100, 'f', -1, 64) + "%"
	}
	if b.Metric.Unit() == "%" {
		return sign + strconv.FormatFloat(b.Absolute, 'f', -1, 64) + "pt"
	}
	return sign + b.Metric.Format(b.Absolute)
}

type hdrHist = hdrhistogram.Histogram

// filterGroup is the histogram group a threshold's filter names.
func filterGroup(f report.Filter) Group {
	switch f.Key {
	case "tool":
		return Group{mcp.MethodToolsCall, f.Value}
	case "prompt":
		return Group{mcp.MethodPromptsGet, f.Value}
	case "resource":
		return Group{mcp.MethodResourcesRead, f.Value}
	}
	return Group{Method: f.Value}
}

// distributionTest runs the KS test of the baseline's histogram of f's
// group against rep's; tested is false when either has none.
func distributionTest(rep *report.Report, f report.Filter, base map[Group]*hdrHist) (d, p float64, tested bool) {
	g := filterGroup(f)
	hb := base[g]
	if hb == nil {
		return 0, 0, false
	}
	list := rep.Histograms.PerMethod
	if g.Name != "" {
		list = rep.Histograms.PerName
	}
	for _, gh := range list {
		if gh.Method == g.Method && gh.Name == g.Name {
			h, err := gh.Latency.Histogram()
			if err != nil {
				return 0, 0, false
			}
			d, p = KS(hb, h)
			return d, p, true
		}
	}
	return 0, 0, false
}

// NewFailures are the messages rep failed (failed, error, timeout) that no
// earlier run of the tape failed, as "session/seq method".
func (s *Store) NewFailures(ctx context.Context, rep *report.Report, tapeHash string) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT m.session, m.seq FROM messages m JOIN runs r ON r.id = m.run
		WHERE r.tape_hash = ? AND r.run_id != ? AND m.verdict IN ('failed', 'error', 'timeout')`, tapeHash, rep.Summary.RunID)
	if err != nil {
		return nil, fmt.Errorf("history: failures of earlier runs in %s: %w", s.path, err)
	}
	defer rows.Close()
	seen := map[messageKey]bool{}
	for rows.Next() {
		var k messageKey
		if err := rows.Scan(&k.session, &k.seq); err != nil {
			return nil, err
		}
		seen[k] = true
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []string
	for _, e := range rep.Timeline {
		switch e.Verdict {
		case report.Failed, report.Error, report.Timeout:
			if !seen[messageKey{e.Session, e.Seq}] {
				out = append(out, fmt.Sprintf("%s seq %d %s", e.Session, e.Seq, e.Method))
			}
		}
	}
	return out, nil
}
