package engine

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/replayctl/replayctl/internal/testtape/calls"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/tape"
)

// callsTape writes a tape of one session: the handshake, then n
// tools/call recorded gap apart from 10 ms on, each answered 0.1ms later.
func callsTape(t *testing.T, n int, gap time.Duration) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "calls.jsonl")
	err := calls.Tape{
		N: n, Gap: gap, Start: 10 * time.Millisecond, Transport: "http", Server: "t",
		Call: func(i int) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"%d"}}}`, i, i)
		},
		Answer: strconv.Itoa,
	}.Write(path)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// TestGCDuringPacedSchedule counts the collections of a paced replay of
// 3,000 calls with the collector's default pacing (GOGC=100), up to the
// last answer judged: the one before the schedule starts, and none while
// it runs — its garbage stays within Config.GCHeadroom. A collection while the schedule ran held
// answers, and the calls waiting for them, for up to 20 ms in 2 of 3
// runs of 2,000 calls at 10x (BENCHMARKS.md, issue 24, fourth round). At
// fast there is no forced one, and the hold spaces the rest: none
// (sixth round: a single fast session held too; one or more before).
func TestGCDuringPacedSchedule(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	path := callsTape(t, 3000, 2*time.Millisecond)
	for _, tc := range []struct {
		speed scheduler.Speed
		want  uint32 // collections up to the last answer
	}{
		{scheduler.Speed{Mode: scheduler.Scaled, Factor: 10}, 1}, // before the schedule
		{scheduler.Speed{Mode: scheduler.Rate, RPS: 5000}, 1},
		{scheduler.Speed{Mode: scheduler.Fast}, 0},
	} {
		t.Run(tc.speed.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e, err := New(withMock(Config{Tape: path, Speed: tc.speed}))
				if err != nil {
					t.Fatal(err)
				}
				runtime.GC() // none of the set-up's under way
				before := numGC()
				var atLast uint32 // when the last answer was judged
				e.OnResult(func(r report.Result) { atLast = numGC() })
				rep, err := e.Run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if !rep.Summary.Passed || rep.Summary.Received != 3001 {
					t.Fatalf("passed %v, %d answers; want a pass with 3001", rep.Summary.Passed, rep.Summary.Received)
				}
				// Counted to the last answer: setting GOGC back as the
				// replay ends may start one more, after the schedule.
				if got := atLast - before; got != tc.want {
					t.Errorf("%d collections in a %s replay of 3,000 calls, want %d", got, tc.speed, tc.want)
				}
			})
		})
	}
}

// TestHoldCollectionsRestores: GOGC is the user's again once the last of
// the paced replays holding it ends, and is left alone when it is off,
// at a speed that is not paced, or with no headroom.
func TestHoldCollectionsRestores(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	runtime.GC() // a live heap to pace by: run alone, no collection had run yet and GOGC stayed 150
	tenX := scheduler.Speed{Mode: scheduler.Scaled, Factor: 10}
	a := holdCollections(tenX, DefaultGCHeadroom)
	b := holdCollections(scheduler.Speed{Mode: scheduler.Rate, RPS: 100}, 1<<20)
	a()
	if got := debug.SetGCPercent(150); got == 150 {
		t.Errorf("GOGC set back to 150 while a paced replay still runs")
	}
	b()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("GOGC %d after the replays, want the user's 150", got)
	}
	for _, tc := range []struct {
		name     string
		percent  int
		speed    scheduler.Speed
		headroom int64
	}{
		{"off", -1, tenX, DefaultGCHeadroom},
		{"fast", 150, scheduler.Speed{Mode: scheduler.Fast}, DefaultGCHeadroom},
		{"no headroom", 150, tenX, 0},
	} {
		debug.SetGCPercent(tc.percent)
		undo := holdCollections(tc.speed, tc.headroom)
		if got := debug.SetGCPercent(tc.percent); got != tc.percent {
			t.Errorf("%s: GOGC %d while the replay runs, want %d", tc.name, got, tc.percent)
		}
		undo()
	}
}

// TestGOGCRead: gogc reads the percentage as set, off included, without
// setting it.
func TestGOGCRead(t *testing.T) {
	was := debug.SetGCPercent(250)
	defer debug.SetGCPercent(was)
	if got := gogc(); got != 250 {
		t.Errorf("gogc() = %d after SetGCPercent(250)", got)
	}
	debug.SetGCPercent(-1)
	if got := gogc(); got >= 0 {
		t.Errorf("gogc() = %d with the collector off, want negative", got)
	}
}

// withStackRoots runs f while a goroutine holds 8 MiB of pointers on its
// stack: the collector's goal counts the stacks (and the globals) in
// GOGC's share, as replayctl's ≈ 5 MB of gopacket's tables are, and here
// they outweigh the test's live heap. On a stack of this test's alone,
// not in 8 MiB of globals that every collection of the package's test
// binary scanned (BenchmarkPipeline's included: ≈ 14 M instructions a
// collection; BENCHMARKS.md, issue 24, eighth round).
func withStackRoots(f func()) {
	ready, done, held := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(held)
		holdStackRoots(ready, done)
	}()
	<-ready
	defer func() { close(done); <-held }()
	f()
}

// stackRoots is the size of what holdStackRoots holds, in frames of
// frameRoots (a larger local is put on the heap).
const (
	stackRoots = 8 << 20
	frameRoots = 64 << 10
)

// holdStackRoots holds stackRoots bytes of pointers in the frames of its
// calls until done is closed. Pointers: the collector counts what it
// scans of a stack, its pointer maps say what that is.
func holdStackRoots(ready, done chan struct{}) { holdFrames(stackRoots/frameRoots, ready, done) }

// holdFrames holds frameRoots bytes of pointers in its frame and in each
// of n-1 more calls of its own.
//
//go:noinline
func holdFrames(n int, ready, done chan struct{}) {
	var roots [frameRoots / 8]*byte
	if n > 1 {
		holdFrames(n-1, ready, done)
	} else {
		close(ready)
		<-done
	}
	if roots[len(roots)-1] != nil { // read after the wait: live until then
		panic("stack roots written")
	}
}

// gcGoal reads the heap goal and what it is made of, as the collector
// has them now.
func gcGoal() (goal, live, roots uint64) {
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}, {Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/globals:bytes"}, {Name: "/gc/scan/stack:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64(), s[2].Value.Uint64() + s[3].Value.Uint64()
}

// TestGCHoldGoalIsLiveHeapPlusHeadroom: while held, the next collection
// is due at the live heap plus the headroom, globals and stacks
// notwithstanding (GOGC's percentage applies to them too), after the
// hold starts and after each collection; a headroom smaller than GOGC's
// own share of the heap and roots keeps GOGC's pace. Within 1% of the
// heap and roots (GOGC is a whole percentage).
func TestGCHoldGoalIsLiveHeapPlusHeadroom(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	withStackRoots(func() { checkHoldGoal(t) })
}

func checkHoldGoal(t *testing.T) {
	const headroom = 64 << 20
	check := func(when string, want func(live, roots uint64) uint64) {
		t.Helper()
		goal, live, roots := gcGoal()
		if roots < stackRoots {
			t.Fatalf("%s: globals and stacks %d bytes, want at least the stack roots' %d", when, roots, stackRoots)
		}
		w := want(live, roots)
		slack := (live+roots)/100 + 1<<10
		if goal > w+slack || goal+slack < w {
			t.Errorf("%s: heap goal %.1f MiB, want %.1f MiB ± %.1f MiB (live %.1f MiB, globals and stacks %.1f MiB)",
				when, mib(goal), mib(w), mib(slack), mib(live), mib(roots))
		}
	}
	plusHeadroom := func(live, _ uint64) uint64 { return live + headroom }
	var h gcHolder
	runtime.GC()
	release := h.hold(headroom)
	check("held", plusHeadroom)
	runtime.GC()
	h.mu.Lock()
	h.pace() // what the finalizer does after the collection
	h.mu.Unlock()
	check("held, after a collection", plusHeadroom)
	release()

	runtime.GC()
	release = h.hold(1 << 20) // smaller than GOGC=100's share: the live heap and roots
	check("a headroom of 1 MiB", func(live, roots uint64) uint64 { return live + live + roots })
	release()
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// TestRepaceWithoutFinalizer: a held replay's next collection is due at
// the live heap plus the headroom after a collection that grew the live
// heap, once repace has run, whether or not the finalizer has (here it
// never does: the hold's generation moved on). Without repace the goal
// stayed where the hold's start put it, for the smaller heap then.
func TestRepaceWithoutFinalizer(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	withStackRoots(func() {
		const headroom = 64 << 20
		var h gcHolder
		runtime.GC()
		release := h.hold(headroom)
		defer release()
		h.mu.Lock()
		h.gen++ // the finalizer armed by hold does nothing now
		h.mu.Unlock()
		grown := make([][]byte, 0, 64)
		for range 64 { // 32 MiB more live heap
			grown = append(grown, make([]byte, 512<<10))
		}
		runtime.GC()
		h.repace()
		goal, live, roots := gcGoal()
		want, slack := live+headroom, (live+roots)/100+1<<10
		if goal > want+slack || goal+slack < want {
			t.Errorf("heap goal %.1f MiB after a collection and repace, want %.1f MiB ± %.1f MiB (live %.1f MiB)",
				mib(goal), mib(want), mib(slack), mib(live))
		}
		runtime.KeepAlive(grown)
	})
}

// gogcAtOpen is a tape whose Open notes GOGC as it is then (the engine
// opens it more than once, on more than one goroutine).
type gogcAtOpen struct {
	tape.Source
	mu sync.Mutex // guards at
	at []int
}

func (s *gogcAtOpen) Open() (io.ReadSeekCloser, error) {
	s.mu.Lock()
	s.at = append(s.at, gogc())
	s.mu.Unlock()
	return s.Source.Open()
}

func (s *gogcAtOpen) first() (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.at) == 0 {
		return 0, false
	}
	return s.at[0], true
}

// TestHoldBeforeTapeRead: the collections are held from before the tape
// is opened, at every speed. The mock reads the tape ahead on a
// goroutine of its own from the open on; opened at the user's GOGC
// (a goal of 4 MiB over a live heap of 0.6 MiB), a read that ran ahead
// while Run waited for a processor started a collection before the hold
// was set: one more before the schedule at 10x, one during a fast
// replay (TestGCDuringPacedSchedule, 6 of 50 runs at load 30).
func TestHoldBeforeTapeRead(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	path := callsTape(t, 10, 2*time.Millisecond)
	for _, speed := range []scheduler.Speed{
		{Mode: scheduler.Scaled, Factor: 10},
		{Mode: scheduler.Fast},
	} {
		t.Run(speed.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := &gogcAtOpen{Source: tape.File(path)}
				e, err := New(withMock(Config{Source: src, Speed: speed}))
				if err != nil {
					t.Fatal(err)
				}
				runtime.GC() // a live heap of the test's alone: the hold raises GOGC
				if _, err := e.Run(context.Background()); err != nil {
					t.Fatal(err)
				}
				at, ok := src.first()
				if !ok {
					t.Fatal("the tape was never opened")
				}
				if at <= 100 {
					t.Errorf("GOGC %d when the tape was first opened, want it raised by the hold (> 100)", at)
				}
			})
		})
	}
}
