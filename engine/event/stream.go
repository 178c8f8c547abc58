package event

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// Default buffer sizes, in events.
const (
	DefaultBuffer     = 1 << 14 // a lossless consumer's
	DefaultLiveBuffer = 1 << 10 // a live consumer's
)

// FlushEvery is the longest an event waits before its consumer is handed
// it. A consumer is woken at once when an eighth of its buffer (at most
// maxWakeAt events) is waiting, else at the next flush: one wake-up per
// batch, not per event.
const FlushEvery = 50 * time.Millisecond

const maxWakeAt = 256

// handleChunk is the most events Handle is given at a time; the
// consumer's goroutine yields the processor (runtime.Gosched) between
// two chunks, unless it is more than a batch (wakeAt) behind. A batch
// of maxWakeAt events takes the report's collector 0.1–0.3 ms: on one
// processor a session spinning for its due time (paced 0.2 ms apart at
// 10x) waited for all of it, and the message due then went that late,
// once per flush (BENCHMARKS.md, issue 24, eighth round). A chunk is
// ~30 µs of it.
const handleChunk = 32

// firstRing is how many events a consumer's ring holds at first; it
// doubles when full, up to the consumer's Buffer. A replay whose
// consumers keep up never allocates the rest: at DefaultBuffer, 16,384
// events of ~230 bytes each would be 3.8 MB per consumer per replay.
const firstRing = 64

// Consumer is one reader of the stream.
type Consumer struct {
	// Name says who it is in warnings, e.g. "--out json=events.jsonl".
	Name string
	// Handle is called with each batch of events, in order, from the
	// consumer's own goroutine; the batch is reused after it returns. An
	// error ends the consumer (see the package doc). Stream.Close waits
	// for it to return, a live consumer's too.
	Handle func(batch []Event) error
	// Live: drop the oldest event when the buffer is full (a viewer);
	// else wait for room (lossless).
	Live bool
	// Buffer is how many events it may be behind (a lossless consumer:
	// counting those its Handle is at); 0: DefaultBuffer, or
	// DefaultLiveBuffer for a live consumer.
	Buffer int
	// Types, when not empty, are the only types of event it is given;
	// the others pass it by (neither delivered nor lost).
	Types []Type
	// Kept: a lossless consumer that Abandon does not touch: the replay
	// waits for room even after an interrupt. For an in-memory consumer
	// that is never slow and must see everything, as the report's own
	// collector.
	Kept bool
}

// Stat is what became of one consumer's events.
type Stat struct {
	Name      string
	Live      bool
	Delivered int64 // events handed to Handle
	// Lost: events dropped (a live consumer's oldest; a lossless
	// consumer's after the stream was abandoned, or after it failed).
	Lost int64
	// Stalls: emits that waited for room in a lossless consumer's buffer;
	// Stalled: how long they waited in all.
	Stalls  int64
	Stalled time.Duration
	Err     error // why Handle stopped, if it did
}

// Option sets up a Stream.
type Option func(*Stream)

// WithBehind calls f the first time each lossless consumer's buffer is
// full (the replay waits for it from then on), from the emitting
// goroutine; f must not block.
func WithBehind(f func(consumer string)) Option { return func(s *Stream) { s.behind = f } }

// Stream fans events out to its consumers. Its methods are safe for
// concurrent use; a nil *Stream takes every event and does nothing.
type Stream struct {
	start  time.Time
	queues []*queue
	behind func(string)
	g      errgroup.Group
	close  sync.Once
	err    error // Close's, set once
	// wanted is the union of the consumers' Types, or nil when one of
	// them takes every type (all): see Wants. Set by New.
	all    bool
	wanted []Type
}

// New starts a stream whose events count time from start, and one
// goroutine per consumer; Close ends them.
func New(start time.Time, consumers []Consumer, opts ...Option) *Stream {
	s := &Stream{start: start}
	for _, o := range opts {
		o(s)
	}
	for _, c := range consumers {
		n := c.Buffer
		if n <= 0 {
			n = DefaultBuffer
			if c.Live {
				n = DefaultLiveBuffer
			}
		}
		q := &queue{c: c, size: n, ring: make([]Event, min(n, firstRing)), wake: make(chan struct{}, 1), behind: s.behind,
			wakeAt: min(max(n/8, 1), maxWakeAt)}
		q.cond = sync.NewCond(&q.mu)
		s.queues = append(s.queues, q)
		s.g.Go(q.run)
		if len(c.Types) == 0 {
			s.all = true
		}
		for _, t := range c.Types {
			if !slices.Contains(s.wanted, t) {
				s.wanted = append(s.wanted, t)
			}
		}
	}
	if s.all {
		s.wanted = nil
	}
	return s
}

// Wants reports whether any consumer is given events of type t: an
// emitter may leave out an event no one reads (and the clock read and
// the building that go with it). A nil *Stream wants none.
func (s *Stream) Wants(t Type) bool {
	if s == nil {
		return false
	}
	return s.all || slices.Contains(s.wanted, t)
}

// Start is the time events count from.
func (s *Stream) Start() time.Time { return s.start }

// Emit stamps e with at (TUS) and gives it to every consumer. It returns
// at once, unless a lossless consumer's buffer is full: then it waits for
// room (see the package doc).
func (s *Stream) Emit(at time.Time, e Event) {
	if s == nil {
		return
	}
	e.TUS = Stamp(s.start, at)
	for _, q := range s.queues {
		q.put(&e)
	}
}

// EmitAll stamps each of es with at and gives them, in order, to every
// consumer, as an Emit of each would, taking each consumer's lock once
// for all of them rather than once an event (validate emits the verdicts
// on one receive's outcomes so). It may wait as Emit does. es is read
// only: the caller may reuse it once EmitAll returns.
func (s *Stream) EmitAll(at time.Time, es []Event) {
	if s == nil || len(es) == 0 {
		return
	}
	tus := Stamp(s.start, at)
	for i := range es {
		es[i].TUS = tus
	}
	for _, q := range s.queues {
		q.putAll(es)
	}
}

// Abandon stops lossless consumers from holding up the replay: from now
// on an event that finds a full buffer is dropped (counted in Lost), and
// emitters waiting for room go on. For a replay interrupted while a
// consumer is stuck.
func (s *Stream) Abandon() {
	if s == nil {
		return
	}
	for _, q := range s.queues {
		if q.c.Kept {
			continue
		}
		q.mu.Lock()
		q.abandoned = true
		q.cond.Broadcast()
		q.mu.Unlock()
	}
}

// Close ends the stream: each consumer is handed the events left in its
// buffer, then its goroutine returns. Close waits for that (for each
// Handle to return) and returns the consumers' errors. Events emitted
// after Close are dropped, counted in Lost. Close is idempotent.
func (s *Stream) Close() error {
	if s == nil {
		return nil
	}
	s.close.Do(func() { s.err = s.shut() })
	return s.err
}

func (s *Stream) shut() error {
	for _, q := range s.queues {
		q.mu.Lock()
		q.closed = true
		q.mu.Unlock()
		q.signal()
	}
	_ = s.g.Wait() // each queue keeps its own error
	var errs []error
	for _, q := range s.queues {
		if q.err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", q.c.Name, q.err))
		}
	}
	return errors.Join(errs...)
}

// Stats says what became of each consumer's events, in the order the
// consumers were given.
func (s *Stream) Stats() []Stat {
	if s == nil {
		return nil
	}
	out := make([]Stat, len(s.queues))
	for i, q := range s.queues {
		q.mu.Lock()
		out[i] = Stat{Name: q.c.Name, Live: q.c.Live, Delivered: q.delivered, Lost: q.lost,
			Stalls: q.stalls, Stalled: q.stalled, Err: q.err}
		q.mu.Unlock()
	}
	return out
}

// queue is one consumer's buffer: a ring of events, guarded by mu, taken
// whole by the consumer's goroutine (run).
type queue struct {
	c      Consumer
	behind func(string)
	wake   chan struct{} // 1: there are wakeAt events, or the stream is closed
	// wakeAt is how many events wake the consumer; fewer wait for the next
	// flush (FlushEvery). Waking a goroutine per event would cost more
	// than the event.
	wakeAt int

	// size is the consumer's Buffer: the most ring grows to.
	size int

	mu        sync.Mutex // guards what follows
	cond      *sync.Cond // signalled when there is room, or no more waiting
	ring      []Event
	head, n   int
	closed    bool // no more events come
	dead      bool // Handle failed: events are dropped
	abandoned bool // full: drop, do not wait
	said      bool // behind was called
	delivered int64
	lost      int64
	stalls    int64
	stalled   time.Duration
	err       error // set by run before it returns
}

// put adds e to the ring: waiting for room (lossless), or over the oldest
// (live).
func (q *queue) put(e *Event) {
	if len(q.c.Types) > 0 && !slices.Contains(q.c.Types, e.Type) {
		return
	}
	q.mu.Lock()
	wake := q.add(e)
	q.mu.Unlock()
	if wake {
		q.signal()
	}
}

// putAll adds each of es to the ring, as put does, under one lock. The
// consumer is woken as soon as it has wakeAt events, before a wait for
// room (stall) that only its run can end.
func (q *queue) putAll(es []Event) {
	q.mu.Lock()
	for i := range es {
		e := &es[i]
		if len(q.c.Types) > 0 && !slices.Contains(q.c.Types, e.Type) {
			continue
		}
		if q.add(e) {
			q.signal() // does not wait: a wake-up pending is enough
		}
	}
	q.mu.Unlock()
}

// add adds e to the ring, with q.mu held (stall may let go of it while
// it waits): waiting for room (lossless), or over the oldest (live). It
// reports whether the consumer is to be woken.
func (q *queue) add(e *Event) (wake bool) {
	if q.n == len(q.ring) && len(q.ring) < q.size && !q.dead && !q.closed {
		q.grow()
	}
	if q.n == len(q.ring) && !q.dead && !q.abandoned {
		if q.c.Live {
			q.ring[q.head] = Event{}
			q.head = (q.head + 1) % len(q.ring)
			q.n--
			q.lost++
		} else {
			q.stall()
		}
	}
	if q.dead || q.closed || q.n == len(q.ring) { // failed, closed, or full and abandoned
		q.lost++
		return false
	}
	q.ring[(q.head+q.n)%len(q.ring)] = *e
	q.n++
	return q.n == q.wakeAt
}

// grow doubles the full ring, with q.mu held, up to q.size: the events
// in order from index 0. A lossless consumer's batch in flight (the
// oldest events, still counted in n) is in the old ring, and its copy at
// the start of the new one, where run frees it.
func (q *queue) grow() {
	ring := make([]Event, min(2*len(q.ring), q.size))
	k := copy(ring, q.ring[q.head:])
	copy(ring[k:], q.ring[:q.head])
	q.ring, q.head = ring, 0
}

// stall waits, with q.mu held, until a full lossless ring has room, or
// the consumer failed, or the stream was abandoned.
func (q *queue) stall() {
	q.stalls++
	if !q.said && q.behind != nil {
		q.said = true
		q.behind(q.c.Name)
	}
	t := time.Now()
	for q.n == len(q.ring) && !q.dead && !q.abandoned {
		q.cond.Wait()
	}
	q.stalled += time.Since(t)
}

func (q *queue) signal() {
	select {
	case q.wake <- struct{}{}:
	default: // a wake-up is pending: run takes everything then
	}
}

// run is the consumer's goroutine: it hands what is in the ring to
// Handle, a chunk at a time, when wakeAt events are there or every
// FlushEvery, until the stream is closed and the ring is empty, or
// Handle fails.
func (q *queue) run() error {
	var batch []Event // a live consumer's copy
	flush := time.NewTicker(FlushEvery)
	defer flush.Stop()
	for {
		select {
		case <-q.wake:
		case <-flush.C:
		}
		for {
			q.mu.Lock()
			if q.n == 0 {
				closed := q.closed
				q.mu.Unlock()
				if closed {
					return nil
				}
				break // wait for the next wake-up
			}
			batch = q.take(batch[:0])
			q.mu.Unlock()
			err := q.c.Handle(batch)
			q.mu.Lock()
			if !q.c.Live { // the slots Handle read are free now
				// and keep nothing alive (a result's bytes): they are
				// batch, or their copies at the start of a grown ring.
				clear(q.ring[q.head : q.head+len(batch)])
				q.head = (q.head + len(batch)) % len(q.ring)
				q.n -= len(batch)
				q.cond.Broadcast()
			}
			if err != nil {
				q.dead, q.err = true, err
				q.lost += int64(q.n)
				q.n = 0
				q.cond.Broadcast()
				q.mu.Unlock()
				return err
			}
			q.delivered += int64(len(batch))
			// Yield between two chunks (handleChunk) while the consumer
			// keeps up; one more than a batch (wakeAt) behind takes the
			// next chunk at once. A yield puts its goroutine behind every
			// other runnable one, and on two processors a consumer that
			// yielded between each 32 events fell behind a fast replay
			// by its whole buffer, whose emitters then waited for it a
			// chunk at a time (BENCHMARKS.md, issue 24, ninth round).
			more, behind := q.n > 0, q.n > q.wakeAt
			q.mu.Unlock()
			if more && !behind {
				runtime.Gosched()
			}
		}
	}
}

// take returns, with q.mu held, the oldest events in the ring, at most
// handleChunk. For a lossless consumer it is the ring itself, up to its
// end or the newest event: emitters write only past the newest, and the slots stay the
// consumer's until run frees them after Handle, so nothing is copied. A
// live consumer's emitters overwrite the oldest: its events are copied
// into batch and freed at once.
func (q *queue) take(batch []Event) []Event {
	if !q.c.Live {
		return q.ring[q.head:min(q.head+q.n, q.head+handleChunk, len(q.ring))]
	}
	for q.n > 0 && len(batch) < handleChunk {
		batch = append(batch, q.ring[q.head])
		q.ring[q.head] = Event{}
		q.head = (q.head + 1) % len(q.ring)
		q.n--
	}
	return batch
}
