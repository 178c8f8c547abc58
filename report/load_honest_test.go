package report

import (
	"strings"
	"testing"
	"time"
)

// TestLoadDeliveredOnlyAtIntendedRate: a paced replay whose requests went
// out at a fraction of the intended rate (the target held them) did not
// deliver its load, whatever the replayer's own lag; the verdict says so
// and names both rates.
func TestLoadDeliveredOnlyAtIntendedRate(t *testing.T) {
	// Due every 10ms, each held 50ms more than the one before: sent
	// 60ms apart, a sixth of the intended 100/s; the replayer is on time.
	rs := every(50, 10*time.Millisecond, func(i int) time.Duration { return time.Duration(i) * 50 * time.Millisecond }, constant(100*time.Microsecond))
	c := NewCollector()
	for _, r := range rs {
		c.Add(r)
	}
	l := c.Report(Meta{Speed: speedOf("realtime"), Sessions: 20}).Load
	if l.Delivered {
		t.Errorf("delivered = true at %.1f/s of %.1f/s intended: want false", l.AchievedRatePerS, l.IntendedRatePerS)
	}
	if !strings.HasPrefix(l.Verdict, "NOT delivered") || !strings.Contains(l.Verdict, "100/s intended") {
		t.Errorf("verdict %q: want it to start NOT delivered and name the 100/s intended", l.Verdict)
	}
}

// TestLoadAdviceOneSession: a replay of one session that fell behind is
// not told to lower --sessions, which it cannot.
func TestLoadAdviceOneSession(t *testing.T) {
	rs := every(100, 10*time.Millisecond, constant(0), func(i int) time.Duration { return time.Duration(i) * time.Millisecond })
	for _, tt := range []struct {
		sessions     int
		wantSessions bool
	}{{1, false}, {0, false}, {20, true}} {
		c := NewCollector()
		for _, r := range rs {
			c.Add(r)
		}
		l := c.Report(Meta{Speed: speedOf("realtime"), Sessions: tt.sessions}).Load
		if l.Delivered || !strings.Contains(l.Verdict, "--speed") {
			t.Errorf("sessions %d: delivered %t, verdict %q: want NOT delivered, advising --speed", tt.sessions, l.Delivered, l.Verdict)
		}
		if got := strings.Contains(l.Verdict, "--sessions"); got != tt.wantSessions {
			t.Errorf("sessions %d: verdict %q mentions --sessions: %t, want %t", tt.sessions, l.Verdict, got, tt.wantSessions)
		}
	}
}
