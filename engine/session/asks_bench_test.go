package session

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/transport"
)

// BenchmarkHeldAsks: a session held for an answer (the order rule) while
// the live server's roots/list asks wait for the tape (liveAsks: waiting)
// or for the client's recorded answer (asked: kept), and the tape reader
// fills the backlog with backlog more messages (pings and their recorded
// answers, none of which settles an ask). One op is the whole fill.
func BenchmarkHeldAsks(b *testing.B) {
	for _, kind := range []string{"waiting", "kept"} {
		for _, asks := range []int{1, 10, 100} {
			for _, n := range []int{1000, 4000} {
				b.Run(fmt.Sprintf("%s/asks=%d/backlog=%d", kind, asks, n), func(b *testing.B) {
					fill := heldWithAsks(b, kind == "kept", asks, n)
					b.ReportAllocs()
					for b.Loop() {
						fill()
					}
				})
			}
		}
	}
}

// TestHeldAsksNotRecheckedPerPush: while a session is held with live
// server requests waiting for the tape, a push that cannot settle one of
// them (a client request, a recorded answer) does not ask them all again
// against the whole backlog. Each recheck re-queues the waiting asks
// (one allocation at least), so the allocations of a fill count the
// rechecks: 5,000 for 1,000 pushes with 10 asks waiting before (one
// recheck per push, each scanning the backlog per ask: quadratic; 4,000
// pushes took seconds), a few per fill now. (The asks kept for the
// client's answer, session.asked, are rechecked without allocating:
// BenchmarkHeldAsks/kept shows their time.)
func TestHeldAsksNotRecheckedPerPush(t *testing.T) {
	fill := heldWithAsks(t, false, 10, 1000)
	// The backlog's own growth (append's doublings) is reused from the
	// second fill on; a few more for the first recheck.
	if allocs := testing.AllocsPerRun(3, fill); allocs > 20 {
		t.Errorf("%.0f allocations to fill a held session's backlog with 1000 messages, want at most 20 (the waiting asks are rechecked only when a message may settle one)", allocs)
	}
}

// heldWithAsks returns a fill of a held session's backlog with n
// messages, while asks roots/list requests of the live server wait for
// the tape (liveAsks) or, kept, for the client's answer (asked); each
// fill starts a new hold.
func heldWithAsks(tb testing.TB, kept bool, asks, n int) (fill func()) {
	lines := []string{}
	for i := range n / 2 {
		id := strconv.Itoa(100 + i)
		lines = append(lines, "c2s", `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`, "s2c", `{"jsonrpc":"2.0","id":`+id+`,"result":{}}`)
	}
	its := msgs(tb, lines...)
	c := &scripted{in: make(chan transport.Incoming, 1)}
	e := env(tb, &dialer{c: c}, fast)
	e.AskWait = time.Hour
	x := New(e, &recSink{}, "s1", time.Now())
	tb.Cleanup(func() { x.rx.tapeTimer.Stop() })
	ss := x.ss
	ss.setConn(c)
	ss.waitFor = &pend{req: msgs(tb, "c2s", listReq)[0], sess: ss} // never answered: the session is held
	reqs := make([]jsonrpc.Message, asks)
	for i := range reqs {
		reqs[i], _ = jsonrpc.Parse([]byte(`{"jsonrpc":"2.0","id":"live-` + strconv.Itoa(i) + `","method":"roots/list"}`))
	}
	ctx := context.Background()
	return func() {
		ss.backlog = ss.backlogMem[:0]
		clear(ss.asksHeld)
		ss.liveAsks = ss.liveAsks[:0]
		clear(ss.asked)
		ss.asksChecked = false // a new hold: the first push asks them
		until := time.Now().Add(time.Hour)
		for _, r := range reqs {
			if kept {
				ss.asked["roots/list"] = append(ss.asked["roots/list"], r)
			} else {
				ss.liveAsks = append(ss.liveAsks, liveAsk{rpc: r, until: until})
			}
		}
		for _, it := range its {
			if err := x.take(ctx, ss, it); err != nil {
				tb.Fatal(err)
			}
		}
		if len(ss.backlog) != n || len(ss.liveAsks)+len(ss.asked["roots/list"]) != asks {
			tb.Fatalf("backlog %d, asks waiting %d and kept %d: want %d and %d asks", len(ss.backlog), len(ss.liveAsks), len(ss.asked["roots/list"]), n, asks)
		}
	}
}
