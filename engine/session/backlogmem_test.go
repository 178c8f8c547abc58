package session

import (
	"runtime"
	"testing"
	"weak"

	"github.com/replayctl/replayctl/tape"
)

// Items that left the backlog (removeAt, for takeAnswer; pushFront, on a
// reconnect; pop) are not kept alive by the session: backlogMem must not
// hold an array the backlog left, nor a slot it freed.
func TestBacklogKeepsNoRemovedItemAlive(t *testing.T) {
	for _, tc := range []struct {
		name string
		move func(s *session)
	}{
		{"removeAt", func(s *session) { s.removeAt(1) }},
		{"pushFront", func(s *session) {
			s.pushFront([]*Item{{Rec: tape.Message{Dir: tape.C2S, Seq: 100}}})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession("s1", nil)
			var refs []weak.Pointer[Item]
			for i := range 4 {
				it := &Item{Rec: tape.Message{Dir: tape.C2S, Seq: int64(i)}}
				refs = append(refs, weak.Make(it))
				s.push(it)
			}
			tc.move(s)
			for len(s.backlog) > 0 {
				s.pop()
			}
			runtime.GC()
			runtime.GC()
			alive := 0
			for _, r := range refs {
				if r.Value() != nil {
					alive++
				}
			}
			if alive > 0 {
				t.Errorf("%d of 4 items no longer in the backlog are still reachable (backlogMem: %v)", alive, s.backlogMem[:cap(s.backlogMem)])
			}
			runtime.KeepAlive(s)
		})
	}
}
