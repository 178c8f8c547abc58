package scheduler

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

func TestTicketsTake(t *testing.T) {
	rps10 := Speed{Mode: Rate, RPS: 10}
	fixed := Speed{Mode: Fixed, Interval: 50 * ms}
	type take struct {
		now    time.Duration
		within time.Duration
		epoch  uint64
		want   time.Duration
		ok     bool
	}
	tests := []struct {
		name  string
		speed Speed
		takes []take
	}{
		{"first is due at once", rps10, []take{{now: 7 * ms, want: 7 * ms, ok: true}}},
		{"rate spaces by count", rps10, []take{
			{now: 0, want: 0, ok: true},
			{now: 0, want: 100 * ms, ok: false},
			{now: 100 * ms, want: 100 * ms, ok: true},
			{now: 150 * ms, want: 200 * ms, ok: false},
		}},
		{"within takes a ticket a little early", rps10, []take{
			{now: 0, want: 0, ok: true},
			{now: 99 * ms, within: ms, want: 100 * ms, ok: true},
			{now: 150 * ms, within: ms, want: 200 * ms, ok: false},
		}},
		{"behind: tickets of the past go at once, one each", fixed, []take{
			{now: 0, want: 0, ok: true},
			{now: 500 * ms, want: 50 * ms, ok: true},
			{now: 500 * ms, want: 100 * ms, ok: true},
		}},
		{"a later epoch starts again at now", fixed, []take{
			{now: 0, want: 0, ok: true},
			{now: 10 * ms, epoch: 1, want: 10 * ms, ok: true},
			{now: 10 * ms, epoch: 1, want: 60 * ms, ok: false},
			{now: 20 * ms, epoch: 0, want: 60 * ms, ok: false}, // an older epoch changes nothing
		}},
		{"fast is never paced", Speed{Mode: Fast}, []take{
			{now: 0, want: 0, ok: true},
			{now: 0, want: 0, ok: true},
			{now: 3 * ms, want: 3 * ms, ok: true},
		}},
		{"realtime is not counted", Speed{Mode: Realtime}, []take{{now: 4 * ms, want: 4 * ms, ok: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk := tickets{speed: tt.speed}
			for i, k := range tt.takes {
				var got time.Time
				var ok bool
				tk, got, ok = tk.take(at(k.now), k.within, k.epoch)
				if !got.Equal(at(k.want)) || ok != k.ok {
					t.Errorf("take %d at +%s: got +%s, %v; want +%s, %v", i, k.now, got.Sub(t0), ok, k.want, k.ok)
				}
			}
		})
	}
}

func TestTicketsSpeedAndHold(t *testing.T) {
	rps10 := Speed{Mode: Rate, RPS: 10}
	tests := []struct {
		name string
		do   func(tickets) tickets
		now  time.Duration // of the take that follows
		want time.Duration // the next ticket's due time
	}{
		{"faster: the wait left shrinks", func(t tickets) tickets {
			return t.withSpeed(Speed{Mode: Rate, RPS: 20}, at(50*ms)) // 50ms left at rps:10 → 25ms
		}, 50 * ms, 75 * ms},
		{"from fast to rps: the next is due at the change", func(t tickets) tickets {
			t.speed = Speed{Mode: Fast}
			return t.withSpeed(rps10, at(30*ms))
		}, 30 * ms, 30 * ms},
		{"an invalid speed changes nothing", func(t tickets) tickets {
			return t.withSpeed(Speed{Mode: Rate, RPS: -1}, at(50*ms))
		}, 0, 100 * ms},
		{"a hold moves the next ticket", func(t tickets) tickets {
			return t.held(at(20*ms), at(70*ms))
		}, 0, 150 * ms},
		{"overlapping holds count once", func(t tickets) tickets {
			t = t.held(at(20*ms), at(70*ms))
			return t.held(at(40*ms), at(90*ms)) // 20ms more
		}, 0, 170 * ms},
		{"a hold inside an earlier one counts nothing", func(t tickets) tickets {
			t = t.held(at(20*ms), at(70*ms))
			return t.held(at(30*ms), at(60*ms))
		}, 0, 150 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk, _, _ := tickets{speed: rps10}.take(t0, 0, 0) // ticket 0 at +0
			tk = tt.do(tk)
			_, got, _ := tk.take(at(tt.now), 0, 0)
			if !got.Equal(at(tt.want)) {
				t.Errorf("next ticket due at +%s, want +%s", got.Sub(t0), tt.want)
			}
		})
	}
}

// TestTicketsShared: sessions that each pace themselves by the shared
// tickets send, all together, at the rate: n tickets over (n-1) gaps of
// fake time, whatever the number of sessions, each due time taken once.
func TestTicketsShared(t *testing.T) {
	for _, sessions := range []int{1, 4, 16} {
		t.Run(time.Duration(sessions).String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const perSession = 25
				tk := NewShared(Speed{Mode: Fixed, Interval: 10 * ms})
				start := time.Now()
				var mu sync.Mutex
				seen := map[time.Time]bool{}
				var wg sync.WaitGroup
				for range sessions {
					wg.Go(func() {
						for range perSession {
							for {
								due, ok := tk.Take(time.Now(), 0, 0)
								if ok {
									mu.Lock()
									seen[due] = true
									mu.Unlock()
									break
								}
								if err := sleepCtx(context.Background(), time.Until(due)); err != nil {
									t.Error(err)
									return
								}
							}
						}
					})
				}
				wg.Wait()
				n := sessions * perSession
				if len(seen) != n {
					t.Errorf("%d distinct due times, want %d", len(seen), n)
				}
				if got, want := time.Since(start), time.Duration(n-1)*10*ms; got != want {
					t.Errorf("took %s of fake time, want %s", got, want)
				}
			})
		})
	}
}

// TestSharedPause: a pause stops replay time for every ticket and counts
// in Frozen once, with the holds that overlap it; Paused gives a channel
// that the resume closes.
func TestSharedPause(t *testing.T) {
	sh := NewShared(Speed{Mode: Fixed, Interval: 100 * ms})
	if _, ok := sh.Take(t0, 0, 0); !ok {
		t.Fatal("the first ticket is not due at once")
	}
	if sh.Paused() != nil {
		t.Fatal("Paused before a pause")
	}
	sh.Pause(at(10 * ms))
	sh.Pause(at(20 * ms)) // pausing a paused replay does nothing
	resumed := sh.Paused()
	if resumed == nil {
		t.Fatal("Paused gives no channel while paused")
	}
	sh.Hold(at(30*ms), at(50*ms)) // inside the pause: counted by the pause
	sh.Resume(at(60 * ms))
	sh.Resume(at(90 * ms)) // resuming a running replay does nothing
	select {
	case <-resumed:
	default:
		t.Fatal("the resume did not close the channel")
	}
	if got, want := sh.Frozen(), 50*ms; got != want {
		t.Errorf("Frozen = %s, want %s", got, want)
	}
	if due, _ := sh.Take(at(60*ms), 0, 0); !due.Equal(at(150 * ms)) {
		t.Errorf("next ticket due at +%s, want +150ms (100ms moved by the 50ms pause)", due.Sub(t0))
	}
}

// TestSharedReadsTakeNoLock: what every session asks for each message
// (Paused, Frozen, and Take at a speed that does not pace by count) is
// answered while the mutex is held elsewhere, and says what the last
// change under it set: a pause, its resume, a hold.
func TestSharedReadsTakeNoLock(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tk := NewShared(Speed{Mode: Fast})
	tk.Pause(t0)
	tk.Hold(t0.Add(-time.Second), t0) // a gate held a message for 1s before
	paused := tk.Paused()
	tk.mu.Lock() // another goroutine's change under way
	answered := make(chan struct{})
	var frozen time.Duration
	var due time.Time
	var ok bool
	go func() {
		defer close(answered)
		if tk.Paused() != paused {
			t.Errorf("Paused while held: not the pause's channel")
		}
		frozen = tk.Frozen()
		due, ok = tk.Take(t0.Add(time.Minute), 0, 0)
	}()
	select {
	case <-answered:
	case <-time.After(10 * time.Second): // a bound, not a measure: it waits on the mutex
		tk.mu.Unlock()
		<-answered
		t.Fatal("Paused, Frozen or Take waited for the mutex")
	}
	tk.mu.Unlock()
	if paused == nil || frozen != time.Second || !ok || !due.Equal(t0.Add(time.Minute)) {
		t.Errorf("paused %v, frozen %s, take %v %v; want a pause, 1s, due at once", paused != nil, frozen, due, ok)
	}
	tk.Resume(t0.Add(2 * time.Second))
	select {
	case <-paused:
	default:
		t.Error("the pause's channel is open after Resume")
	}
	if tk.Paused() != nil || tk.Frozen() != 3*time.Second {
		t.Errorf("after the resume: paused %v, frozen %s; want none, 3s", tk.Paused() != nil, tk.Frozen())
	}
	tk.SetSpeed(Speed{Mode: Rate, RPS: 10}, t0.Add(3*time.Second)) // by count: Take needs the mutex again
	if !tk.byCount.Load() {
		t.Error("a speed by count is not published")
	}
}
