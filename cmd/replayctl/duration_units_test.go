package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestTextSummaryZeroInMicroseconds: the text summary shows a zero lag or
// held time in µs, as the times beside it and every other output of a
// time do ("lag p50 0µs p99 1ms"); it showed Duration's "0s" there, and
// the load line showed the same lag as "1 ms".
func TestTextSummaryZeroInMicroseconds(t *testing.T) {
	res := replayctl(t, "report", "report/testdata/report.json.golden") // lag p50 and held 0
	if res.code != 0 {
		t.Fatalf("report: exit %d\n%s", res.code, res.stderr)
	}
	if want := "time        lag p50 0µs p99 1ms · held p50 0µs p99 0µs"; !strings.Contains(res.stdout, want) {
		t.Errorf("got\n%s\nwant it to contain %q", res.stdout, want)
	}
	if bad := regexp.MustCompile(`[^0-9.]0s\b|[0-9] ms\b`).FindString(res.stdout); bad != "" {
		t.Errorf("got %q in\n%s\nwant times in µs, ms or s, with no space before the unit and zero as 0µs", bad, res.stdout)
	}
}
