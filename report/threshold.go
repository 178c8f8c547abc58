package report

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/replayctl/replayctl/scheduler"
)

// ErrThreshold is wrapped by every error [ParseThreshold] returns.
var ErrThreshold = errors.New("report: bad threshold")

// Threshold is a pass/fail condition on one metric of a [Report], k6-style:
// "p99<200ms", "error_rate<1%", "validation_failed==0". Make one with
// [ParseThreshold]; the zero value is not a valid threshold.
type Threshold struct {
	Expr   string  // as written, trimmed
	Metric string  // canonical metric name, e.g. "p99", "lag_max", "error_rate"
	Op     string  // <, <=, >, >=, ==, !=
	Limit  float64 // in the metric's unit: milliseconds, a fraction (0.01 for 1%), a count, or per second
	// Filter narrows the metric to one method, tool, prompt or resource
	// ("p99{method:tools/call}<200ms"); zero for the whole run.
	Filter Filter
}

// ThresholdResult is the outcome of one threshold, as reports show it.
//
// Value and Limit are strings for people and are kept as they were for
// the tools that already read them; Actual, LimitValue and Unit are the
// same values as numbers for tools: {"actual": 182.4, "limit_value": 200,
// "unit": "ms"}.
type ThresholdResult struct {
	Expr   string `json:"expr"`
	Metric string `json:"metric"`
	// Filter is the threshold's filter as KEY:VALUE ("method:tools/call",
	// "tool:search"), empty for the whole run.
	Filter string `json:"filter,omitempty"`
	// Value is the actual value as shown to people ("182.4ms", "0.50%",
	// "3", "512.0/s"), or "no data" when the replay measured nothing for
	// the metric (no request answered): such a threshold fails.
	Value string `json:"value"`
	Limit string `json:"limit"`
	// Actual is the metric's value as a number in Unit (rounded to six
	// decimals), or null when the replay measured nothing for it ("no
	// data"), the metric is unknown, or the value is not finite.
	Actual *float64 `json:"actual"`
	// LimitValue is the threshold's limit as a number in Unit.
	LimitValue float64 `json:"limit_value"`
	// Unit is the unit of Actual and LimitValue: "ms" for durations, "%"
	// for rates (a percentage: 0.5 is 0.5%, where the report's
	// performance.error_rate is a fraction), "/s" for rates per second,
	// and "" for counts and for true or false (1 or 0).
	Unit   string `json:"unit"`
	Passed bool   `json:"passed"`
	// Detail says why a filtered or load threshold has no data: the run has
	// no such method or name (and which it has), or none of it was broken
	// down; or it has no intended rate (speed fast).
	Detail string `json:"detail,omitempty"`
}

// unit is how a metric's numbers are read and shown.
type unit int

const (
	unitDuration unit = iota // milliseconds
	unitRate                 // a fraction 0..1
	unitCount
	unitPerSecond
	unitBool // 1 for true, 0 for false; compared with == or != only
)

// metric is one thing a threshold can test.
type metric struct {
	unit unit
	// value returns the metric's value and whether the replay measured it.
	value func(r *Report) (float64, bool)
}

// statMetrics are the names of the fields of a [Stats] thresholds can use.
var statMetrics = []string{"min", "avg", "p50", "p90", "p95", "p99", "p999", "max"}

// statPrefixes name the four distributions: "" and "latency_" the latency
// from the actual send, "intended_" from the intended send, "lag_" the
// schedule lag, "held_" the held time.
var statPrefixes = map[string]func(r *Report) Stats{
	"":          func(r *Report) Stats { return r.Performance.LatencyMS },
	"latency_":  func(r *Report) Stats { return r.Performance.LatencyMS },
	"intended_": func(r *Report) Stats { return r.Performance.LatencyFromIntendedMS },
	"lag_":      func(r *Report) Stats { return r.Performance.ScheduleLagMS },
	"held_":     func(r *Report) Stats { return r.Performance.HeldMS },
}

func statField(s Stats, name string) float64 {
	switch name {
	case "min":
		return s.Min
	case "avg":
		return s.Avg
	case "p50":
		return s.P50
	case "p90":
		return s.P90
	case "p95":
		return s.P95
	case "p99":
		return s.P99
	case "p999":
		return s.P999
	default:
		return s.Max
	}
}

func count(f func(r *Report) int64) metric {
	return metric{unitCount, func(r *Report) (float64, bool) { return float64(f(r)), true }}
}

// loadMetric is a metric of the load section: measured only when the
// section applies (a paced replay).
func loadMetric(u unit, f func(l Load) float64) metric {
	return metric{u, func(r *Report) (float64, bool) { return f(r.Load), r.Load.Applicable }}
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// otherMetrics are the metrics that are not a distribution's statistic.
var otherMetrics = map[string]metric{
	"error_rate":   {unitRate, func(r *Report) (float64, bool) { return r.Performance.ErrorRate, true }},
	"success_rate": {unitRate, func(r *Report) (float64, bool) { return r.Summary.SuccessRate, true }},
	"throughput":   {unitPerSecond, func(r *Report) (float64, bool) { return r.Performance.ThroughputPerS, true }},
	"duration":     {unitDuration, func(r *Report) (float64, bool) { return r.Summary.DurationMS, true }},

	"validation_failed":   count(func(r *Report) int64 { return r.Validation.Failed }),
	"validation_passed":   count(func(r *Report) int64 { return r.Validation.Passed }),
	"validation_checked":  count(func(r *Report) int64 { return r.Validation.Checked }),
	"validation_warnings": count(func(r *Report) int64 { return r.Validation.Warnings }),
	"errors":              count(func(r *Report) int64 { return r.Performance.Errors }),
	"timeouts":            count(func(r *Report) int64 { return r.Performance.Timeouts }),
	"requests":            count(func(r *Report) int64 { return r.Performance.Requests }),
	"answered":            count(func(r *Report) int64 { return r.Performance.Answered }),
	"sent":                count(func(r *Report) int64 { return r.Summary.Sent }),
	"received":            count(func(r *Report) int64 { return r.Summary.Received }),
	"skipped":             count(func(r *Report) int64 { return r.Summary.Skipped }),
	"faults":              count(func(r *Report) int64 { return r.Chaos.Injected }),

	"load_delivered": loadMetric(unitBool, func(l Load) float64 { return boolValue(l.Delivered) }),
	"late":           loadMetric(unitCount, func(l Load) float64 { return float64(l.Late) }),
	"achieved_rate":  loadMetric(unitPerSecond, func(l Load) float64 { return l.AchievedRatePerS }),
	"intended_rate":  loadMetric(unitPerSecond, func(l Load) float64 { return l.IntendedRatePerS }),

	"achieved_ratio": {unitRate, func(r *Report) (float64, bool) {
		return r.Load.AchievedRatio, r.Load.Applicable && r.Load.IntendedRatePerS > 0
	}},
}

// lookupMetric finds a metric by its canonical name.
func lookupMetric(name string) (metric, bool) {
	if m, ok := otherMetrics[name]; ok {
		return m, true
	}
	for prefix, stats := range statPrefixes {
		field, ok := strings.CutPrefix(name, prefix)
		if !ok || !slices.Contains(statMetrics, field) {
			continue
		}
		return metric{unitDuration, func(r *Report) (float64, bool) {
			s := stats(r)
			return statField(s, field), s.Count > 0
		}}, true
	}
	return metric{}, false
}

// operators, longest first so that "<=" is not read as "<".
var operators = []string{"<=", ">=", "==", "!=", "<", ">"}

// knownMetrics lists the metric names for error messages.
func knownMetrics() string {
	names := []string{strings.Join(statMetrics, ", ") + " (latency; also with latency_, intended_, lag_ or held_ before them, e.g. lag_p99, held_p99)"}
	others := make([]string, 0, len(otherMetrics))
	for n := range otherMetrics {
		others = append(others, n)
	}
	slices.Sort(others)
	return strings.Join(append(names, others...), ", ")
}

// ParseThreshold reads a threshold such as "p99<200ms", "avg<5ms",
// "error_rate<1%", "success_rate>=99.5%", "throughput>500",
// "validation_failed==0", "lag_p99<1ms" or "held_p99<50ms". Durations
// need a unit (ns, us, µs, ms, s, m): a bare number other than 0 is
// refused, since "p99<200" could mean milliseconds or seconds; rates are a
// percentage ("1%") or a fraction below 1 ("0.01", as k6 writes it): a
// bare 1 or more is refused, since "error_rate<1" could mean 1% or 100%;
// throughput, achieved_rate and
// intended_rate are per second ("500" or "500/s"). "p(99)" is read as
// "p99", as k6 writes it. Spaces are allowed around the operator.
//
// The load metrics judge the report's load section: "load_delivered==true"
// (or ==1, !=false; only == and != compare it), "late==0" (client messages
// more than [LateAfter] late), "achieved_rate>=450", "intended_rate" and
// "achieved_ratio>=0.95" (achieved over intended rate; "95%" too). A
// replay at speed fast or stepped has no load section: its load thresholds
// show "no data", with a detail saying why and what to use instead, and
// fail.
//
// A filter in braces after the metric, as k6 writes a tag, narrows it to
// one method, tool, prompt or resource: "p99{method:tools/call}<200ms",
// "error_rate{tool:search}<1%", "requests{prompt:greet}>0",
// "max{resource:file:///a.txt}<5ms" (one KEY:VALUE; keys method, tool,
// prompt, resource). It takes the latency statistics and the counts and
// rates each method keeps (see the report's per_method); another metric
// with a filter, or another key, is an error. A filter that matches
// nothing in the report is "no data" with a detail, and fails.
//
// Errors wrap [ErrThreshold] and list what is known.
func ParseThreshold(s string) (Threshold, error) {
	whole := strings.TrimSpace(s)
	bad := func(format string, args ...any) (Threshold, error) {
		return Threshold{}, fmt.Errorf("%w %q: %s", ErrThreshold, whole, fmt.Sprintf(format, args...))
	}
	expr, inside, filtered, err := splitFilter(whole)
	if err != nil {
		return bad("%v", err)
	}
	var filter Filter
	if filtered {
		if filter, err = parseFilter(inside); err != nil {
			return bad("%v", err)
		}
	}
	at, op := -1, ""
	for _, o := range operators {
		if i := strings.Index(expr, o); i >= 0 && (at < 0 || i < at || (i == at && len(o) > len(op))) {
			at, op = i, o
		}
	}
	if at < 0 {
		return bad("no operator; write METRIC OP VALUE, e.g. p99<200ms, with one of %s", strings.Join(operators, " "))
	}
	name := canonicalMetric(expr[:at])
	raw := strings.TrimSpace(expr[at+len(op):])
	if name == "" {
		return bad("no metric before %s; known metrics: %s", op, knownMetrics())
	}
	if strings.ContainsAny(name, "<>=!") {
		return bad("operator %q unknown; use one of %s", strings.TrimLeft(expr[strings.IndexAny(expr, "<>=!"):], " "), strings.Join(operators, " "))
	}
	m, ok := lookupMetric(name)
	if !ok {
		return bad("unknown metric %q; known metrics: %s", name, knownMetrics())
	}
	if filtered {
		u, _, ok := lookupGroupMetric(name)
		if !ok {
			return bad("%s is not broken down by method or name: a filter ({%s}) takes %s", name, filter, groupMetricNames())
		}
		m.unit = u
	}
	if m.unit == unitBool && op != "==" && op != "!=" {
		return bad("%s is true or false: compare it with == or !=, e.g. %s==true", name, name)
	}
	if raw == "" {
		return bad("no value after %s", op)
	}
	if strings.ContainsAny(raw, "<>=!") {
		return bad("more than one operator; write one comparison per threshold")
	}
	if f, err := strconv.ParseFloat(raw, 64); err == nil && finite(f) && f != 0 && m.unit == unitDuration {
		return bad("%s is a duration and %s has no unit: write %s%s%sms for milliseconds (or s, us)", name, raw, name, op, raw)
	}
	if f, err := strconv.ParseFloat(raw, 64); err == nil && finite(f) && f >= 1 && m.unit == unitRate {
		shown := name
		if filtered {
			shown += "{" + filter.String() + "}"
		}
		return bad("%s is a rate and %s has no unit: write %s%s%s%% for a percentage, or the fraction %s%s%s (a bare number is a fraction, so it must be below 1)",
			name, raw, shown, op, raw, shown, op, strconv.FormatFloat(f/100, 'f', -1, 64))
	}
	limit, err := parseLimit(m.unit, raw)
	if err != nil {
		return bad("%s %v", name, err)
	}
	return Threshold{Expr: whole, Metric: name, Op: op, Limit: limit, Filter: filter}, nil
}

// canonicalMetric lower-cases and trims a metric name and reads k6's
// "p(99)" and "p(99.9)" as p99 and p999.
func canonicalMetric(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.Index(s, "p("); i >= 0 && strings.HasSuffix(s, ")") {
		s = s[:i] + "p" + strings.ReplaceAll(s[i+2:len(s)-1], ".", "")
	}
	return s
}

func parseLimit(u unit, raw string) (float64, error) {
	switch u {
	case unitDuration:
		d, err := time.ParseDuration(raw) // "0" is the one bare number it takes
		if err != nil {
			return 0, fmt.Errorf("wants a duration such as 200ms, 1.5s or 500us; got %q", raw)
		}
		return float64(d) / float64(time.Millisecond), nil
	case unitRate:
		num, pct := strings.CutSuffix(raw, "%")
		f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || !finite(f) {
			return 0, fmt.Errorf("wants a percentage such as 1%% or a fraction such as 0.01; got %q", raw)
		}
		if pct {
			f /= 100
		}
		if f < 0 || f > 1 {
			return 0, fmt.Errorf("wants a rate between 0%% and 100%%; got %q", raw)
		}
		return f, nil
	case unitBool:
		switch strings.ToLower(raw) {
		case "true", "1":
			return 1, nil
		case "false", "0":
			return 0, nil
		}
		return 0, fmt.Errorf("wants true or false (or 1 or 0); got %q", raw)
	case unitPerSecond:
		num, _ := strings.CutSuffix(raw, "/s")
		f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || !finite(f) {
			return 0, fmt.Errorf("wants requests per second such as 500 or 500/s; got %q", raw)
		}
		return f, nil
	default:
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil || !finite(f) {
			return 0, fmt.Errorf("wants a number such as 0; got %q", raw)
		}
		return f, nil
	}
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// Evaluate judges each threshold against r, in order. It does not change r;
// see [Report.ApplyThresholds].
func (r Report) Evaluate(ts []Threshold) []ThresholdResult {
	out := make([]ThresholdResult, 0, len(ts))
	for _, t := range ts {
		res := ThresholdResult{Expr: t.Expr, Metric: t.Metric, Filter: t.Filter.String()}
		m, ok := lookupMetric(t.Metric)
		if ok && t.Filter.Key != "" {
			m, ok = r.filtered(t.Metric, t.Filter, &res)
		}
		if !ok {
			res.Value = "unknown metric"
			out = append(out, res)
			continue
		}
		res.Limit = formatValue(m.unit, t.Limit)
		res.LimitValue = numberIn(m.unit, t.Limit)
		res.Unit = m.unit.symbol()
		v, measured := m.value(&r)
		if !measured {
			res.Value = "no data"
			if res.Detail == "" {
				res.Detail = r.noLoad(t.Metric)
			}
		} else {
			res.Value = formatValue(m.unit, v)
			if finite(v) { // JSON has no NaN or infinity
				n := numberIn(m.unit, v)
				res.Actual = &n
			}
			res.Passed = compare(v, t.Op, t.Limit)
		}
		out = append(out, res)
	}
	return out
}

// loadMetrics are the metrics of the report's load section.
var loadMetrics = []string{"load_delivered", "late", "achieved_rate", "intended_rate", "achieved_ratio"}

// noLoad says why the load metric name has no data in r ("" for another
// metric): the replay had no intended rate, and what to judge instead.
func (r *Report) noLoad(name string) string {
	if !slices.Contains(loadMetrics, name) {
		return ""
	}
	switch sp := r.Summary.Speed; {
	case sp != nil && (sp.Mode == scheduler.Fast || sp.Mode == scheduler.Stepped):
		return fmt.Sprintf("speed %s has no intended rate, so no load section: pace the replay (--speed rps:R, Nx or realtime) to judge the load, or judge speed %s by throughput (throughput>=N)", sp, sp)
	case !r.Load.Applicable:
		return "the report has no load section: its speed is not known, or it merges replays of different speeds"
	}
	return "the replay paced no request, so it had no intended rate"
}

// filtered is the metric name narrowed to f's line of r; when r has no
// such line, its value is not measured and res.Detail says why.
func (r *Report) filtered(name string, f Filter, res *ThresholdResult) (metric, bool) {
	u, value, ok := lookupGroupMetric(name)
	if !ok {
		return metric{}, false
	}
	line, why := r.line(f)
	if why != "" {
		res.Detail = why
		return metric{u, func(*Report) (float64, bool) { return 0, false }}, true
	}
	return metric{u, func(*Report) (float64, bool) {
		v, measured := value(line)
		if !measured {
			res.Detail = fmt.Sprintf("no %s request answered", f.describe())
		}
		return v, measured
	}}, true
}

// ApplyThresholds evaluates ts and keeps the results in r.Thresholds; when
// one fails, r.Passed() (and r.Summary.Passed) becomes false.
func (r *Report) ApplyThresholds(ts []Threshold) {
	r.Thresholds = r.Evaluate(ts)
	r.Summary.Passed = r.Passed()
}

// ThresholdsFailed returns the thresholds in r.Thresholds that failed.
func (r Report) ThresholdsFailed() []ThresholdResult {
	var failed []ThresholdResult
	for _, t := range r.Thresholds {
		if !t.Passed {
			failed = append(failed, t)
		}
	}
	return failed
}

func compare(v float64, op string, limit float64) bool {
	switch op {
	case "<":
		return v < limit
	case "<=":
		return v <= limit
	case ">":
		return v > limit
	case ">=":
		return v >= limit
	case "==":
		return v == limit
	case "!=":
		return v != limit
	default:
		return false
	}
}

// symbol is the unit as a report's JSON names it (ThresholdResult.Unit).
func (u unit) symbol() string {
	switch u {
	case unitDuration:
		return "ms"
	case unitRate:
		return "%"
	case unitPerSecond:
		return "/s"
	default:
		return ""
	}
}

// numberIn is a metric's value as a number in u.symbol(): a rate as a
// percentage, the rest as they are, rounded to six decimals so that no
// float noise (7.000000000000001) reaches the report.
func numberIn(u unit, v float64) float64 {
	if u == unitRate {
		v *= 100
	}
	return math.Round(v*1e6) / 1e6
}

// formatValue shows a metric's value in its unit.
func formatValue(u unit, v float64) string {
	switch u {
	case unitDuration:
		return FormatMS(v)
	case unitRate:
		return strconv.FormatFloat(v*100, 'f', 2, 64) + "%"
	case unitPerSecond:
		return strconv.FormatFloat(v, 'f', 1, 64) + "/s"
	case unitBool:
		return strconv.FormatBool(v != 0)
	default:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
}

// FormatMS shows milliseconds readably: "850µs", "182.4ms", "2.35s",
// "1.504s"; zero, as any value under a millisecond, in µs ("0µs"). Values
// are kept to the microsecond, seconds too, so that a value shown never
// hides why a comparison went the way it did.
func FormatMS(ms float64) string {
	ms = math.Round(ms*1000) / 1000
	if ms == 0 {
		ms = 0 // not -0: "0µs", not "-0µs"
	}
	switch {
	case math.Abs(ms) < 1:
		return strconv.FormatFloat(ms*1000, 'f', 0, 64) + "µs"
	case math.Abs(ms) < 1000:
		// Up to the microsecond, at least one decimal: "231.0ms", "3.001ms".
		s := strconv.FormatFloat(ms, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s + "ms"
	default:
		// Up to the microsecond too, at least two decimals: "2.35s",
		// "1.504s" (not "1.50s" beside a limit of 1.50s).
		s := strconv.FormatFloat(math.Round(ms*1000)/1e6, 'f', -1, 64) // µs / 1e6: no 1.5040010000000001
		if i := strings.IndexByte(s, '.'); i < 0 {
			s += ".00"
		} else if len(s)-i < 3 {
			s += "0"
		}
		return s + "s"
	}
}
