package session

import (
	"runtime"
	"testing"
	"testing/synctest"
	"time"

	"github.com/replayctl/replayctl/scheduler"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

const ms = time.Millisecond

func at(d time.Duration) time.Time { return t0.Add(d) }

var (
	realtime = scheduler.Speed{Mode: scheduler.Realtime}
	x10      = scheduler.Speed{Mode: scheduler.Scaled, Factor: 10}
	rps      = scheduler.Speed{Mode: scheduler.Rate, RPS: 100}
)

// TestPacingDue: a message's due time by the session's pacing, step by
// step over a session's messages: the anchor at the first message, the
// recorded distance ÷ speed after it, add_delay, a burst fault's run, a
// later epoch, replay time that stood still, and the count speeds'
// tickets.
func TestPacingDue(t *testing.T) {
	type step struct {
		m      paced
		speed  scheduler.Speed
		now    time.Duration
		frozen time.Duration
		want   time.Duration
		v      verdict
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"the first message anchors the clock", []step{
			{m: paced{tUS: 5000}, speed: realtime, now: 7 * ms, want: 7 * ms},
			{m: paced{tUS: 105000}, speed: realtime, now: 8 * ms, want: 107 * ms},
		}},
		{"Nx divides the recorded distance", []step{
			{m: paced{tUS: 0}, speed: x10, now: 0, want: 0},
			{m: paced{tUS: 500000}, speed: x10, now: 1 * ms, want: 50 * ms},
		}},
		{"due times count from the anchor, not from the last message", []step{
			{m: paced{tUS: 0}, speed: realtime, now: 0, want: 0},
			{m: paced{tUS: 100000}, speed: realtime, now: 150 * ms, want: 100 * ms}, // late: still due at +100ms
			{m: paced{tUS: 200000}, speed: realtime, now: 150 * ms, want: 200 * ms},
		}},
		{"add_delay comes after the due time", []step{
			{m: paced{tUS: 0}, speed: realtime, now: 0, want: 0},
			{m: paced{tUS: 10000, delay: 40 * ms}, speed: realtime, now: 0, want: 50 * ms},
		}},
		{"a burst fault sends it and the next ones at once", []step{
			{m: paced{tUS: 0}, speed: realtime, now: 0, want: 0},
			{m: paced{tUS: 100000, burst: 3}, speed: realtime, now: 1 * ms, want: 100 * ms},
			{m: paced{tUS: 200000}, speed: realtime, now: 100 * ms, want: 100 * ms, v: dueBurst},
			{m: paced{tUS: 300000, delay: 5 * ms}, speed: realtime, now: 100 * ms, want: 105 * ms, v: dueBurst},
			{m: paced{tUS: 400000}, speed: realtime, now: 100 * ms, want: 400 * ms},
		}},
		{"a later epoch anchors again", []step{
			{m: paced{tUS: 0}, speed: realtime, now: 0, want: 0},
			{m: paced{tUS: 900000, epoch: 1}, speed: realtime, now: 20 * ms, want: 20 * ms},
			{m: paced{tUS: 950000, epoch: 1}, speed: realtime, now: 20 * ms, want: 70 * ms},
		}},
		{"replay time that stood still moves the clock", []step{
			{m: paced{tUS: 0}, speed: realtime, now: 0, want: 0},
			{m: paced{tUS: 100000}, speed: realtime, now: 0, frozen: 30 * ms, want: 130 * ms},
			{m: paced{tUS: 200000}, speed: realtime, now: 0, frozen: 30 * ms, want: 230 * ms}, // counted once
		}},
		{"count speeds take a ticket", []step{
			{m: paced{tUS: 0}, speed: rps, now: 0, v: dueTicket},
			{m: paced{tUS: 99}, speed: rps, now: 3 * ms, v: dueTicket},
		}},
		{"from a count speed back to realtime the clock anchors anew", []step{
			{m: paced{tUS: 0}, speed: rps, now: 0, v: dueTicket},
			{m: paced{tUS: 700000}, speed: realtime, now: 9 * ms, want: 9 * ms},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p pacing
			for i, s := range tt.steps {
				var due time.Time
				var v verdict
				p, due, v = p.due(s.m, s.speed, at(s.now), s.frozen)
				if v != s.v {
					t.Fatalf("step %d: verdict %d, want %d", i, v, s.v)
				}
				if v != dueTicket && !due.Equal(at(s.want)) {
					t.Errorf("step %d: due at +%s, want +%s", i, due.Sub(t0), s.want)
				}
			}
		})
	}
}

// TestPacingTicketed: a message that took a ticket is due at the
// ticket's time plus its delay, and its burst fault starts a run.
func TestPacingTicketed(t *testing.T) {
	var p pacing
	p, due := p.ticketed(paced{delay: 3 * ms, burst: 2}, at(10*ms))
	if !due.Equal(at(13 * ms)) {
		t.Errorf("due at +%s, want +13ms", due.Sub(t0))
	}
	if _, due, v := p.due(paced{tUS: 1}, rps, at(20*ms), 0); v != dueBurst || !due.Equal(at(20*ms)) {
		t.Errorf("after a burst of 2: %d at +%s, want the burst's at +20ms", v, due.Sub(t0))
	}
}

// TestPacingSpeedChange: what a change of speed does to the next
// message's due time (the rule of scheduler.Clock.WithSpeed), and to
// the messages after it.
func TestPacingSpeedChange(t *testing.T) {
	anchored := func() pacing {
		p, _, _ := pacing{}.due(paced{tUS: 0}, realtime, t0, 0) // anchored at +0
		return p
	}
	head := &paced{tUS: 1000000} // due at +1s at realtime
	tests := []struct {
		name    string
		p       pacing
		s       scheduler.Speed
		head    *paced
		due     time.Time
		wantDue time.Time     // the head's
		next    int64         // the recorded offset (µs) of the message after it
		nextAt  time.Duration // when that one is due
	}{
		{"faster: the wait left shrinks, later ones follow", anchored(), x10, head, at(time.Second), at(190 * ms), 2000000, 290 * ms},
		{"no head: applied at the next message", anchored(), x10, nil, time.Time{}, time.Time{}, 1000000, 190 * ms},
		{"to a count speed: due again by a ticket", anchored(), rps, head, at(time.Second), time.Time{}, 0, 0},
		{"a head not due yet stays so", anchored(), rps, head, time.Time{}, time.Time{}, 0, 0},
		{"a head that may not move keeps its time", anchored(), rps, nil, at(time.Second), at(time.Second), 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, due := tt.p.speedChange(tt.s, at(100*ms), tt.head, tt.due)
			if !due.Equal(tt.wantDue) {
				t.Errorf("head due at %v, want %v", due, tt.wantDue)
			}
			if tt.next == 0 {
				if p.set {
					t.Error("the clock is still set at a count speed")
				}
				return
			}
			_, got, _ := p.due(paced{tUS: tt.next}, tt.s, at(100*ms), 0)
			if !got.Equal(at(tt.nextAt)) {
				t.Errorf("the next message due at +%s, want +%s", got.Sub(t0), tt.nextAt)
			}
		})
	}
}

func TestSpinFor(t *testing.T) {
	procs := int64(runtime.GOMAXPROCS(0))
	for _, tc := range []struct {
		spin     time.Duration
		live     int64
		awaiting bool
		want     time.Duration
	}{
		{time.Millisecond, 1, false, time.Millisecond},
		{time.Millisecond, procs, false, time.Millisecond},
		{time.Millisecond, procs + 1, false, 0}, // more sessions than processors: no spinning
		{time.Millisecond, 1, true, 0},          // answers awaited from the network poller
		{0, 1, false, 0},
		{300 * time.Microsecond, 1, false, 300 * time.Microsecond},
	} {
		if got := spinFor(tc.spin, tc.live, tc.awaiting); got != tc.want {
			t.Errorf("spinFor(%s, %d, %t) = %s, want %s", tc.spin, tc.live, tc.awaiting, got, tc.want)
		}
	}
}

// TestKernelWake: the kernel-timed wake-up ticks once armed, again when
// armed again, and close ends its reading goroutine (goleak checks).
func TestKernelWake(t *testing.T) {
	w := newKernelWake()
	if w == nil {
		if runtime.GOOS == "linux" {
			t.Fatal("no timerfd on Linux")
		}
		t.Skip("no kernel-timed wake-up on", runtime.GOOS)
	}
	defer w.close()
	for i := range 3 {
		start := time.Now()
		w.arm(200 * time.Microsecond)
		select {
		case at := <-w.c:
			if at.Sub(start) < 200*time.Microsecond {
				t.Fatalf("tick %d %s after arming, before its time", i, at.Sub(start))
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("no tick %d in 30s", i)
		}
	}
	w.arm(time.Hour)
	w.stop() // the reading goroutine ends at once
}

// TestAlarmKernelUnderFakeClock: under testing/synctest's fake clock,
// which the kernel does not keep, the alarm's kernel wake-up gives way to
// its timer once time stands still between two settings, so the fake
// clock moves and the alarm fires at its time.
func TestAlarmKernelUnderFakeClock(t *testing.T) {
	w := newKernelWake()
	if w == nil {
		t.Skip("no kernel-timed wake-up on", runtime.GOOS)
	}
	w.close()
	synctest.Test(t, func(t *testing.T) {
		a := newAlarm()
		defer a.close()
		due := time.Now().Add(500 * time.Microsecond)
		a.setKernel(due)
		if !a.kernel {
			t.Fatal("first setting: not the kernel's wake-up")
		}
		<-a.C() // in real time: the fake clock has not moved
		a.fired()
		if !time.Now().Before(due) {
			t.Fatal("the fake clock moved while the kernel's wake-up waited")
		}
		a.setKernel(due)
		if a.kernel {
			t.Fatal("time stood still, and the alarm kept the kernel's wake-up")
		}
		<-a.C()
		if now := time.Now(); !now.Equal(due) {
			t.Errorf("fired at %s, want at its time (%s)", now, due)
		}
	})
}
