package report

import (
	"fmt"
	"testing"
	"time"
)

func TestPerSession(t *testing.T) {
	t0 := time.Unix(1000, 0)
	res := func(session string, v Verdict, latency time.Duration) Result {
		return Result{Seq: 1, Session: session, Kind: KindRequest, Dir: DirC2S, Sent: t0, Answered: t0.Add(latency), Verdict: v}
	}
	a, b := NewCollector(), NewCollector()
	a.Add(res("s10", Passed, 2*time.Millisecond))
	a.Add(res("s2", Failed, 4*time.Millisecond))
	b.Add(res("s2", Passed, 8*time.Millisecond))
	b.Add(Result{Seq: 2, Session: "s2", Kind: KindRequest, Dir: DirC2S, Sent: t0, Verdict: Timeout})
	if err := a.Merge(b); err != nil {
		t.Fatal(err)
	}
	got := a.Report(Meta{}).PerSession
	want := []SessionSummary{
		{Session: "s2", Sent: 3, Received: 2, Passed: 1, Failed: 1, Timeouts: 1, LatencyAvgMS: 6, LatencyMaxMS: 8, LatencyCount: 2},
		{Session: "s10", Sent: 1, Received: 1, Passed: 1, LatencyAvgMS: 2, LatencyMaxMS: 2, LatencyCount: 1},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("per_session = %+v, want %+v", got, want)
	}
}

func TestSessionLimit(t *testing.T) {
	c := NewCollector()
	c.sessionLimit = 2
	for i := range 5 {
		c.Add(Result{Seq: 1, Session: fmt.Sprintf("s%d", i), Kind: KindNotification, Dir: DirC2S, Sent: time.Unix(1, 0), Verdict: Sent})
	}
	r := c.Report(Meta{})
	if len(r.PerSession) != 2 || r.SessionsOmitted != 3 || r.Summary.Sent != 5 {
		t.Errorf("per_session %d, omitted %d, sent %d; want 2, 3, 5", len(r.PerSession), r.SessionsOmitted, r.Summary.Sent)
	}
}

func TestNaturalCompare(t *testing.T) {
	tests := []struct {
		a, b string
		want int // sign
	}{
		{"s2", "s10", -1}, {"s10", "s2", 1}, {"s1#2", "s1#10", -1}, {"a", "b", -1},
		{"s01", "s1", 0}, {"s1", "s1x", -1}, {"", "a", -1},
	}
	for _, tt := range tests {
		got := naturalCompare(tt.a, tt.b)
		if (got < 0) != (tt.want < 0) || (got > 0) != (tt.want > 0) {
			t.Errorf("naturalCompare(%q, %q) = %d, want sign %d", tt.a, tt.b, got, tt.want)
		}
	}
}
