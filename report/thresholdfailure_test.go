package report

import "testing"

// TestThresholdFailureSaysTheLimit: a regression budget's expression
// (p99+20%) holds no limit, so its failure says the limit it broke and
// the baseline; the text said "p99 was 22.505ms" alone, which reads as no
// reason at all. An expression with its limit in it is said as before.
func TestThresholdFailureSaysTheLimit(t *testing.T) {
	for _, tc := range []struct {
		th   ThresholdResult
		want string
	}{
		{ThresholdResult{Expr: "p99<200ms", Metric: "p99", Value: "231.0ms", Limit: "200.0ms"},
			"threshold p99<200ms failed: p99 was 231.0ms"},
		{ThresholdResult{Expr: "p99+20%", Metric: "p99", Value: "22.505ms", Limit: "<= 1µs (median 1µs of 5 runs +20%)"},
			"threshold p99+20% failed: p99 was 22.505ms, limit <= 1µs (median 1µs of 5 runs +20%)"},
		{ThresholdResult{Expr: "throughput-10%", Metric: "throughput", Value: "139.9/s", Limit: ">= 4000/s (median 4444/s of 5 runs -10%)"},
			"threshold throughput-10% failed: throughput was 139.9/s, limit >= 4000/s (median 4444/s of 5 runs -10%)"},
		// A budget whose filter holds an '=' is still a budget: its limit
		// was dropped when the expression was searched for an operator.
		{ThresholdResult{Expr: "p99{tool:a=b}+20%", Metric: "p99", Filter: "tool:a=b", Value: "22.505ms", Limit: "<= 1µs (median 1µs of 5 runs +20%)"},
			"threshold p99{tool:a=b}+20% failed: p99{tool:a=b} was 22.505ms, limit <= 1µs (median 1µs of 5 runs +20%)"},
		{ThresholdResult{Expr: "p99{tool:a=b}<200ms", Metric: "p99", Filter: "tool:a=b", Value: "231.0ms", Limit: "200.0ms"},
			"threshold p99{tool:a=b}<200ms failed: p99{tool:a=b} was 231.0ms"},
		{ThresholdResult{Expr: "new_failures==0", Metric: "new_failures", Value: "7", Limit: "0", Detail: "failed for the first time on this tape: s1 seq 0 initialize"},
			"threshold new_failures==0 failed: new_failures was 7 (failed for the first time on this tape: s1 seq 0 initialize)"},
	} {
		if got := thresholdFailure(tc.th); got != tc.want {
			t.Errorf("thresholdFailure(%s):\n got %q\nwant %q", tc.th.Expr, got, tc.want)
		}
	}
}
