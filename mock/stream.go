package mock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/replayctl/replayctl/internal/streamhold"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
)

// reading is the mock's one read of its tape, and the index it builds:
// either at once, before the first Dial returns (read), or, when a
// replay takes the tape's messages (Mock.StreamTape), on a goroutine of
// its own while the replay goes on (stream). Its connections answer
// meanwhile from the part indexed so far (see conn.answerLive).
type reading struct {
	done chan struct{} // closed once idx or err is set
	idx  *index
	err  error
	kept *keptTape // a read at once's messages, for StreamTape

	// While the tape is streamed: the index so far. b is the read's own
	// (its goroutine's, without mu); connections read pub, which the
	// read publishes once a batch (see builder.publish).
	mu      sync.Mutex    // guards the pointer b, pub, view, grown, waiting, waits and onDone
	b       *builder      // nil once the read has ended
	pub     published     // b's index as of its last publish
	view    index         // pub, as matching reads it: see viewOf
	grown   chan struct{} // closed, and replaced, when waiting and b publishes
	waiting bool          // a connection waits on grown
	waits   int64         // waits begun, on grown or done (for tests)
	onDone  int           // connections waiting on done (for tests)

	// The messages read, for the replay, in batches.
	qmu      sync.Mutex // guards the fields below
	queue    [][]tape.Message
	ended    bool
	readErr  error // the reader's own error (io.EOF at the end)
	warnings []string
	more     chan struct{} // a batch or the end is queued (capacity 1)
	finished chan struct{} // closed when the streaming goroutine returns
	stop     chan struct{} // closed (halt) when the replay is done before the read
	stopOnce sync.Once
}

// errHalted is a streamed read's error when the replay it streamed to
// was done before it reached the tape's end (see halt).
var errHalted = errors.New("the replay ended before the tape was read to its end")

// streamBatch is how many messages the streaming read indexes before it
// hands them to the replay (and wakes connections waiting for an
// answer): hand-offs cost less in batches, and a batch is indexed in a
// few dozen microseconds.
var streamBatch = 64

// read reads and indexes the whole tape now (keep: keeping its messages
// for StreamTape, see readIndexWith).
func read(src tape.Source, opts []tape.Option, keep bool) *reading {
	r := &reading{done: make(chan struct{})}
	r.idx, r.kept, r.err = readIndexWith(src, opts, nil, keep)
	close(r.done)
	return r
}

// streamable reports whether src is a regular file (or a Shared reading
// one) of at most keepUpTo bytes: its messages can be handed to a replay
// as they are read, without bound on how far the replay lags behind.
// size is its size.
func streamable(src tape.Source) (size int64, ok bool) {
	if sh, ok := src.(*tape.Shared); ok {
		src = sh.Source()
	}
	path, ok := src.(tape.File)
	if !ok {
		return 0, false
	}
	fi, err := os.Stat(string(path))
	if err != nil {
		return 0, false
	}
	return fi.Size(), fi.Mode().IsRegular() && fi.Size() <= keepUpTo
}

// stream starts reading and indexing rd, a tape of size bytes, on a
// goroutine of its own.
func stream(rd *tape.Reader, size int64) *reading {
	read := func() float64 { // the builder's, on the read's goroutine
		off, _, ok := rd.LineSpan()
		if !ok || size <= 0 {
			return 0
		}
		return float64(off) / float64(size)
	}
	r := &reading{
		done:     make(chan struct{}),
		b:        &builder{lazy: true, staged: true, read: read},
		grown:    make(chan struct{}),
		more:     make(chan struct{}, 1),
		finished: make(chan struct{}),
		stop:     make(chan struct{}),
	}
	go r.run(rd)
	return r
}

// run reads rd to its end or first error: it indexes each message,
// publishes the index to the connections a batch at a time (taking
// their lock once a batch, not once a message), then hands the
// messages to the replay, one batch behind the index:
// a request's answer, recorded soon after it, is most often indexed by
// the time the replay asks it, and its connection need not wait.
func (r *reading) run(rd *tape.Reader) {
	defer close(r.finished)
	defer rd.Close()
	var lasts lastSeqs
	var behind []tape.Message // indexed, handed once batch is
	batch := make([]tape.Message, 0, streamBatch)
	for {
		msg, err := rd.Next()
		if err != nil {
			r.end(&lasts, append(behind, batch...), err, rd.Warnings())
			return
		}
		lasts.note(msg.Session, msg.Seq)
		r.b.add(msg)
		if batch = append(batch, msg); len(batch) == streamBatch {
			r.mu.Lock()
			r.b.publish(&r.pub)
			r.wake()
			r.mu.Unlock()
			handed := behind != nil
			if handed {
				r.hand(behind, false, nil, nil)
			}
			behind, batch = batch, make([]tape.Message, 0, streamBatch)
			if handed && streamhold.Batch != nil {
				streamhold.Batch(r.stop)
			}
			if r.halted() {
				r.end(&lasts, nil, errHalted, rd.Warnings())
				return
			}
		}
	}
}

// halt stops a streamed read before its end, at its next batch: the
// replay is done with it. Its connections then answer as from a tape
// that cannot be read (errHalted); the mock's next Dial reads the tape
// afresh (see Mock.reading).
func (r *reading) halt() { r.stopOnce.Do(func() { close(r.stop) }) }

// halted reports whether halt has been called (on a read that streams).
func (r *reading) halted() bool {
	select {
	case <-r.stop:
		return true
	default:
		return false
	}
}

// haltedEarly reports whether r is a streamed read that ended halted.
func (r *reading) haltedEarly() bool {
	select {
	case <-r.done:
		return errors.Is(r.err, errHalted)
	default:
		return false
	}
}

// wake wakes the connections waiting for the index to grow. Called with
// mu held.
func (r *reading) wake() {
	if r.waiting {
		close(r.grown)
		r.grown, r.waiting = make(chan struct{}), false
	}
}

// end ends the read: the index is made (or the read failed), then the
// last batch and the end are handed to the replay. Connections wait for
// done, not for the lock, while the index is made.
func (r *reading) end(lasts *lastSeqs, batch []tape.Message, err error, warnings []string) {
	r.mu.Lock()
	b := r.b
	r.b, r.pub, r.view = nil, published{}, index{}
	close(r.grown)
	r.mu.Unlock()
	if errors.Is(err, io.EOF) {
		r.idx = b.index()
		r.idx.lasts, r.idx.messages = lasts.done(), lasts.count()
	} else {
		r.err = fmt.Errorf("mock: %w", err)
	}
	close(r.done)
	r.hand(batch, true, err, warnings)
}

// hand queues a batch of messages for the replay, and with end the
// read's end.
func (r *reading) hand(batch []tape.Message, end bool, err error, warnings []string) {
	r.qmu.Lock()
	if len(batch) > 0 {
		r.queue = append(r.queue, batch)
	}
	if end {
		r.ended, r.readErr, r.warnings = true, err, warnings
	}
	r.qmu.Unlock()
	select {
	case r.more <- struct{}{}:
	default:
	}
}

// messages returns the replay's side of a streamed read: next gives the
// messages in tape order, then the reader's error (io.EOF at the end,
// else the tape's own error, as tape.Reader.Next returns it); end stops
// the read if it has not ended (halt: the replay is done), waits for it
// to end and returns the reader's warnings. next is for one goroutine.
func (r *reading) messages() (next func() (tape.Message, error), end func() []string) {
	var cur []tape.Message
	var pending [][]tape.Message
	next = func() (tape.Message, error) {
		for len(cur) == 0 {
			if len(pending) > 0 {
				cur, pending[0], pending = pending[0], nil, pending[1:]
				continue
			}
			r.qmu.Lock()
			pending, r.queue = r.queue, nil
			ended, err := r.ended, r.readErr
			r.qmu.Unlock()
			if len(pending) > 0 {
				continue
			}
			if ended {
				<-r.finished
				return tape.Message{}, err
			}
			<-r.more
		}
		m := cur[0]
		cur[0], cur = tape.Message{}, cur[1:]
		return m, nil
	}
	end = func() []string {
		r.halt()
		<-r.finished
		r.qmu.Lock()
		defer r.qmu.Unlock()
		if len(r.queue) > 0 && errors.Is(r.readErr, io.EOF) {
			// The replay did not meet the tape's end: a next after this
			// gives no io.EOF, which would count the tape as what it took.
			r.readErr = errHalted
		}
		r.queue = nil // not taken: let go of
		return r.warnings
	}
	return next, end
}

// viewOf returns the index built so far, as matching reads it: its
// methods, notes and messages. Called with mu held, b not nil; valid
// until mu is unlocked.
func (r *reading) viewOf() *index {
	v, p := &r.view, &r.pub
	v.methods, v.notes, v.noteRuns, v.big, v.mem = p.methods, p.notes, p.noteRuns, p.big, p.mem
	return v
}

// entriesOf returns the session's entries indexed so far. Called with
// mu held, b not nil.
func (r *reading) entriesOf(session string) []entry {
	return r.pub.sessions[session]
}

// answerLive answers req while the tape is still read: the request a
// replay of the tape asks next (see matcher.inOrder) as soon as its
// recorded answer is indexed, any other once the whole tape is (a miss
// is a miss only then), so that every answer is the one the whole
// index gives. It returns ok false, having waited, once the read has
// ended: c then answers from the index (adopt); or, without waiting
// longer, ctx's error once ctx is done, ErrClosed once c is closed.
func (c *conn) answerLive(ctx context.Context, req jsonrpc.Message, aside bool) (notes [][]byte, ans []byte, ok bool, err error) {
	r := c.live
	params := req.Params()
	var raw uint64
	r.mu.Lock()
	for r.b != nil {
		wait := r.done
		if method, known := r.pub.methods[req.Method]; known && !aside {
			es := r.entriesOf(c.name)
			if next := c.m.next; next >= len(es) {
				wait = r.grown // the request may be indexed next
			} else if e := &es[next]; e.method == method && e.raw != 0 {
				if raw == 0 {
					raw = rawHash(params)
				}
				if e.raw == raw {
					if e.ans == 0 {
						wait = r.grown // its answer is not read yet
					} else {
						c.m.use(next)
						sc := scratchPool.Get().(*scratch)
						notes, ans = idxReply(r.viewOf(), e, req, 0, sc, &c.m.blk)
						r.mu.Unlock()
						putScratch(sc)
						return notes, ans, true, nil
					}
				}
			}
		}
		if wait == r.grown {
			r.waiting = true
		}
		r.waits++
		if wait == r.done {
			r.onDone++
		}
		r.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			err = fmt.Errorf("mock: waiting for the tape to be read: %w", ctx.Err())
		case <-c.done:
			err = ErrClosed
		}
		r.mu.Lock()
		if wait == r.done {
			r.onDone--
		}
		if err != nil {
			r.mu.Unlock()
			return nil, nil, false, err
		}
	}
	r.mu.Unlock()
	<-r.done // closed right after b is let go of (see end)
	c.adopt()
	return nil, nil, false, nil
}

// adopt makes c answer from the index the read made, once it has ended;
// the requests asked so far stay asked.
func (c *conn) adopt() {
	r := c.live
	c.live = nil
	if r.err != nil {
		c.failed = r.err
		return
	}
	c.idx = r.idx
	c.entries = r.idx.sessions[c.name]
	c.m.idx, c.m.all = c.idx, c.entries
	c.m.entries = c.entries[c.m.base:]
}
