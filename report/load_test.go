package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

// timed is a client message of kind due at due, held for held and then
// sent lag late; a request is answered 1ms after it is sent.
func timed(seq int64, kind string, due, held, lag time.Duration) Result {
	r := Result{
		Seq: seq, Session: "s1", Method: "tools/call", Dir: DirC2S, Kind: kind,
		Due: at(due), Sent: at(due + held + lag), Held: held, Lag: lag, Verdict: Sent,
	}
	if kind == KindRequest {
		r.Answered, r.Verdict = r.Sent.Add(time.Millisecond), Passed
	}
	return r
}

// every returns n requests due every gap, each held and late as the
// functions of its index say.
func every(n int, gap time.Duration, held, lag func(i int) time.Duration) []Result {
	rs := make([]Result, n)
	for i := range rs {
		rs[i] = timed(int64(i), KindRequest, time.Duration(i)*gap, held(i), lag(i))
	}
	return rs
}

func constant(d time.Duration) func(int) time.Duration { return func(int) time.Duration { return d } }

func TestLoad(t *testing.T) {
	tests := []struct {
		name    string
		speed   string
		results []Result
		want    Load
		// The percentiles are HDR values: checked with near, not ==.
		lagP99, heldP99 float64
		heldCount       int64
	}{
		{
			name:    "on schedule at rps:500",
			speed:   "rps:500",
			results: every(1000, 2*time.Millisecond, constant(0), constant(100*time.Microsecond)),
			want: Load{Applicable: true, Requests: 1000, IntendedRatePerS: 500, AchievedRatePerS: 500, AchievedRatio: 1, LateAfterMS: 10, Delivered: true,
				Verdict: "delivered: 1,000 requests at 500/s, 100% of the 500/s intended (lag p99 100µs)"},
			lagP99: 0.1, heldCount: 1000,
		},
		{
			name:  "behind schedule",
			speed: "realtime",
			// Lag grows by 1ms a request: 11ms..99ms are late, 89 of them.
			results: every(100, 10*time.Millisecond, constant(0), func(i int) time.Duration { return time.Duration(i) * time.Millisecond }),
			want: Load{Applicable: true, Requests: 100, IntendedRatePerS: 100, AchievedRatePerS: 99 / 1.089, AchievedRatio: 0.909091, Late: 89, LateAfterMS: 10,
				Verdict: "NOT delivered: 100 requests at 90.9/s, 90.9% of the 100/s intended (95% needed) (lag p99 98.05ms); the replayer fell behind its schedule (89 messages more than 10ms late): the machine or the replayer could not keep up — lower the speed (--speed), or replay on a machine less busy"},
			lagP99: 98, heldCount: 100,
		},
		{
			// Held time that slows the rate below DeliveredRatio of the
			// intended one is not a delivered load (it was before issue 23).
			name:  "held by the target: not delivered",
			speed: "10x",
			// Held 0, 50, …, 450ms: sends 150ms apart where 100ms was meant.
			results: every(10, 100*time.Millisecond, func(i int) time.Duration { return time.Duration(i) * 50 * time.Millisecond }, constant(200*time.Microsecond)),
			want: Load{Applicable: true, Requests: 10, IntendedRatePerS: 10, AchievedRatePerS: 9 / 1.35, AchievedRatio: 0.666667, LateAfterMS: 10,
				Verdict: "NOT delivered: 10 requests at 6.67/s, 66.7% of the 10/s intended (95% needed) (lag p99 200µs); held p99 450ms: the target set the pace (its answers awaited: causal order / --max-inflight; or a send it held until it answered)"},
			lagP99: 0.2, heldP99: 450, heldCount: 10,
		},
		{
			name:  "behind schedule and held",
			speed: "fixed:50ms",
			results: []Result{
				timed(0, KindRequest, 0, 20*time.Millisecond, 30*time.Millisecond),
				timed(1, KindRequest, 50*time.Millisecond, 20*time.Millisecond, 30*time.Millisecond),
			},
			want: Load{Applicable: true, Requests: 2, IntendedRatePerS: 20, AchievedRatePerS: 20, AchievedRatio: 1, Late: 2, LateAfterMS: 10,
				Verdict: "NOT delivered: 2 requests at 20/s, 100% of the 20/s intended (lag p99 30ms); the replayer fell behind its schedule (2 messages more than 10ms late): the machine or the replayer could not keep up — lower the speed (--speed), or replay on a machine less busy; held p99 20ms: the target set the pace (its answers awaited: causal order / --max-inflight; or a send it held until it answered)"},
			lagP99: 30, heldP99: 20, heldCount: 2,
		},
		{
			name:    "a single request has no rate",
			speed:   "realtime",
			results: []Result{timed(0, KindRequest, time.Second, 0, 300*time.Microsecond)},
			want: Load{Applicable: true, Requests: 1, LateAfterMS: 10, Delivered: true,
				Verdict: "delivered: 1 request (lag p99 300µs)"},
			lagP99: 0.3, heldCount: 1,
		},
		{
			name:  "requests due at once have no rate",
			speed: "realtime",
			results: []Result{
				timed(0, KindRequest, 0, 0, 0),
				timed(1, KindRequest, 0, 0, 0),
			},
			want: Load{Applicable: true, Requests: 2, LateAfterMS: 10, Delivered: true,
				Verdict: "delivered: 2 requests (lag p99 0µs)"},
			heldCount: 2,
		},
		{
			name:  "a late notification is late but not in the rates",
			speed: "2x",
			results: []Result{
				timed(0, KindRequest, 0, 0, 0),
				timed(1, KindNotification, 10*time.Millisecond, 0, 20*time.Millisecond),
				timed(2, KindRequest, 100*time.Millisecond, 0, 0),
			},
			want: Load{Applicable: true, Requests: 2, IntendedRatePerS: 10, AchievedRatePerS: 10, AchievedRatio: 1, Late: 1, LateAfterMS: 10,
				Verdict: "NOT delivered: 2 requests at 10/s, 100% of the 10/s intended (lag p99 20ms); the replayer fell behind its schedule (1 message more than 10ms late): the machine or the replayer could not keep up — lower the speed (--speed), or replay on a machine less busy"},
			lagP99: 20, heldCount: 3,
		},
		{
			name:  "exactly LateAfter is not late",
			speed: "realtime",
			results: []Result{
				timed(0, KindRequest, 0, 0, LateAfter),
				timed(1, KindRequest, time.Second, 0, LateAfter),
			},
			want: Load{Applicable: true, Requests: 2, IntendedRatePerS: 1, AchievedRatePerS: 1, AchievedRatio: 1, LateAfterMS: 10, Delivered: true,
				Verdict: "delivered: 2 requests at 1/s, 100% of the 1/s intended (lag p99 10ms)"},
			lagP99: 10, heldCount: 2,
		},
		{
			// A first request sent late and the last on time squeeze the
			// sends into less time than the schedule meant: that is not a
			// rate above the intended one (it read 286% before).
			name:  "a late start does not count as a faster rate",
			speed: "10x",
			results: []Result{
				timed(0, KindRequest, 0, 0, 1300*time.Microsecond),
				timed(1, KindRequest, 2*time.Millisecond, 0, 0),
			},
			want: Load{Applicable: true, Requests: 2, IntendedRatePerS: 500, AchievedRatePerS: 500, AchievedRatio: 1, LateAfterMS: 10, Delivered: true,
				Verdict: "delivered: 2 requests at 500/s, 100% of the 500/s intended (lag p99 1.3ms)"},
			lagP99: 1.3, heldCount: 2,
		},
		{
			name:    "nothing sent",
			speed:   "realtime",
			results: []Result{{Seq: 0, Dir: DirC2S, Kind: KindRequest, Verdict: Skipped}},
			want:    Load{Applicable: true, LateAfterMS: 10, Verdict: "NOT delivered: nothing was sent"},
		},
		{
			name:    "fast follows no schedule",
			speed:   "fast",
			results: every(10, 0, constant(time.Millisecond), constant(50*time.Millisecond)),
			want:    Load{Verdict: "not applicable: speed fast follows no schedule"},
			// Held time is still measured; only the load section is left out.
			lagP99: 50, heldP99: 1, heldCount: 10,
		},
		{
			name:    "stepped follows no schedule",
			speed:   "stepped",
			results: every(3, time.Second, constant(0), constant(time.Second)),
			want:    Load{Verdict: "not applicable: speed stepped follows no schedule"},
			lagP99:  1000, heldCount: 3,
		},
		{
			name:      "speed not known",
			speed:     "",
			results:   every(3, time.Second, constant(0), constant(0)),
			want:      Load{Verdict: "not applicable: the speed is not known"},
			heldCount: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCollector()
			for _, r := range tt.results {
				c.Add(r)
			}
			r := c.Report(Meta{Speed: speedOf(tt.speed)})
			got := r.Load
			if !near(got.IntendedRatePerS, tt.want.IntendedRatePerS) || !near(got.AchievedRatePerS, tt.want.AchievedRatePerS) {
				t.Errorf("rates: got intended %v achieved %v, want %v %v", got.IntendedRatePerS, got.AchievedRatePerS, tt.want.IntendedRatePerS, tt.want.AchievedRatePerS)
			}
			wantLag, wantHeld := 0.0, 0.0
			if tt.want.Applicable {
				wantLag, wantHeld = tt.lagP99, tt.heldP99
			}
			if !near(got.LagP99MS, wantLag) || !near(got.HeldP99MS, wantHeld) {
				t.Errorf("p99: got lag %v held %v, want %v %v", got.LagP99MS, got.HeldP99MS, wantLag, wantHeld)
			}
			// The rest exactly.
			got.IntendedRatePerS, got.AchievedRatePerS, got.LagP99MS, got.HeldP99MS = tt.want.IntendedRatePerS, tt.want.AchievedRatePerS, tt.want.LagP99MS, tt.want.HeldP99MS
			if got != tt.want {
				t.Errorf("load:\ngot  %+v\nwant %+v", got, tt.want)
			}
			p := r.Performance
			if p.HeldMS.Count != tt.heldCount || !near(p.HeldMS.P99, tt.heldP99) {
				t.Errorf("held_ms: got %+v, want count %d p99 %v", p.HeldMS, tt.heldCount, tt.heldP99)
			}
			if p.ScheduleLagMS.Count > 0 && !near(p.ScheduleLagMS.P99, tt.lagP99) {
				t.Errorf("schedule_lag_ms p99: got %v, want %v", p.ScheduleLagMS.P99, tt.lagP99)
			}
		})
	}
}

func TestHeldHistogram(t *testing.T) {
	tests := []struct {
		name              string
		r                 Result
		wantHeld, wantLag int64 // counts
		heldMax, lagMax   float64
	}{
		{"request", timed(0, KindRequest, 0, 40*time.Millisecond, time.Millisecond), 1, 1, 40, 1},
		{"notification", timed(0, KindNotification, 0, 5*time.Millisecond, 0), 1, 1, 5, 0},
		{"lag left zero: Sent − Due − Held", func() Result {
			r := timed(0, KindRequest, 0, 30*time.Millisecond, 2*time.Millisecond)
			r.Lag = 0
			return r
		}(), 1, 1, 30, 2},
		{"lag left zero, held past the send: no lag", func() Result {
			r := timed(0, KindRequest, 0, 30*time.Millisecond, 0)
			r.Held = 31 * time.Millisecond
			return r
		}(), 1, 1, 31, 0},
		{"no due: lag but no held", Result{Dir: DirC2S, Kind: KindRequest, Sent: at(0), Held: time.Second, Lag: time.Millisecond, Verdict: Sent}, 0, 1, 0, 1},
		{"server message", Result{Dir: DirS2C, Kind: KindNotification, Due: at(0), Answered: at(time.Millisecond), Held: time.Second, Verdict: Passed}, 0, 0, 0, 0},
		{"not sent", Result{Dir: DirC2S, Kind: KindRequest, Due: at(0), Held: time.Second, Verdict: Skipped}, 0, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCollector()
			c.Add(tt.r)
			p := c.Report(Meta{}).Performance
			if p.HeldMS.Count != tt.wantHeld || p.HeldMS.Max != tt.heldMax || p.ScheduleLagMS.Count != tt.wantLag || p.ScheduleLagMS.Max != tt.lagMax {
				t.Errorf("got held %d max %v, lag %d max %v; want held %d max %v, lag %d max %v",
					p.HeldMS.Count, p.HeldMS.Max, p.ScheduleLagMS.Count, p.ScheduleLagMS.Max, tt.wantHeld, tt.heldMax, tt.wantLag, tt.lagMax)
			}
		})
	}
}

// TestLoadMerge checks that the load section of merged collectors is the
// one of a collector that saw everything: the spans and counts combine.
func TestLoadMerge(t *testing.T) {
	rs := every(300, 3*time.Millisecond, func(i int) time.Duration { return time.Duration(i%7) * time.Millisecond },
		func(i int) time.Duration { return time.Duration(i%13) * time.Millisecond })
	one := NewCollector()
	parts := []*Collector{NewCollector(), NewCollector(), NewCollector()}
	for i, r := range rs {
		one.Add(r)
		parts[i%3].Add(r) // interleaved: each part's span is nearly the whole
	}
	for _, p := range parts[1:] {
		if err := parts[0].Merge(p); err != nil {
			t.Fatal(err)
		}
	}
	meta := Meta{Speed: speedOf("realtime")}
	got, want := parts[0].Report(meta), one.Report(meta)
	if got.Load != want.Load || got.Performance.HeldMS != want.Performance.HeldMS {
		t.Errorf("merged:\ngot  %+v held %+v\nwant %+v held %+v", got.Load, got.Performance.HeldMS, want.Load, want.Performance.HeldMS)
	}
	if want.Load.Late == 0 || want.Load.Requests != 300 {
		t.Errorf("late %d requests %d: want some late and 300", want.Load.Late, want.Load.Requests)
	}
}

func TestLoadFormats(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{formatRate(0), "0/s"}, {formatRate(2.5), "2.5/s"}, {formatRate(6.666), "6.67/s"}, {formatRate(10), "10/s"},
		{formatRate(66.666), "66.7/s"}, {formatRate(498.4), "498/s"}, {formatRate(12500), "12,500/s"},
		{grouped(0), "0"}, {grouped(999), "999"}, {grouped(1000), "1,000"}, {grouped(1234567), "1,234,567"}, {grouped(-1000), "-1,000"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestWriteTextLoad(t *testing.T) {
	report := func(speed string, rs []Result) Report {
		c := NewCollector()
		for _, r := range rs {
			c.Add(r)
		}
		return c.Report(Meta{Tape: "t.jsonl", Speed: speedOf(speed)})
	}
	behind := every(100, 10*time.Millisecond, constant(20*time.Millisecond), func(i int) time.Duration { return time.Duration(i) * time.Millisecond })
	tests := []struct {
		name        string
		r           Report
		color       bool
		want, avoid []string
	}{
		{
			name: "delivered",
			r:    report("rps:500", every(1000, 2*time.Millisecond, constant(0), constant(100*time.Microsecond))),
			want: []string{
				"  time        lag p50 100µs p99 100µs · held p50 0µs p99 0µs · latency p50 1ms p99 1ms\n",
				"  load        delivered: 1,000 requests at 500/s, 100% of the 500/s intended (lag p99 100µs)\n",
			},
		},
		{
			name: "not delivered, held",
			r:    report("realtime", behind),
			want: []string{
				"held p50 20ms p99 20ms",
				"  load        NOT delivered: 100 requests at 90.9/s, 90.9% of the 100/s intended (95% needed) (lag p99 98.05ms); the replayer fell behind its schedule (89 messages more than 10ms late)",
				"; held p99 20ms: the target set the pace",
			},
		},
		{
			name:  "not delivered in color",
			r:     report("realtime", behind),
			color: true,
			want:  []string{ansiYellow + "NOT delivered"},
		},
		{
			name:  "fast: no load line, still the time line",
			r:     report("fast", every(3, 0, constant(0), constant(0))),
			want:  []string{"  time        lag p50 0µs p99 0µs · held p50 0µs p99 0µs · latency p50 1ms p99 1ms\n"},
			avoid: []string{"load ", "delivered"},
		},
		{
			name:  "nothing sent: neither line",
			r:     report("realtime", nil),
			want:  []string{"  load        NOT delivered: nothing was sent"},
			avoid: []string{"time "},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tt.r.WriteText(&buf, tt.color); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(buf.String(), w) {
					t.Errorf("got:\n%s\nwant it to contain %q", buf.String(), w)
				}
			}
			for _, a := range tt.avoid {
				if strings.Contains(buf.String(), a) {
					t.Errorf("got:\n%s\nwant it not to contain %q", buf.String(), a)
				}
			}
		})
	}
}

// TestLoadCountsWhatItRates: the load line's count is of the messages its
// rates are over. At rps: every client message takes a ticket (the
// handshake's and the notifications too), so the rate is over them all:
// 20 sessions of initialize, notifications/initialized and 7 calls at
// rps:200 are 180 messages at 200/s, not "160 requests" at the 157/s that
// the 140 calls' span gives. At realtime the handshake is not paced: the
// rate is over the calls, and the count too, the handshake said apart.
func TestLoadCountsWhatItRates(t *testing.T) {
	// session is one session's messages, from ticket (or 10ms slot) i0.
	session := func(name string, i0 int, gap time.Duration) []Result {
		var rs []Result
		add := func(method, kind string) {
			r := timed(int64(len(rs)), kind, time.Duration(i0+len(rs))*gap, 0, 50*time.Microsecond)
			r.Session, r.Method = name, method
			rs = append(rs, r)
		}
		add("initialize", KindRequest)
		add("notifications/initialized", KindNotification)
		for range 7 {
			add("tools/call", KindRequest)
		}
		return rs
	}
	tests := []struct {
		name     string
		speed    string
		sessions int
		gap      time.Duration
		want     Load
	}{
		{"rps:200, 20 sessions", "rps:200", 20, 5 * time.Millisecond,
			Load{Applicable: true, Requests: 160, Notifications: 20, IntendedRatePerS: 200, AchievedRatePerS: 200, AchievedRatio: 1, LateAfterMS: 10, Delivered: true,
				Verdict: "delivered: 180 messages at 200/s (160 requests, 20 notifications; each takes a ticket), 100% of the 200/s intended (lag p99 50µs)"}},
		{"realtime, 1 session", "realtime", 1, 10 * time.Millisecond,
			Load{Applicable: true, Requests: 7, Handshakes: 1, IntendedRatePerS: 100, AchievedRatePerS: 100, AchievedRatio: 1, LateAfterMS: 10, Delivered: true,
				Verdict: "delivered: 7 requests at 100/s (+1 handshake, not paced), 100% of the 100/s intended (lag p99 50µs)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCollector()
			for k := range tt.sessions {
				for _, r := range session(fmt.Sprintf("s%d", k), 9*k, tt.gap) {
					c.Add(r)
				}
			}
			got := c.Report(Meta{Speed: speedOf(tt.speed)}).Load
			if !near(got.IntendedRatePerS, tt.want.IntendedRatePerS) || !near(got.AchievedRatePerS, tt.want.AchievedRatePerS) {
				t.Errorf("rates: got intended %v achieved %v, want %v %v", got.IntendedRatePerS, got.AchievedRatePerS, tt.want.IntendedRatePerS, tt.want.AchievedRatePerS)
			}
			got.IntendedRatePerS, got.AchievedRatePerS, got.LagP99MS = tt.want.IntendedRatePerS, tt.want.AchievedRatePerS, tt.want.LagP99MS
			if got != tt.want {
				t.Errorf("load:\ngot  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
