package session

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/tape"
)

// TestActorReplaysAgainstMock: one actor replays the example session
// against the mock: every client message is sent and reported once,
// every request with its live answer next to the recorded one, every item
// it took is released, and it tells the sink it has ended.
func TestActorReplaysAgainstMock(t *testing.T) {
	its := items(t, quickstart)
	s, err := replay(t, env(t, mockOf(quickstart), fast), its)
	if err != nil {
		t.Fatal(err)
	}
	got := s.bySeq()
	for _, it := range its {
		o := got[it.Rec.Seq]
		switch {
		case it.Rec.Dir == tape.C2S && isRequest(it):
			if o == nil || o.Actual == nil || o.Expected == nil || o.Err != nil {
				t.Errorf("seq %d: outcome %+v, want its live and recorded answer", it.Rec.Seq, o)
			}
		case it.Rec.Dir == tape.C2S:
			if o == nil || o.Sent.IsZero() {
				t.Errorf("seq %d: outcome %+v, want it sent", it.Rec.Seq, o)
			}
		}
	}
	if s.released != len(its) {
		t.Errorf("released %d items, want %d", s.released, len(its))
	}
	if s.counts[Connected] != 1 || s.counts[Disconnected] != 1 {
		t.Errorf("counts %v, want one connection, ended", s.counts)
	}
	if len(s.sent) != 9 {
		t.Errorf("Sent for %d client messages (%v), want 9", len(s.sent), s.sent)
	}
}

// TestActorPacesItself: at realtime, on synctest's fake clock, the actor
// sends each client message at its recorded distance from the recorded
// handshake answer, counted from the live one, and the events tell due,
// sent and answered in that order for every request.
func TestActorPacesItself(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := env(t, mockOf(quickstart), scheduler.Speed{Mode: scheduler.Realtime})
		var evs []event.Event
		e.Events = event.New(time.Now(), []event.Consumer{{Name: "test", Handle: func(b []event.Event) error {
			evs = append(evs, b...)
			return nil
		}}})
		start := time.Now()
		s, err := replay(t, e, items(t, quickstart))
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Events.Close(); err != nil {
			t.Fatal(err)
		}
		want := map[int64]time.Duration{0: 0, 2: 900, 3: 147900, 5: 417900, 7: 697900, 10: 977900, 12: 1247900, 14: 1497900, 16: 1797900}
		for seq, us := range want {
			o := s.bySeq()[seq]
			if o == nil {
				t.Fatalf("seq %d: no outcome", seq)
			}
			if got := o.Sent.Sub(start); got != us*time.Microsecond {
				t.Errorf("seq %d sent at +%s, want +%s", seq, got, us*time.Microsecond)
			}
		}
		// (A message may be held first: it waits for the answer before it,
		// as the recorded client did.)
		order := map[int64][]event.Type{}
		for _, ev := range evs {
			if ev.Seq >= 0 && ev.Type != event.Held {
				order[ev.Seq] = append(order[ev.Seq], ev.Type)
			}
		}
		for _, seq := range []int64{3, 5, 7, 10, 12, 14, 16} {
			if got := order[seq]; len(got) != 3 || got[0] != event.Due || got[1] != event.Sent || got[2] != event.Answered {
				t.Errorf("seq %d: events %v, want due, sent, answered", seq, got)
			}
		}
	})
}
