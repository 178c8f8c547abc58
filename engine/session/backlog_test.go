package session

import (
	"testing"

	"github.com/replayctl/replayctl/tape"
)

// TestBacklogReusesItsMemory: a backlog that fills and empties in small
// runs (a session held by its in-flight limit, then let go) reuses its
// memory from the start; pop slices the head off, and append allocated
// a new array each time the tail met the end of the old one (485 more
// allocations a replay of 100,000 calls whose mailbox brought larger
// runs: BENCHMARKS.md, issue 24, tenth round).
func TestBacklogReusesItsMemory(t *testing.T) {
	s := newSession("s1", nil)
	items := make([]*Item, 5)
	for i := range items {
		items[i] = &Item{Rec: tape.Message{Dir: tape.C2S, Seq: int64(i)}}
	}
	cycle := func() {
		for range 100 {
			for _, it := range items {
				s.push(it)
			}
			for i := range items {
				if s.backlog[0] != items[i] {
					t.Fatalf("backlog head seq %d, want %d", s.backlog[0].Rec.Seq, i)
				}
				s.pop()
			}
		}
	}
	cycle() // the backlog's memory grows to its size
	if got := testing.AllocsPerRun(20, cycle); got != 0 {
		t.Errorf("%.1f allocations for 100 runs of 5 items through the backlog, want 0", got)
	}
	for range 3 { // a run longer than half its memory: it grows, in order
		s.push(items[0])
	}
	s.pushFront(items[1:3])
	for _, want := range []int64{1, 2, 0, 0, 0} {
		if s.backlog[0].Rec.Seq != want {
			t.Fatalf("backlog head seq %d, want %d", s.backlog[0].Rec.Seq, want)
		}
		s.pop()
	}
}
