package engine

import (
	"context"
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/transport"
)

// TestPacingUnderFakeTime replays the example tape through the whole
// pipeline on synctest's fake clock: the session's clock starts when its
// live handshake completes (the mock answers at once), and every later
// client message is sent exactly at its recorded distance from the
// recorded handshake answer divided by the speed; the replay lasts exactly
// as long as that makes the tape's last client message.
func TestPacingUnderFakeTime(t *testing.T) {
	for _, tc := range []struct {
		speed  scheduler.Speed
		factor float64
	}{
		{scheduler.Speed{Mode: scheduler.Realtime}, 1},
		{scheduler.Speed{Mode: scheduler.Scaled, Factor: 10}, 10},
		{scheduler.Speed{Mode: scheduler.Scaled, Factor: 0.5}, 0.5},
	} {
		t.Run(tc.speed.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e, err := New(withMock(Config{Tape: "../examples/quickstart.jsonl", Speed: tc.speed}))
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				var sent []report.Result
				e.OnResult(func(r report.Result) {
					if r.Dir == "c2s" {
						sent = append(sent, r)
					}
				})
				rep, err := e.Run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				// Recorded client send times, in µs from the recorded
				// initialize answer (t_us 2100), from the tape.
				want := map[int64]int64{0: 0, 2: 900, 3: 147900, 5: 417900, 7: 697900, 10: 977900, 12: 1247900, 14: 1497900, 16: 1797900}
				if len(sent) != len(want) {
					t.Fatalf("%d client messages judged, want %d", len(sent), len(want))
				}
				for _, r := range sent {
					us, ok := want[r.Seq]
					if !ok {
						t.Fatalf("unexpected seq %d", r.Seq)
					}
					wantAt := start.Add(time.Duration(float64(us)/tc.factor) * time.Microsecond)
					if !r.Sent.Equal(wantAt) || r.Lag != 0 {
						t.Errorf("seq %d sent at +%s (lag %s), want +%s and no lag", r.Seq, r.Sent.Sub(start), r.Lag, wantAt.Sub(start))
					}
				}
				if got, want := time.Since(start), time.Duration(1797900/tc.factor)*time.Microsecond; got != want {
					t.Errorf("replay took %s of fake time, want %s", got, want)
				}
				if rep.Validation.Passed != 8 {
					t.Errorf("passed %d, want 8", rep.Validation.Passed)
				}
			})
		})
	}
}

// TestSpeedChangeWhileRunning switches from realtime to 10x half a second
// in: what was due later keeps its order and comes ten times sooner.
func TestSpeedChangeWhileRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e, err := New(withMock(Config{Tape: "../examples/quickstart.jsonl"}))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		sentAt := map[int64]time.Duration{}
		e.OnResult(func(r report.Result) {
			if r.Dir == "c2s" {
				sentAt[r.Seq] = r.Sent.Sub(start)
			}
		})
		go func() {
			time.Sleep(500 * time.Millisecond)
			e.SetSpeed(scheduler.Speed{Mode: scheduler.Scaled, Factor: 10})
		}()
		if _, err := e.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		// The clock counts from the recorded initialize answer (2.1ms).
		us := func(n int64) time.Duration { return time.Duration(n) * time.Microsecond }
		want := map[int64]time.Duration{
			3: us(147900), 5: us(417900), // before the change
			7:  us(519790), // 197.9ms left at 1x → 19.79ms at 10x
			10: us(547790), 12: us(574790), 14: us(599790), 16: us(629790),
		}
		for seq, w := range want {
			if got := sentAt[seq]; got != w {
				t.Errorf("seq %d sent at +%s, want +%s", seq, got, w)
			}
		}
	})
}

// TestCountSpeedsShareOneRate: at rps and fixed every session paces
// itself by the tickets all sessions share, so the replay as a whole
// keeps the rate: with 4 virtual copies of the example tape at rps:50,
// every client message is due 20ms after another (each due time taken
// once), and nothing is late on the fake clock.
func TestCountSpeedsShareOneRate(t *testing.T) {
	for _, speed := range []scheduler.Speed{
		{Mode: scheduler.Rate, RPS: 50},
		{Mode: scheduler.Fixed, Interval: 20 * time.Millisecond},
	} {
		t.Run(speed.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e, err := New(withMock(Config{Tape: "../examples/quickstart.jsonl", Speed: speed, Sessions: 4}))
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				due := map[time.Duration]int64{}
				e.OnResult(func(r report.Result) {
					if r.Dir != "c2s" {
						return
					}
					if r.Lag != 0 {
						t.Errorf("%s seq %d: lag %s, want none", r.Session, r.Seq, r.Lag)
					}
					at := r.Due.Sub(start)
					if prev, ok := due[at]; ok {
						t.Errorf("%s seq %d due at +%s, as was seq %d", r.Session, r.Seq, at, prev)
					}
					due[at] = r.Seq
				})
				if _, err := e.Run(context.Background()); err != nil {
					t.Fatal(err)
				}
				const n = 4 * 9 // 9 client messages a session
				if len(due) != n {
					t.Fatalf("%d due times, want %d", len(due), n)
				}
				for i := range n {
					if _, ok := due[time.Duration(i)*20*time.Millisecond]; !ok {
						t.Errorf("no message due at +%s", time.Duration(i)*20*time.Millisecond)
					}
				}
			})
		})
	}
}

// TestScheduleHoldsAfterLateAnswers (issue 24, the schedule's tail): the
// recorded send times are the schedule. A tape of 40 tools/call recorded
// 2 ms apart, each answered 0.1 ms after it, replayed at 10x (0.2 ms
// apart) on synctest's fake clock against a target whose answers take
// 0.01 ms, except for late ones. In causal order (the default) a call
// whose recorded answer came before it waits for the live one: after one
// late answer the calls it held go as soon as their answers come, and
// every later call goes exactly at its own due time (the clock does not
// re-base on a late send); when every answer is later than the gap, every
// call is held and the whole run slides — the tape's order demands it,
// and the report says held, not lag. With --order none every call goes at
// its due time whatever the answers do.
func TestScheduleHoldsAfterLateAnswers(t *testing.T) {
	const calls = 40
	gap := 200 * time.Microsecond // 2 ms at 10x
	path := callsTape(t, calls, 2*time.Millisecond)
	for _, tc := range []struct {
		name  string
		order Order
		late  func(n int) time.Duration // how late the target answers call n (0: initialize)
		held  []int                     // the calls held past their due time
	}{
		// Answer 10 comes 0.5 ms after its call: call 11 (due 0.2 ms after
		// call 10) goes at 0.5 ms, call 12 (due 0.4) when answer 11 comes
		// (0.51); call 13 is due at 0.6 and goes then.
		{"causal/one late", OrderCausal, lateOne(10, 500*time.Microsecond), []int{11, 12}},
		// Every answer 0.3 ms late: each call waits for the one before it.
		{"causal/all late", OrderCausal, lateAll(300 * time.Microsecond), rangeInts(2, calls)},
		{"none/one late", OrderNone, lateOne(10, 500*time.Microsecond), nil},
		{"none/all late", OrderNone, lateAll(300 * time.Microsecond), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cfg := withMock(Config{Tape: path, Speed: scheduler.Speed{Mode: scheduler.Scaled, Factor: 10}, Order: tc.order})
				cfg.Dialer = lateDialer{inner: cfg.Dialer, late: tc.late}
				e, err := New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				sent := map[int]report.Result{}
				e.OnResult(func(r report.Result) {
					if r.Dir == "c2s" && r.Method == "tools/call" {
						sent[int(r.Seq-3)/2+1] = r // seq 3, 5, …: calls 1, 2, …
					}
				})
				rep, err := e.Run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if rep.Validation.Passed != calls+1 {
					t.Errorf("passed %d, want %d", rep.Validation.Passed, calls+1)
				}
				if len(sent) != calls {
					t.Fatalf("%d calls judged, want %d", len(sent), calls)
				}
				first := sent[1].Due
				held := map[int]bool{}
				for _, i := range tc.held {
					held[i] = true
				}
				var onTime, wantOnTime int
				for i := 1; i <= calls; i++ {
					r := sent[i]
					// The schedule itself never moves: call i is due at
					// call 1's due time plus (i−1) gaps.
					if want := first.Add(time.Duration(i-1) * gap); !r.Due.Equal(want) {
						t.Errorf("call %d due at +%s, want +%s: the clock moved", i, r.Due.Sub(first), want.Sub(first))
					}
					if r.Lag != 0 {
						t.Errorf("call %d lag %s, want none (fake time)", i, r.Lag)
					}
					if !held[i] {
						wantOnTime++
					}
					if r.Sent.Equal(r.Due) {
						onTime++
					} else if !held[i] {
						t.Errorf("call %d sent at +%s (held %s), want at its due time +%s", i, r.Sent.Sub(first), r.Held, r.Due.Sub(first))
					}
					if held[i] && (r.Held <= 0 || !r.Sent.Equal(r.Due.Add(r.Held))) {
						t.Errorf("call %d sent at +%s, due +%s, held %s: want held until its answer came", i, r.Sent.Sub(first), r.Due.Sub(first), r.Held)
					}
				}
				if onTime != wantOnTime {
					t.Errorf("%d of %d calls sent at their due time, want %d", onTime, calls, wantOnTime)
				}
			})
		})
	}
}

// TestHeldEndsWhenTheAnswerCame (issue 24): a call held by the answer
// before it is held until that answer came — when it was read — and not
// until the session took it: the time between is the replayer's (lag).
// The target answers each call at once, but each answer reaches the
// session 0.3 ms after it was read (stamped 0.1 ms after its call, passed
// on 0.2 ms later), as when the session's processor was busy. At 10x
// (0.2 ms apart) in causal order every call from the second on waits for
// the answer before it; its lateness is split at that answer's read:
// held until it, lag after it. Before, the whole wait was held and the
// lag 0.
func TestHeldEndsWhenTheAnswerCame(t *testing.T) {
	const calls = 20
	stale := 200 * time.Microsecond
	path := callsTape(t, calls, 2*time.Millisecond)
	synctest.Test(t, func(t *testing.T) {
		cfg := withMock(Config{Tape: path, Speed: scheduler.Speed{Mode: scheduler.Scaled, Factor: 10}})
		cfg.Dialer = lateDialer{inner: cfg.Dialer, late: lateAll(stale + 100*time.Microsecond), stale: stale}
		e, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		sent := map[int]report.Result{}
		e.OnResult(func(r report.Result) {
			if r.Dir == "c2s" && r.Method == "tools/call" {
				sent[int(r.Seq-3)/2+1] = r
			}
		})
		if _, err := e.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(sent) != calls {
			t.Fatalf("%d calls judged, want %d", len(sent), calls)
		}
		for i := 2; i <= calls; i++ {
			r := sent[i]
			late := r.Sent.Sub(r.Due)
			if late <= 0 {
				t.Fatalf("call %d sent %s before its due time, want it held by the answer before it", i, -late)
			}
			// The answer before it was read stale before it was taken,
			// and the call went when it was taken.
			wantLag := min(stale, late)
			if r.Lag != wantLag || r.Held != late-wantLag {
				t.Errorf("call %d %s late: held %s, lag %s; want held %s, lag %s", i, late, r.Held, r.Lag, late-wantLag, wantLag)
			}
		}
	})
}

func lateOne(n int, d time.Duration) func(int) time.Duration {
	return func(i int) time.Duration {
		if i == n {
			return d
		}
		return 10 * time.Microsecond
	}
}

func lateAll(d time.Duration) func(int) time.Duration {
	return func(int) time.Duration { return d }
}

func rangeInts(from, to int) []int {
	var s []int
	for i := from; i <= to; i++ {
		s = append(s, i)
	}
	return s
}

// lateDialer is a target whose answers come late: the mock's n-th answer
// (0: initialize's) is passed on late(n) after the mock gave it.
// Its connections are not the mock's own (they do not send instantly),
// so the session paces them as a network target's.
type lateDialer struct {
	inner transport.Dialer
	late  func(n int) time.Duration
	stale time.Duration // each answer is stamped this long before it is passed on
}

func (d lateDialer) Dial(ctx context.Context, session string) (transport.Conn, error) {
	c, err := d.inner.Dial(ctx, session)
	if err != nil {
		return nil, err
	}
	lc := &lateConn{Conn: c, late: d.late, stale: d.stale, out: make(chan transport.Incoming), done: make(chan struct{})}
	go lc.forward()
	return lc, nil
}

type lateConn struct {
	transport.Conn
	late  func(n int) time.Duration
	stale time.Duration
	out   chan transport.Incoming
	done  chan struct{}
}

// forward passes each answer on at its time, in order; an answer is
// stamped when it is passed on (when the client would read it), or stale
// before that (read, then handed to the session late). Answers are
// counted as they come: 0 is initialize's, n the n-th call's.
func (c *lateConn) forward() {
	defer close(c.out)
	n := 0
	for in := range c.Conn.Incoming() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Msg, &m) == nil && m.ID != nil && m.Method == "" {
			time.Sleep(time.Until(in.At.Add(c.late(n))))
			in.At = time.Now().Add(-c.stale)
			n++
		}
		select {
		case c.out <- in:
		case <-c.done:
			return
		}
	}
}

func (c *lateConn) Incoming() <-chan transport.Incoming { return c.out }

func (c *lateConn) Close() error {
	select {
	case <-c.done:
	default:
		close(c.done)
	}
	return c.Conn.Close()
}
