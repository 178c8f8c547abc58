package history

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/replayctl/replayctl/report"
)

// Compare's defaults.
const (
	// DefaultAlpha is the significance level: a method's distribution
	// changed when the test's p is below it.
	DefaultAlpha = 0.01
	// DefaultMinEffect is the smallest shift of the median or p95, as a
	// fraction of A's, that counts as a change: with thousands of
	// latencies a test finds differences too small to matter, and runs
	// differ by more than their latencies within (a loaded machine, a
	// cold cache), which the test, taking latencies as independent,
	// reads as significant.
	DefaultMinEffect = 0.10
	// DefaultMinShift is the smallest move of the median or p95, as a
	// duration, that counts as a change: against a target that answers in
	// microseconds (the mock), a 1µs→2µs move is 100% and significant,
	// but it is the jitter of the clock and the scheduler, not a change
	// of the target. 100µs is well above that jitter on a loaded machine
	// and a tenth of the millisecond the table shows.
	DefaultMinShift = 100 * time.Microsecond
)

// CompareOptions are the margins of [Store.Compare].
type CompareOptions struct {
	Alpha     float64       // default DefaultAlpha
	MinEffect float64       // default DefaultMinEffect; negative: none
	MinShift  time.Duration // default DefaultMinShift; negative: none
}

func (o CompareOptions) withDefaults() CompareOptions {
	if o.Alpha <= 0 {
		o.Alpha = DefaultAlpha
	}
	if o.MinEffect == 0 {
		o.MinEffect = DefaultMinEffect
	}
	if o.MinShift == 0 {
		o.MinShift = DefaultMinShift
	}
	return o
}

// Change is whether one method's (or name's) latency distribution changed
// from side A to side B.
type Change struct {
	Method string
	Name   string // the tool, prompt or resource; "" for the method
	NA, NB int64  // latencies on each side
	// P50, P95 and P99 of each side, in milliseconds, and the effect
	// (B minus A).
	A, B   Quantiles
	Effect Quantiles
	// D and P are the Kolmogorov–Smirnov statistic and its p; ProbBGreater
	// is the Mann–Whitney probability that a latency of B exceeds one of A
	// (0.5: no tendency), with its own p, MWP.
	D, P         float64
	ProbBGreater float64
	MWP          float64
	// Changed: P below the significance level and the median or p95 moved
	// by at least the minimum effect (a fraction of A's) and the minimum
	// shift (a duration). Missing: one side has no latency.
	Changed bool
	Missing string
}

// Quantiles are a distribution's p50, p95 and p99 in milliseconds.
type Quantiles struct{ P50, P95, P99 float64 }

func quantiles(h *hdrhistogram.Histogram) Quantiles {
	ms := func(q float64) float64 { return float64(h.ValueAtQuantile(q)) / 1000 }
	return Quantiles{ms(50), ms(95), ms(99)}
}

// Compare tests, for each method and name with latencies in either side,
// whether its latency distribution changed from the runs of a to those of
// b (each side's histograms merged without loss).
func Compare(a, b map[Group]*hdrhistogram.Histogram, o CompareOptions) []Change {
	o = o.withDefaults()
	var keys []Group
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if a[k] == nil {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(x, y Group) int { return strings.Compare(x.Method+"\x00"+x.Name, y.Method+"\x00"+y.Name) })
	out := make([]Change, 0, len(keys))
	for _, k := range keys {
		c := Change{Method: k.Method, Name: k.Name}
		ha, hb := a[k], b[k]
		switch {
		case ha == nil || ha.TotalCount() == 0:
			c.Missing = "only in B"
		case hb == nil || hb.TotalCount() == 0:
			c.Missing = "only in A"
		}
		if c.Missing != "" {
			if ha != nil {
				c.NA, c.A = ha.TotalCount(), quantiles(ha)
			}
			if hb != nil {
				c.NB, c.B = hb.TotalCount(), quantiles(hb)
			}
			out = append(out, c)
			continue
		}
		c.NA, c.NB = ha.TotalCount(), hb.TotalCount()
		c.A, c.B = quantiles(ha), quantiles(hb)
		c.Effect = Quantiles{c.B.P50 - c.A.P50, c.B.P95 - c.A.P95, c.B.P99 - c.A.P99}
		c.D, c.P = KS(ha, hb)
		c.ProbBGreater, c.MWP = MannWhitney(ha, hb)
		shift := math.Max(relative(c.Effect.P50, c.A.P50), relative(c.Effect.P95, c.A.P95))
		moved := time.Duration(math.Max(math.Abs(c.Effect.P50), math.Abs(c.Effect.P95)) * float64(time.Millisecond))
		c.Changed = c.P < o.Alpha && (o.MinEffect < 0 || shift >= o.MinEffect) && (o.MinShift < 0 || moved >= o.MinShift)
		out = append(out, c)
	}
	return out
}

func relative(delta, base float64) float64 {
	if base == 0 {
		return math.Inf(1)
	}
	return math.Abs(delta) / base
}

// Group names a method's (Name empty) or a name's histogram.
type Group struct{ Method, Name string }

// Histograms merges, for each method and name, the latency histograms of
// runs.
func (s *Store) Histograms(ctx context.Context, runs []int64) (map[Group]*hdrhistogram.Histogram, error) {
	out := map[Group]*hdrhistogram.Histogram{}
	if len(runs) == 0 {
		return out, nil
	}
	ids := make([]string, len(runs))
	for i, r := range runs {
		ids[i] = strconv.FormatInt(r, 10)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT run, method, name, latency FROM lines WHERE latency IS NOT NULL AND run IN (`+strings.Join(ids, ",")+`)`)
	if err != nil {
		return nil, fmt.Errorf("history: histograms in %s: %w", s.path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var run int64
		var g Group
		var raw []byte
		if err := rows.Scan(&run, &g.Method, &g.Name, &raw); err != nil {
			return nil, err
		}
		var e report.EncodedHistogram
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, fmt.Errorf("history: run %d %s: histogram: %w", run, g.Method, err)
		}
		h, err := e.Histogram()
		if err != nil {
			return nil, fmt.Errorf("history: run %d %s: %w", run, g.Method, err)
		}
		if out[g] == nil {
			out[g] = h
		} else {
			out[g].Merge(h)
		}
	}
	return out, rows.Err()
}

// Select is the runs ref names, oldest first: a run ("12", or the start
// of its run id), or a range of run numbers ("3..10", both included; of
// q's runs when q selects a tape).
func (s *Store) Select(ctx context.Context, ref string, q Query) ([]int64, error) {
	lo, hi, isRange := strings.Cut(strings.TrimSpace(ref), "..")
	if !isRange {
		r, err := s.Find(ctx, ref)
		if err != nil {
			return nil, err
		}
		return []int64{r.ID}, nil
	}
	from, err1 := strconv.ParseInt(strings.TrimSpace(lo), 10, 64)
	to, err2 := strconv.ParseInt(strings.TrimSpace(hi), 10, 64)
	if err1 != nil || err2 != nil || from < 1 || to < from {
		return nil, fmt.Errorf("%w: range %q: want FIRST..LAST, two run numbers, the first no larger, e.g. 1..10", ErrNoRun, ref)
	}
	where, args := q.where()
	if where == "" {
		where = " WHERE "
	} else {
		where += " AND "
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM runs`+where+`id BETWEEN ? AND ? ORDER BY id`, append(args, from, to)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %s holds no run in %s (replayctl history list shows the runs)", ErrNoRun, s.path, ref)
	}
	return out, nil
}
