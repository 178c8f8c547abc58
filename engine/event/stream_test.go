package event

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// recorder is a consumer's Handle that keeps what it was given; gate,
// when set, holds each call until a value (or its close) comes.
type recorder struct {
	mu   sync.Mutex
	got  []Event
	gate chan struct{}
}

func (r *recorder) handle(batch []Event) error {
	if r.gate != nil {
		<-r.gate
	}
	r.mu.Lock()
	r.got = append(r.got, batch...)
	r.mu.Unlock()
	return nil
}

func (r *recorder) seqs() []int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var s []int64
	for _, e := range r.got {
		s = append(s, e.Seq)
	}
	return s
}

func ev(seq int64) Event { return Event{Type: Sent, Seq: seq, Session: "s1"} }

func TestLosslessSeesEverythingInOrder(t *testing.T) {
	const emitters, each = 4, 500
	var r recorder
	start := time.Now()
	s := New(start, []Consumer{{Name: "file", Handle: r.handle, Buffer: 8}}) // small: emitters wait
	var wg sync.WaitGroup
	for g := range emitters {
		wg.Go(func() {
			for i := range each {
				s.Emit(time.Now(), Event{Type: Sent, Session: fmt.Sprint("s", g), Seq: int64(i)})
			}
		})
	}
	wg.Wait()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if len(r.got) != emitters*each {
		t.Fatalf("got %d events, want %d", len(r.got), emitters*each)
	}
	next := map[string]int64{}
	for _, e := range r.got {
		if e.Seq != next[e.Session] {
			t.Fatalf("session %s: got seq %d, want %d (out of order)", e.Session, e.Seq, next[e.Session])
		}
		next[e.Session]++
		if e.TUS < 0 {
			t.Fatalf("got t_us %d, want ≥ 0", e.TUS)
		}
	}
	st := s.Stats()[0]
	if st.Delivered != emitters*each || st.Lost != 0 {
		t.Errorf("got delivered %d lost %d, want %d and 0", st.Delivered, st.Lost, emitters*each)
	}
}

// A live viewer stuck in its Handle loses the oldest events, counted, and
// never holds up the emitter or a lossless consumer beside it.
func TestLiveViewerDropsOldestAndNeverBlocks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		viewer := recorder{gate: make(chan struct{})}
		var file recorder
		s := New(time.Now(), []Consumer{
			{Name: "viewer", Handle: viewer.handle, Live: true, Buffer: 3},
			{Name: "file", Handle: file.handle, Buffer: 100},
		})
		s.Emit(time.Now(), ev(0))
		synctest.Wait() // the viewer took seq 0 and is stuck in Handle
		for i := int64(1); i <= 10; i++ {
			s.Emit(time.Now(), ev(i)) // returns at once: a deadlock would fail the test
		}
		time.Sleep(FlushEvery) // the file's few events wait for a flush
		synctest.Wait()
		if got := file.seqs(); len(got) != 11 {
			t.Errorf("the lossless consumer got %v while the viewer was stuck, want seqs 0..10", got)
		}
		if st := s.Stats()[0]; st.Lost != 7 || st.Stalls != 0 {
			t.Errorf("viewer: got lost %d stalls %d, want 7 and 0", st.Lost, st.Stalls)
		}
		close(viewer.gate)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if got, want := fmt.Sprint(viewer.seqs()), "[0 8 9 10]"; got != want {
			t.Errorf("the viewer saw seqs %s, want %s (the newest kept)", got, want)
		}
	})
}

// A lossless consumer whose buffer is full makes the emitter wait, says so
// once, and loses nothing.
func TestLosslessFullBufferWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		file := recorder{gate: make(chan struct{})}
		var behind []string
		// 3: seq 0 in Handle, 1 and 2 waiting.
		s := New(time.Now(), []Consumer{{Name: "file", Handle: file.handle, Buffer: 3}},
			WithBehind(func(c string) { behind = append(behind, c) }))
		s.Emit(time.Now(), ev(0))
		synctest.Wait() // the consumer holds seq 0 in Handle
		s.Emit(time.Now(), ev(1))
		s.Emit(time.Now(), ev(2)) // the buffer is full now
		emitted := make(chan struct{})
		go func() {
			s.Emit(time.Now(), ev(3))
			close(emitted)
		}()
		synctest.Wait()
		select {
		case <-emitted:
			t.Fatal("Emit returned with the lossless buffer full, want it to wait")
		default:
		}
		if st := s.Stats()[0]; st.Stalls != 1 {
			t.Errorf("got %d stalls, want 1", st.Stalls)
		}
		if fmt.Sprint(behind) != "[file]" {
			t.Errorf("behind called for %v, want [file]", behind)
		}
		time.Sleep(time.Second) // fake time in the bubble: how long the emitter waited
		close(file.gate)
		<-emitted
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if got, want := fmt.Sprint(file.seqs()), "[0 1 2 3]"; got != want {
			t.Errorf("got seqs %s, want %s", got, want)
		}
		if st := s.Stats()[0]; st.Lost != 0 || st.Stalled != time.Second {
			t.Errorf("got lost %d stalled %s, want 0 and 1s", st.Lost, st.Stalled)
		}
	})
}

// A consumer that fails sees nothing more and holds up nobody; Close says
// why.
func TestFailedConsumerIsDropped(t *testing.T) {
	broken := errors.New("disk full")
	var file recorder
	s := New(time.Now(), []Consumer{
		{Name: "bad", Handle: func([]Event) error { return broken }, Buffer: 1},
		{Name: "file", Handle: file.handle},
	})
	for i := range int64(100) {
		s.Emit(time.Now(), ev(i))
	}
	err := s.Close()
	if !errors.Is(err, broken) {
		t.Fatalf("Close: got %v, want %v", err, broken)
	}
	st := s.Stats()
	if st[0].Delivered != 0 || st[0].Lost != 99 || st[0].Err == nil {
		// The first batch (one event: the buffer holds one) failed.
		t.Errorf("bad consumer: got delivered %d lost %d err %v, want 0, 99 and its error", st[0].Delivered, st[0].Lost, st[0].Err)
	}
	if len(file.got) != 100 {
		t.Errorf("the other consumer got %d events, want 100", len(file.got))
	}
}

// Abandon lets an emitter waiting for a stuck lossless consumer go on.
func TestAbandonEndsTheWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		file := recorder{gate: make(chan struct{})}
		s := New(time.Now(), []Consumer{{Name: "file", Handle: file.handle, Buffer: 2}})
		s.Emit(time.Now(), ev(0))
		synctest.Wait()
		s.Emit(time.Now(), ev(1))
		emitted := make(chan struct{})
		go func() {
			s.Emit(time.Now(), ev(2))
			close(emitted)
		}()
		synctest.Wait()
		s.Abandon()
		<-emitted
		close(file.gate)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if st := s.Stats()[0]; st.Lost != 1 || fmt.Sprint(file.seqs()) != "[0 1]" {
			t.Errorf("got lost %d seqs %v, want 1 and [0 1]", st.Lost, file.seqs())
		}
	})
}

func TestNilStream(t *testing.T) {
	var s *Stream
	s.Emit(time.Now(), ev(1))
	s.Abandon()
	if err := s.Close(); err != nil || s.Stats() != nil {
		t.Errorf("a nil stream: got %v %v, want nothing", err, s.Stats())
	}
}

func BenchmarkEmit(b *testing.B) {
	for _, consumers := range []int{0, 1} {
		b.Run(fmt.Sprintf("jsonl=%d", consumers), func(b *testing.B) {
			var cs []Consumer
			for range consumers {
				cs = append(cs, Consumer{Name: "discard", Handle: JSONLines(io.Discard)})
			}
			s := New(time.Now(), cs)
			e := Event{Type: Judged, Session: "s1#12", Seq: 42, Method: "tools/call", Kind: "request", Dir: "c2s",
				Verdict: "passed", HasLag: true, HasLatency: true, Lag: 12 * time.Microsecond, Latency: 3 * time.Millisecond}
			b.ReportAllocs()
			for b.Loop() {
				s.Emit(time.Now(), e)
			}
			if err := s.Close(); err != nil {
				b.Fatal(err)
			}
		})
	}
}

func TestEmitAfterCloseIsDropped(t *testing.T) {
	var r recorder
	s := New(time.Now(), []Consumer{{Name: "file", Handle: r.handle, Buffer: 1}})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s.Emit(time.Now(), ev(1))
	s.Emit(time.Now(), ev(2)) // would wait for room, were it not dropped
	if st := s.Stats()[0]; st.Lost != 2 || len(r.got) != 0 {
		t.Errorf("got lost %d, delivered %v; want 2 lost, none delivered", st.Lost, r.seqs())
	}
}

// Fewer events than wake a consumer wait at most FlushEvery; enough wake
// it at once.
func TestFlush(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var file recorder
		s := New(time.Now(), []Consumer{{Name: "file", Handle: file.handle, Buffer: 80}}) // woken at 10
		s.Emit(time.Now(), ev(0))
		synctest.Wait()
		if got := file.seqs(); len(got) != 0 {
			t.Fatalf("got %v at once, want the event to wait for a flush", got)
		}
		time.Sleep(FlushEvery)
		synctest.Wait()
		if got := fmt.Sprint(file.seqs()); got != "[0]" {
			t.Fatalf("got %s after FlushEvery, want [0]", got)
		}
		for i := range int64(10) {
			s.Emit(time.Now(), ev(i+1))
		}
		synctest.Wait()
		if got := file.seqs(); len(got) != 11 {
			t.Errorf("got %v, want the 10 more at once (a batch wakes the consumer)", got)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	})
}

// A consumer with Types is given those types only; the others pass it by,
// neither delivered nor lost.
func TestTypesFilter(t *testing.T) {
	var judged, all recorder
	s := New(time.Now(), []Consumer{
		{Name: "report", Handle: judged.handle, Types: []Type{Judged}},
		{Name: "file", Handle: all.handle},
	})
	for i := range int64(10) {
		s.Emit(time.Now(), Event{Type: Sent, Seq: i})
		s.Emit(time.Now(), Event{Type: Judged, Seq: i})
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(judged.seqs()), "[0 1 2 3 4 5 6 7 8 9]"; got != want {
		t.Errorf("the filtered consumer got seqs %s, want %s", got, want)
	}
	for _, e := range judged.got {
		if e.Type != Judged {
			t.Fatalf("the filtered consumer got a %s event", e.Type)
		}
	}
	if len(all.got) != 20 {
		t.Errorf("the other consumer got %d events, want 20", len(all.got))
	}
	if st := s.Stats()[0]; st.Delivered != 10 || st.Lost != 0 {
		t.Errorf("filtered: delivered %d lost %d, want 10 and 0", st.Delivered, st.Lost)
	}
}

// Abandon does not touch a Kept consumer: the emitter still waits for
// room, and it loses nothing.
func TestKeptIsNotAbandoned(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		kept := recorder{gate: make(chan struct{})}
		s := New(time.Now(), []Consumer{{Name: "report", Handle: kept.handle, Buffer: 2, Kept: true}})
		s.Abandon()
		emitted := make(chan struct{})
		go func() {
			for i := range int64(6) {
				s.Emit(time.Now(), ev(i))
			}
			close(emitted)
		}()
		synctest.Wait()
		select {
		case <-emitted:
			t.Fatal("the emitter went on past a full kept consumer")
		default:
		}
		close(kept.gate)
		<-emitted
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if got, want := fmt.Sprint(kept.seqs()), "[0 1 2 3 4 5]"; got != want {
			t.Errorf("the kept consumer got %s, want %s", got, want)
		}
		if st := s.Stats()[0]; st.Lost != 0 || st.Stalls == 0 {
			t.Errorf("kept: lost %d stalls %d, want 0 lost and the emitter's waits counted", st.Lost, st.Stalls)
		}
	})
}

// TestRingGrowsWhileABatchIsInFlight: a consumer's ring starts small and
// grows up to its Buffer while Handle holds the oldest events: nothing is
// lost, nothing stalls before the Buffer is full, every event comes once
// and in order, and then the full Buffer makes the emitter wait.
func TestRingGrowsWhileABatchIsInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const buffer = 5 * firstRing // grows 64, 128, 256, 320
		file := recorder{gate: make(chan struct{})}
		s := New(time.Now(), []Consumer{{Name: "file", Handle: file.handle, Buffer: buffer}})
		if n := len(s.queues[0].ring); n != firstRing {
			t.Fatalf("a new ring holds %d events, want %d", n, firstRing)
		}
		for i := range 40 { // woken at 40 (an eighth): Handle holds 0..39
			s.Emit(time.Now(), ev(int64(i)))
		}
		synctest.Wait()
		for i := 40; i < buffer; i++ {
			s.Emit(time.Now(), ev(int64(i)))
		}
		if n := len(s.queues[0].ring); n != buffer {
			t.Fatalf("the full ring holds %d events, want %d", n, buffer)
		}
		if st := s.Stats()[0]; st.Stalls != 0 || st.Lost != 0 {
			t.Fatalf("with %d of %d events held: stalls %d, lost %d; want none", buffer, buffer, st.Stalls, st.Lost)
		}
		emitted := make(chan struct{})
		go func() {
			s.Emit(time.Now(), ev(buffer))
			close(emitted)
		}()
		synctest.Wait()
		select {
		case <-emitted:
			t.Fatal("Emit returned with the buffer full, want it to wait")
		default:
		}
		close(file.gate)
		<-emitted
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		seqs := file.seqs()
		if len(seqs) != buffer+1 {
			t.Fatalf("got %d events, want %d", len(seqs), buffer+1)
		}
		for i, seq := range seqs {
			if seq != int64(i) {
				t.Fatalf("event %d has seq %d: %v", i, seq, seqs)
			}
		}
		if st := s.Stats()[0]; st.Stalls != 1 || st.Lost != 0 || st.Delivered != buffer+1 {
			t.Errorf("got %+v, want 1 stall, none lost, %d delivered", st, buffer+1)
		}
	})
}

// Wants is the union of the consumers' Types; one consumer with none
// wants every type; a nil stream wants nothing.
func TestWants(t *testing.T) {
	var r recorder
	tests := []struct {
		name      string
		consumers []Consumer
		want      map[Type]bool
	}{
		{"no consumer", nil, map[Type]bool{Sent: false, Judged: false}},
		{"judged only", []Consumer{{Name: "report", Handle: r.handle, Types: []Type{Judged}}},
			map[Type]bool{Sent: false, Held: false, Judged: true}},
		{"two filters", []Consumer{{Name: "a", Handle: r.handle, Types: []Type{Judged}}, {Name: "b", Handle: r.handle, Types: []Type{Sent, Judged}}},
			map[Type]bool{Sent: true, Held: false, Judged: true}},
		{"one takes all", []Consumer{{Name: "report", Handle: r.handle, Types: []Type{Judged}}, {Name: "file", Handle: r.handle}},
			map[Type]bool{Sent: true, Held: true, Due: true, Judged: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(time.Now(), tt.consumers)
			for typ, want := range tt.want {
				if got := s.Wants(typ); got != want {
					t.Errorf("Wants(%s) = %v, want %v", typ, got, want)
				}
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
	var nilStream *Stream
	if nilStream.Wants(Judged) {
		t.Error("a nil stream wants judged events")
	}
}

// EmitAll gives its events, in order and stamped alike, to each consumer
// as Emits of each would: a lossless consumer whose buffer is smaller
// than the batch is woken to make room (no flush waited for: synctest
// would see the emitter stuck), a live one keeps the newest, and a
// consumer of some types gets only those.
func TestEmitAllAsEmitEach(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var file, viewer, judged recorder
		start := time.Now()
		s := New(start, []Consumer{
			{Name: "file", Handle: file.handle, Buffer: 8},
			{Name: "viewer", Handle: viewer.handle, Live: true, Buffer: 1000},
			{Name: "judged", Handle: judged.handle, Types: []Type{Judged}},
		})
		var batch []Event
		for i := range int64(100) {
			e := ev(i)
			if i%3 == 0 {
				e.Type = Judged
			}
			batch = append(batch, e)
		}
		at := start.Add(1500 * time.Microsecond)
		done := make(chan struct{})
		go func() {
			s.EmitAll(at, batch)
			close(done)
		}()
		synctest.Wait()
		select {
		case <-done:
		default:
			t.Fatal("EmitAll still waits for room with the consumer idle: it was not woken")
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		var all, every3 []int64
		for i := range int64(100) {
			all = append(all, i)
			if i%3 == 0 {
				every3 = append(every3, i)
			}
		}
		for _, c := range []struct {
			name string
			r    *recorder
			want []int64
		}{{"file", &file, all}, {"viewer", &viewer, all}, {"judged", &judged, every3}} {
			if got := c.r.seqs(); fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("%s got seqs %v, want %v", c.name, got, c.want)
			}
			for _, e := range c.r.got {
				if e.TUS != 1500 {
					t.Fatalf("%s: got t_us %d, want 1500", c.name, e.TUS)
				}
			}
		}
		for _, st := range s.Stats() {
			if st.Lost != 0 {
				t.Errorf("%s lost %d, want 0", st.Name, st.Lost)
			}
		}
		if st := s.Stats()[0]; st.Stalls == 0 {
			t.Errorf("file: 0 stalls, want some (100 events, a buffer of 8)")
		}
	})
}

// A consumer handed a full batch (wakeAt events, 256) gives them to
// Handle a few at a time and yields the processor between two: on one
// processor a session that spins for its due time (yielding in a loop)
// runs between any two, where it waited for the whole batch — the
// report's collector, woken by the flush every 50 ms, held a session
// paced 0.2 ms apart for 0.1–0.3 ms (BENCHMARKS.md, issue 24, eighth
// round).
func TestHandleYieldsBetweenChunks(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const events = maxWakeAt
	const most = handleChunk // events per Handle call: ~30 µs of the report's collector
	var turns atomic.Int64   // the spinner's
	var stop atomic.Bool
	spun := make(chan struct{})
	go func() {
		defer close(spun)
		for !stop.Load() {
			turns.Add(1)
			runtime.Gosched()
		}
	}()
	type call struct {
		n     int
		turns int64
	}
	var calls []call
	handled := 0
	done := make(chan struct{})
	s := New(time.Now(), []Consumer{{Name: "report", Handle: func(batch []Event) error {
		calls = append(calls, call{len(batch), turns.Load()})
		if handled += len(batch); handled == events {
			close(done)
		}
		return nil
	}}})
	for i := range int64(events) {
		s.Emit(time.Now(), ev(i))
	}
	<-done
	stop.Store(true)
	<-spun
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	yielded := 0 // boundaries between two calls where the spinner ran
	for i, c := range calls {
		if c.n > most {
			t.Fatalf("Handle call %d got %d events at once, want at most %d (calls: %v)", i, c.n, most, calls)
		}
		if i > 0 && c.turns > calls[i-1].turns {
			yielded++
		}
	}
	// Most, not all: the race detector's scheduler picks the next
	// goroutine at random now and then.
	if boundaries := len(calls) - 1; yielded < boundaries/2 {
		t.Errorf("the spinning goroutine ran between %d of %d pairs of Handle calls, want a yield between chunks (calls: %v)", yielded, boundaries, calls)
	}
}

// A consumer more than a batch (wakeAt) behind takes its chunks one after
// another without yielding: a yield puts it behind every other runnable
// goroutine, and on two processors the report's collector, yielding
// after each 32 events of a fast replay, fell behind by its whole buffer
// and held validate, waiting for room, to its pace (BENCHMARKS.md, issue
// 24, ninth round). Once no more than a batch is left it yields again.
func TestHandleBehindTakesChunksWithoutYielding(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const events = 8 * maxWakeAt
	var turns atomic.Int64 // the spinner's
	var stop atomic.Bool
	spun := make(chan struct{})
	go func() {
		defer close(spun)
		for !stop.Load() {
			turns.Add(1)
			runtime.Gosched()
		}
	}()
	type call struct {
		left  int // events emitted and not yet handled, after this call
		turns int64
	}
	var calls []call
	handled := 0
	done := make(chan struct{})
	s := New(time.Now(), []Consumer{{Name: "report", Handle: func(batch []Event) error {
		handled += len(batch)
		calls = append(calls, call{events - handled, turns.Load()})
		if handled == events {
			close(done)
		}
		return nil
	}}})
	for i := range int64(events) { // on one processor, before Handle runs
		s.Emit(time.Now(), ev(i))
	}
	<-done
	stop.Store(true)
	<-spun
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	behind, yieldedBehind := 0, 0 // boundaries after a call that left more than a batch
	keepingUp, yieldedKeepingUp := 0, 0
	for i := 1; i < len(calls); i++ {
		ran := calls[i].turns > calls[i-1].turns
		if calls[i-1].left > maxWakeAt {
			behind++
			if ran {
				yieldedBehind++
			}
			continue
		}
		keepingUp++
		if ran {
			yieldedKeepingUp++
		}
	}
	if behind == 0 || keepingUp == 0 {
		t.Fatalf("%d boundaries behind, %d keeping up: want both (calls: %v)", behind, keepingUp, calls)
	}
	// Not none, nor all: the race detector's scheduler picks the next
	// goroutine at random now and then, and a long call may be preempted.
	if yieldedBehind > behind/4 {
		t.Errorf("the spinning goroutine ran between %d of %d pairs of Handle calls made more than a batch behind, want few (calls: %v)", yieldedBehind, behind, calls)
	}
	if yieldedKeepingUp < keepingUp/2 {
		t.Errorf("the spinning goroutine ran between %d of %d pairs of Handle calls made a batch or less behind, want most (calls: %v)", yieldedKeepingUp, keepingUp, calls)
	}
}
