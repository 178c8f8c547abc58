package ui

import (
	"runtime"
	"testing"

	"github.com/replayctl/replayctl/engine/event"
)

// A viewer given the run's verdict has the run's last events: Finish
// seals them before it sets the verdict, and snap reads the verdict
// before the frames, so the feed sends the verdict after them. Each
// trial races a reader, as a viewer woken by the clock, against Finish
// (on two processors or more: on one the race seldom shows).
func TestVerdictAfterTheLastEvents(t *testing.T) {
	const trials = 2000
	early := 0
	for range trials {
		s := New()
		s.j.add([]event.Event{{Type: event.RunEnded, Seq: -1}})
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.Finish(nil)
		}()
		for n := 1; ; n++ {
			v := s.snap(0)
			if v.result == nil { // Finish has not set it yet
				if n%1024 == 0 {
					runtime.Gosched() // on one processor, let it
				}
				continue
			}
			if len(v.frames) == 0 {
				early++
			}
			break
		}
		<-done
	}
	if early > 0 {
		t.Errorf("%d of %d viewers were given the run's verdict before its last events, want none", early, trials)
	}
}
