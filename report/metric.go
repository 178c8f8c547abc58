package report

import (
	"fmt"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Metric is one metric of a report, optionally narrowed by a filter: what
// a threshold tests, without its operator and limit ("p99",
// "p99{method:tools/call}", "error_rate", "achieved_rate"). Make one with
// [ParseMetric]; run histories trend and gate on them.
type Metric struct {
	Name   string // canonical, as [Threshold.Metric]
	Filter Filter
	unit   unit
}

// ParseMetric reads a metric as a threshold names it, with the same names
// and filters as [ParseThreshold]: "p99", "p(99)", "p95{method:tools/call}",
// "error_rate{tool:search}", "throughput", "achieved_rate". Errors wrap
// [ErrThreshold] and list what is known.
func ParseMetric(s string) (Metric, error) {
	whole := strings.TrimSpace(s)
	bad := func(format string, args ...any) (Metric, error) {
		return Metric{}, fmt.Errorf("%w: metric %q: %s", ErrThreshold, whole, fmt.Sprintf(format, args...))
	}
	expr, inside, filtered, err := splitFilter(whole)
	if err != nil {
		return bad("%v", err)
	}
	name := canonicalMetric(expr)
	if name == "" {
		return bad("no metric name; known metrics: %s", knownMetrics())
	}
	m, ok := lookupMetric(name)
	if !ok {
		return bad("unknown metric %q; known metrics: %s", name, knownMetrics())
	}
	out := Metric{Name: name, unit: m.unit}
	if filtered {
		if out.Filter, err = parseFilter(inside); err != nil {
			return bad("%v", err)
		}
		u, _, ok := lookupGroupMetric(name)
		if !ok {
			return bad("%s is not broken down by method or name: a filter ({%s}) takes %s", name, out.Filter, groupMetricNames())
		}
		out.unit = u
	}
	return out, nil
}

// String is m as ParseMetric reads it: "p99{method:tools/call}".
func (m Metric) String() string {
	if m.Filter.Key == "" {
		return m.Name
	}
	return m.Name + "{" + m.Filter.String() + "}"
}

// Unit is the unit of m's values as [Report.Value] gives them: "ms", "%"
// (a percentage), "/s", or "" for counts and true or false.
func (m Metric) Unit() string { return m.unit.symbol() }

// IsDuration reports whether m is a latency statistic (in milliseconds).
func (m Metric) IsDuration() bool { return m.unit == unitDuration }

// Format shows a value of m (in its Unit) as reports show it: "182.4ms",
// "0.50%", "512.0/s".
func (m Metric) Format(v float64) string {
	if m.unit == unitRate {
		v /= 100
	}
	return formatValue(m.unit, v)
}

// Value is m's value in r, in m.Unit() (a rate as a percentage), and
// whether r measured it (a filter naming a method r does not have, no
// request answered, no load section).
func (r *Report) Value(m Metric) (float64, bool) {
	res := r.Evaluate([]Threshold{{Expr: m.String(), Metric: m.Name, Op: "==", Filter: m.Filter}})
	if len(res) == 0 || res[0].Actual == nil {
		return 0, false
	}
	return *res[0].Actual, true
}

// Histogram decodes e, checking its configuration and that its exact
// figures agree with its buckets, as [Merge] does. Values are
// microseconds. Errors wrap [ErrHistogram].
func (e EncodedHistogram) Histogram() (*hdrhistogram.Histogram, error) {
	h, err := e.decode()
	if err != nil {
		return nil, err
	}
	return h.h, nil
}
