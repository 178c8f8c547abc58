package engine

// A session's cost must not grow with the number of sessions: counted
// work per session (or per message) is the same at 1,000 and 4,000
// virtual sessions.

import (
	"strconv"
	"testing"
	"time"

	"github.com/replayctl/replayctl/engine/session"
	"github.com/replayctl/replayctl/tape"
)

// TestFanoutWorkPerMessageFlat: what fanout's trim looks at per message
// it gives out stays the same from 1,000 to 4,000 copies (it looked at
// every copy for every message: O(sessions²) for a run).
func TestFanoutWorkPerMessageFlat(t *testing.T) {
	path := writeTape(t, t.TempDir(), 8, 1000, nil)
	perMessage := func(n int) float64 {
		r, err := tape.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		f := newFanout(r, n, 0)
		msgs := 0
		for {
			if _, err := f.Next(); err != nil {
				break
			}
			msgs++
		}
		if want := n * 19; msgs != want {
			t.Fatalf("%d copies: got %d messages, want %d", n, msgs, want)
		}
		return float64(f.looked) / float64(msgs)
	}
	small, large := perMessage(1000), perMessage(4000)
	if large > 2*small+2 {
		t.Errorf("trim looked at %.1f per message at 4,000 copies, %.1f at 1,000; want the same (work per message that grows with the copies makes a run O(sessions²))", large, small)
	}
}

// TestRegistryRemoveWorkFlat: forgetting an ended session looks at the
// same number of members at 1,000 and 4,000 sessions (it searched the
// list of every session started: O(sessions²) when they all end, as
// they do at once on Ctrl-C).
func TestRegistryRemoveWorkFlat(t *testing.T) {
	perSession := func(n int) float64 {
		var r registry
		env := &session.Env{}
		actors := make([]*session.Actor, n)
		for i := range actors {
			actors[i] = session.New(env, nil, "s"+strconv.Itoa(i), time.Time{})
			r.add(&member{Actor: actors[i], routed: -1})
		}
		for _, a := range actors[n/2:] { // the later half ends first, as under Ctrl-C in any order
			r.remove(a)
		}
		for _, a := range actors[:n/2] {
			r.remove(a)
		}
		if left := len(r.all()); left != 0 {
			t.Fatalf("%d sessions: %d left after every one ended", n, left)
		}
		return float64(r.looked) / float64(n)
	}
	small, large := perSession(1000), perSession(4000)
	if large > 2*small+2 {
		t.Errorf("remove looked at %.1f members per session at 4,000 sessions, %.1f at 1,000; want the same", large, small)
	}
}
