package engine

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/replayctl/replayctl/scheduler"
)

// DefaultGCHeadroom is Config.GCHeadroom's default: 64 MiB.
const DefaultGCHeadroom = 64 << 20

// The collector's pace while paced replays run. A collection's mark
// phase takes the replay's goroutines for assists, and on one processor
// (a client pinned to a core) that held answers, and the calls waiting
// for them, for milliseconds: 2,000 calls at 10x over HTTP had a
// collection 30 ms in (the heap grows from 4 to 9 MB as the tape is read
// ahead and the report fills) and p99 tails of 20–26 ms in 2 of 3 runs
// (BENCHMARKS.md, issue 24, fourth round). GOGC's pace (a collection
// each time the heap doubles) is meant for a program whose live heap is
// large; a replay's is a few MB, so it collected every few MB of
// garbage. holdCollections spaces the collections by the headroom
// instead: GOGC is raised so that the next collection comes after
// headroom bytes more than the live heap, and set again after each
// collection for the heap it left (a finalizer tells of it, and validate
// asks every repaceEvery outcomes: the finalizer may run late). The memory
// held is at most the live heap plus headroom: GOGC's percentage is set
// for the live heap, stacks and globals together (see pace). A headroom
// smaller than GOGC's own share (at GOGC=100: the live heap, stacks and
// globals) keeps GOGC's pace. Fast
// replays are held too (holdFastCollections): there the marking was
// CPU, ≈ 14% of the client's instructions, rather than a held schedule.
type gcHolder struct {
	mu       sync.Mutex
	holds    int    // held replays running
	gen      int    // the hold's generation: a finalizer of an ended one does nothing
	percent  int    // GOGC as it was before the first hold
	headroom int64  // the largest asked since the first hold (it applies from the next collection)
	cycles   uint64 // the collections ended when pace last ran (see repace)
}

var gcHold gcHolder

// holdCollections spaces the collections by headroom bytes (see
// gcHold) while a replay at speed s runs, and returns what undoes it
// when the replay ends; the last replay to end sets GOGC back. Nothing
// for a speed that is not paced, a headroom of 0, or GOGC off.
func holdCollections(s scheduler.Speed, headroom int64) func() {
	if !s.Paced() {
		return func() {}
	}
	return gcHold.hold(headroom)
}

// holdFastCollections is holdCollections for a replay at fast speed,
// of one session or of many (a load): there the collector's own pace
// was CPU rather than a held schedule. For a load of 50 sessions it took
// ≈ 14% of the client's instructions (BENCHMARKS.md, issue 24, fourth
// round: the collector's share); for one session of 100,000 requests
// against the mock, 14% (761 M instructions of 5.55 G a replay), 7%
// held (351 M of 5.13 G: 7.5% fewer in all; BENCHMARKS.md, sixth
// round: the overlap of the stages, and the collector).
func holdFastCollections(headroom int64) func() {
	return gcHold.hold(headroom)
}

// hold starts a hold of headroom bytes, or joins the running one, and
// returns what ends it. Nothing for a headroom of 0 or GOGC off.
func (h *gcHolder) hold(headroom int64) func() {
	if headroom <= 0 {
		return func() {}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.holds == 0 {
		h.percent = gogc() // read, not set and set back: GOGC=off is never turned on
		if h.percent < 0 { // off: nothing to space
			return func() {}
		}
		h.gen++
		h.headroom = headroom
		h.pace()
		h.arm(h.gen)
	}
	h.holds++
	h.headroom = max(h.headroom, headroom)
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.holds--; h.holds == 0 {
			h.gen++
			debug.SetGCPercent(h.percent)
		}
	}
}

// pace sets GOGC for the next collection to come headroom bytes after
// the live heap the last one left, or by the user's GOGC if that is
// later. h.mu is held.
//
// The collector's goal is live + (live + stacks + globals) × GOGC/100,
// and never below its minimum heap, 4 MiB × GOGC/100: GOGC is the
// headroom over all three (a live heap of 8 MB paced by the live heap
// alone had a goal of 113 MB for a headroom of 64 MB, measured while
// replayctl still linked gopacket's ≈ 5 MB of tables as globals; it now
// has ≈ 0.2 MB), over at least 4 MiB.
func (h *gcHolder) pace() {
	live, roots, cycles := liveHeap()
	h.cycles = cycles
	p := h.percent
	if live > 0 {
		scanned := max(int64(live+roots), minHeap)
		p = max(p, int(min(h.headroom*100/scanned, math.MaxInt32)))
	}
	debug.SetGCPercent(p)
}

// minHeap is the runtime's smallest heap goal at GOGC=100 (its
// defaultHeapMinimum; the goal's floor is it × GOGC/100).
const minHeap = 4 << 20

// arm has the next collection call pace again: a finalizer runs after
// the collection that found its object unreachable, once the object's
// span has been swept, which may be long after (see repace).
func (h *gcHolder) arm(gen int) {
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.holds > 0 && h.gen == gen {
			h.pace()
			h.arm(gen)
		}
	})
}

// gcSentinel is an object only a finalizer refers to: it is found
// unreachable by the next collection, and the finalizer run once its
// span is swept. Not of size 0 (those are
// not allocated) nor small enough for the tiny allocator (whose objects
// share a block).
type gcSentinel struct {
	_ [32]byte
	p *int
}

// liveHeap is the bytes the last collection left live, and the roots
// GOGC's percentage applies to besides: the stacks it scanned and the
// globals; and how many collections have ended.
func liveHeap() (live, roots, cycles uint64) {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/stack:bytes"}, {Name: "/gc/scan/globals:bytes"}, {Name: gcCyclesMetric}}
	metrics.Read(s)
	for i, x := range s {
		if x.Value.Kind() != metrics.KindUint64 {
			continue
		}
		switch i {
		case 0:
			live = x.Value.Uint64()
		case 3:
			cycles = x.Value.Uint64()
		default:
			roots += x.Value.Uint64()
		}
	}
	return live, roots, cycles
}

const gcCyclesMetric = "/gc/cycles/total:gc-cycles"

// repaceEvery is how many judged outcomes validate lets pass between two
// calls of repace: a metrics read (well under a microsecond) per 1,024.
const repaceEvery = 1024

// repace paces again, while a hold runs, when a collection has ended
// since pace last ran: what the finalizer does, without waiting for it.
// The finalizer runs only once the sentinel's span has been swept, and
// after a collection paced for a small live heap (the first of a replay:
// GOGC 1,600% for the 4 MiB floor) the next is due so far off that the
// allocations sweep little, and the background sweeper, which yields to
// every runnable goroutine, may not get the processor while a fast
// replay keeps one busy: a replay on one core (GOMAXPROCS=1 under chrt,
// where nothing preempts) ran to its end with the heap at 259 MB and no
// collection after its first (BENCHMARKS.md, issue 24, tenth round).
// validate calls it (repaceEvery).
func (h *gcHolder) repace() {
	s := []metrics.Sample{{Name: gcCyclesMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	n := s[0].Value.Uint64()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.holds > 0 && n != h.cycles {
		h.pace()
	}
}

// gogc is the collector's GOGC percentage as set now (negative: off).
func gogc() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 100
	}
	if p := s[0].Value.Uint64(); p <= math.MaxInt32 {
		return int(p)
	}
	return -1
}
