package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/replayctl/replayctl/internal/english"
	"github.com/replayctl/replayctl/mcp"
)

// Filter narrows a threshold to the results of one method, or of one
// tool, prompt or resource, as k6 narrows a metric to a tag:
// p99{method:tools/call}<200ms, error_rate{tool:search}<1%. The zero
// Filter is the whole run.
type Filter struct {
	Key   string // method, tool, prompt or resource
	Value string // the method, or the name (a resource's uri)
}

// filterKeys are the keys a filter takes, and the method whose names the
// name keys match.
var filterKeys = []struct{ key, method string }{
	{"method", ""},
	{"tool", mcp.MethodToolsCall},
	{"prompt", mcp.MethodPromptsGet},
	{"resource", mcp.MethodResourcesRead},
}

func (f Filter) String() string {
	if f.Key == "" {
		return ""
	}
	return f.Key + ":" + f.Value
}

// describe names what f selects in a sentence: tools/call, tools/call
// "search".
func (f Filter) describe() string {
	if f.Key == "method" {
		return f.Value
	}
	return fmt.Sprintf("%s %q", f.method(), f.Value)
}

// method is the method f names results of: the method itself, or the one
// whose names its key matches.
func (f Filter) method() string {
	for _, k := range filterKeys {
		if k.key == f.Key {
			if k.method == "" {
				return f.Value
			}
			return k.method
		}
	}
	return ""
}

// parseFilter reads the inside of "{key:value}".
func parseFilter(s string) (Filter, error) {
	key, value, ok := strings.Cut(s, ":")
	key, value = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(value)
	if !ok || key == "" || value == "" {
		return Filter{}, fmt.Errorf("filter {%s}: want {KEY:VALUE}, e.g. {method:tools/call} or {tool:search}; keys: %s", s, filterKeyNames())
	}
	known := slices.ContainsFunc(filterKeys, func(k struct{ key, method string }) bool { return k.key == key })
	if !known {
		return Filter{}, fmt.Errorf("filter {%s}: unknown key %q; keys: %s", s, key, filterKeyNames())
	}
	if i := strings.IndexByte(value, ','); i >= 0 {
		if next, _, ok := strings.Cut(value[i+1:], ":"); ok && slices.ContainsFunc(filterKeys, func(k struct{ key, method string }) bool {
			return k.key == strings.ToLower(strings.TrimSpace(next))
		}) {
			return Filter{}, fmt.Errorf("filter {%s}: one KEY:VALUE per threshold (a tool's filter already means tools/call)", s)
		}
	}
	return Filter{Key: key, Value: value}, nil
}

func filterKeyNames() string {
	names := make([]string, len(filterKeys))
	for i, k := range filterKeys {
		names[i] = k.key
		if k.method != "" {
			names[i] += " (" + k.method + ")"
		}
	}
	return strings.Join(names, ", ")
}

// splitFilter takes "{…}" out of the metric part of expr: it returns the
// expression without it and the inside, or expr and "" when the metric
// has no filter. Only a "{" before any operator starts one, so that a
// value after the operator is never read as a filter, and an operator
// inside the braces is not the threshold's.
func splitFilter(expr string) (rest, inside string, has bool, err error) {
	open := strings.IndexByte(expr, '{')
	if open < 0 || strings.ContainsAny(expr[:open], "<>=!") {
		return expr, "", false, nil
	}
	end := strings.IndexByte(expr[open:], '}')
	if end < 0 {
		return "", "", false, fmt.Errorf("filter %s has no closing }", expr[open:])
	}
	return expr[:open] + expr[open+end+1:], expr[open+1 : open+end], true, nil
}

// groupMetrics are the metrics a filter applies to: figures each method
// and name keeps. The latency statistics (p99, avg, …) are added by
// lookupGroupMetric.
var groupMetrics = map[string]struct {
	unit  unit
	value func(s MethodSummary) float64
}{
	"error_rate":          {unitRate, func(s MethodSummary) float64 { return s.ErrorRate }},
	"success_rate":        {unitRate, func(s MethodSummary) float64 { return s.SuccessRate }},
	"errors":              {unitCount, func(s MethodSummary) float64 { return float64(s.Errors) }},
	"timeouts":            {unitCount, func(s MethodSummary) float64 { return float64(s.Timeouts) }},
	"requests":            {unitCount, func(s MethodSummary) float64 { return float64(s.Requests) }},
	"answered":            {unitCount, func(s MethodSummary) float64 { return float64(s.Answered) }},
	"sent":                {unitCount, func(s MethodSummary) float64 { return float64(s.Sent) }},
	"validation_failed":   {unitCount, func(s MethodSummary) float64 { return float64(s.Failed) }},
	"validation_passed":   {unitCount, func(s MethodSummary) float64 { return float64(s.Passed) }},
	"validation_checked":  {unitCount, func(s MethodSummary) float64 { return float64(s.Passed + s.Failed) }},
	"validation_warnings": {unitCount, func(s MethodSummary) float64 { return float64(s.Warnings) }},
}

// lookupGroupMetric finds a metric a filter applies to: its unit and its
// value in a method's or a name's line, with whether it was measured.
func lookupGroupMetric(name string) (unit, func(s MethodSummary) (float64, bool), bool) {
	if m, ok := groupMetrics[name]; ok {
		return m.unit, func(s MethodSummary) (float64, bool) { return m.value(s), true }, true
	}
	field := strings.TrimPrefix(name, "latency_")
	if slices.Contains(statMetrics, field) {
		return unitDuration, func(s MethodSummary) (float64, bool) {
			return statField(s.LatencyMS, field), s.LatencyMS.Count > 0
		}, true
	}
	return 0, nil, false
}

// groupMetricNames lists the metrics a filter applies to, for errors.
func groupMetricNames() string {
	names := make([]string, 0, len(groupMetrics))
	for n := range groupMetrics {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(statMetrics, ", ") + " (latency), " + strings.Join(names, ", ")
}

// line finds the per_method or per_name line f names in r, or says why
// there is none.
func (r *Report) line(f Filter) (MethodSummary, string) {
	lines, omitted, what := r.PerName, r.PerNameOmitted, "names"
	if f.Key == "method" {
		lines, omitted, what = r.PerMethod, r.PerMethodOmitted, "methods"
	}
	method := f.method()
	for _, s := range lines {
		if s.Method == method && (f.Key == "method" || s.Name == f.Value) {
			return s, ""
		}
	}
	seen := make([]string, 0, len(lines))
	for _, s := range lines {
		if s.Method == method || f.Key == "method" {
			seen = append(seen, firstOf(s.Name, s.Method))
		}
	}
	why := "the run has no " + f.describe()
	if omitted > 0 {
		why += fmt.Sprintf(" broken down (the report breaks down its first %d %s, and %s of others are left out: raise --method-limit)", len(lines), what, english.Count(omitted, "result"))
	}
	if len(seen) > 0 {
		const most = 10
		more := ""
		if len(seen) > most {
			seen, more = seen[:most], fmt.Sprintf(", and %d more", len(seen)-most)
		}
		why += "; it has " + strings.Join(seen, ", ") + more
	}
	return MethodSummary{}, why
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
