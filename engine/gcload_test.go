package engine

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
)

// TestGCDuringLoadReplay counts the collections of a fast replay
// against the in-process mock, a load of 20,000 calls (10 virtual
// sessions of 2,000) and one session of 40,000 calls (at 20,000 its
// replay, with the mock's index no longer copied at the end, made too
// little garbage to tell one time in two), with the
// collector's default pace (GOGC=100), with and without the hold
// (Config.GCHeadroom's 64 MiB, and -1: GOGC's own pace). A replay's live
// heap is a few MB, so GOGC collected every few MB of garbage: ≈ 14% of
// a load replay's instructions (BENCHMARKS.md, issue 24, fourth round:
// the collector's share), 15% of one session's of 100,000 requests
// (sixth round). Held, a collection comes after a headroom's garbage:
// want no more than the replay's allocated bytes ÷ 64 MiB, plus one (the
// hold starts from the heap the last collection left), where GOGC's own
// pace runs more; and GOGC the user's again after the replay.
func TestGCDuringLoadReplay(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, tc := range []struct {
		name            string
		calls, sessions int
	}{
		{"10 sessions", 2000, 10},
		{"one session", 40000, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := callsTape(t, tc.calls, time.Millisecond)
			count := func(headroom int64) (cycles, allocated uint64) {
				t.Helper()
				e, err := New(withMock(Config{Tape: path, Speed: scheduler.Speed{Mode: scheduler.Fast}, Sessions: tc.sessions, GCHeadroom: headroom}))
				if err != nil {
					t.Fatal(err)
				}
				runtime.GC() // none of the set-up's under way
				c0, a0 := gcCycles(), heapAllocs()
				var c1, a1 uint64 // when the last answer was judged
				e.OnResult(func(report.Result) { c1, a1 = gcCycles(), heapAllocs() })
				rep, err := e.Run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if want := int64(tc.sessions * (tc.calls + 1)); !rep.Summary.Passed || rep.Summary.Received != want {
					t.Fatalf("passed %v, %d answers; want a pass with %d", rep.Summary.Passed, rep.Summary.Received, want)
				}
				if got := debug.SetGCPercent(100); got != 100 {
					t.Errorf("GOGC %d after the replay, want the user's 100", got)
				}
				// Counted to the last answer: setting GOGC back as the replay
				// ends may start one more, after the replay's sends.
				return c1 - c0, a1 - a0
			}
			own, ownBytes := count(-1)
			held, heldBytes := count(DefaultGCHeadroom)
			t.Logf("collections in a fast replay of %d × %d calls: %d at GOGC's own pace (%d MB allocated), %d held (%d MB)", tc.sessions, tc.calls, own, ownBytes>>20, held, heldBytes>>20)
			if most := ownBytes/DefaultGCHeadroom + 1; own <= most {
				t.Fatalf("%d collections at GOGC's own pace, no more than the %d a hold allows: the test's replay makes too little garbage to tell", own, most)
			}
			if most := heldBytes/DefaultGCHeadroom + 1; held > most {
				t.Errorf("%d collections with the hold while %d MB were allocated, want %d or fewer (one per %d MiB, plus one)", held, heldBytes>>20, most, DefaultGCHeadroom>>20)
			}
		})
	}
}

// gcCycles is the collections run so far.
func gcCycles() uint64 { return readUint64("/gc/cycles/total:gc-cycles") }

// heapAllocs is the bytes allocated on the heap so far.
func heapAllocs() uint64 { return readUint64("/gc/heap/allocs:bytes") }

func readUint64(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
