package report

import (
	"errors"
	"strings"
	"testing"
)

func TestParseMetric(t *testing.T) {
	for _, tc := range []struct {
		in, want, unit, err string
	}{
		{in: "p99", want: "p99", unit: "ms"},
		{in: " p(99) ", want: "p99", unit: "ms"},
		{in: "p95{method:tools/call}", want: "p95{method:tools/call}", unit: "ms"},
		{in: "error_rate{tool:search}", want: "error_rate{tool:search}", unit: "%"},
		{in: "achieved_rate", want: "achieved_rate", unit: "/s"},
		{in: "p98", err: "unknown metric"},
		{in: "throughput{method:ping}", err: "not broken down"},
		{in: "p99{colour:red}", err: "unknown key"},
		{in: "", err: "no metric name"},
	} {
		m, err := ParseMetric(tc.in)
		if tc.err != "" {
			if !errors.Is(err, ErrThreshold) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: got %v, want an error with %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || m.String() != tc.want || m.Unit() != tc.unit {
			t.Errorf("%q: got %s (%q), %v; want %s (%q)", tc.in, m, m.Unit(), err, tc.want, tc.unit)
		}
	}
}

func TestReportValue(t *testing.T) {
	r := &Report{
		Performance: Performance{LatencyMS: Stats{Count: 3, P99: 12.5}, ErrorRate: 0.02},
		PerMethod:   []MethodSummary{{Method: "ping", LatencyMS: Stats{Count: 1, P99: 3}}},
	}
	for _, tc := range []struct {
		metric   string
		want     float64
		measured bool
	}{
		{"p99", 12.5, true},
		{"error_rate", 2, true}, // a percentage
		{"p99{method:ping}", 3, true},
		{"p99{method:tools/call}", 0, false},
		{"achieved_rate", 0, false}, // no load section
	} {
		m, err := ParseMetric(tc.metric)
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := r.Value(m); v != tc.want || ok != tc.measured {
			t.Errorf("%s: got %v, %v; want %v, %v", tc.metric, v, ok, tc.want, tc.measured)
		}
	}
	if got := mustMetric(t, "error_rate").Format(2); got != "2.00%" {
		t.Errorf("format: got %q, want 2.00%%", got)
	}
}

func mustMetric(t *testing.T, s string) Metric {
	t.Helper()
	m, err := ParseMetric(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestHTMLHistorySparkline: a report with a history section shows one
// sparkline per method, escaping what it names; without one, no section.
func TestHTMLHistorySparkline(t *testing.T) {
	v1, v2 := 10.0, 12.5
	r := Report{PerMethod: []MethodSummary{{Method: "tools/call"}}}
	var plain strings.Builder
	if err := r.WriteHTML(&plain); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), `id="history"`) {
		t.Error("a report kept nowhere has a history section")
	}
	r.History = &HistoryLink{Store: "/tmp/<x>/history.db", Run: 7, Trends: []MethodTrend{
		{Method: "tools/call", Runs: []int64{5, 6, 7}, P99MS: []*float64{&v1, nil, &v2}},
		{Method: "ping", Runs: []int64{7}, P99MS: []*float64{nil}},
	}}
	var b strings.Builder
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{`<section id="history">`, "Run 7 of the run store <code>/tmp/&lt;x&gt;/history.db</code>", "run 5: 10.0ms; run 6: no data; run 7: 12.5ms", "no data</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if n := strings.Count(page, "<polyline"); n != 1 {
		t.Errorf("%d sparklines, want 1 (ping has no data)", n)
	}
}
