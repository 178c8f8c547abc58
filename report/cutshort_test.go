package report

import (
	"strings"
	"testing"
)

// TestLoadCutShort: a paced replay stopped early has its load not judged
// (no rate, not delivered, the verdict says why and what was sent); one
// that ran to its end, or follows no schedule, keeps its load.
func TestLoadCutShort(t *testing.T) {
	paced := Load{Applicable: true, Requests: 20, Handshakes: 20, IntendedRatePerS: 29244, AchievedRatePerS: 29244, AchievedRatio: 1, Delivered: true, LagP99MS: 0.5, Verdict: "delivered: …"}
	for _, tc := range []struct {
		name        string
		load        Load
		stop        StopKind
		wantVerdict string // its start; "" for the load unchanged
	}{
		{"interrupted", paced, StopInterrupted, "not judged: the replay was interrupted; a schedule cut short has no rate to judge (40 requests sent before the stop"},
		{"target failed", paced, StopTarget, "not judged: the replay stopped early (target)"},
		{"ran to its end", paced, "", ""},
		{"fast", Load{Verdict: "not applicable: speed fast follows no schedule"}, StopInterrupted, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.load.cutShort(tc.stop)
			if tc.wantVerdict == "" {
				if got != tc.load {
					t.Errorf("got %+v, want the load unchanged %+v", got, tc.load)
				}
				return
			}
			if !strings.HasPrefix(got.Verdict, tc.wantVerdict) {
				t.Errorf("verdict: got %q, want it to start %q", got.Verdict, tc.wantVerdict)
			}
			if got.Delivered || got.IntendedRatePerS != 0 || got.AchievedRatePerS != 0 || got.AchievedRatio != 0 {
				t.Errorf("got delivered %t, rates %g/%g, ratio %g; want false and 0s", got.Delivered, got.IntendedRatePerS, got.AchievedRatePerS, got.AchievedRatio)
			}
			if got.Requests != 20 || got.Handshakes != 20 || !got.Applicable {
				t.Errorf("got %+v, want the counts kept and applicable", got)
			}
		})
	}
}
