package transport

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// maxKeptEvents bounds what a stream keeps for clients that resume it:
// past it, the oldest events are forgotten (a client resuming from one of
// them gets the stream from the oldest kept event on).
const maxKeptEvents = 1024

// outStream is one event stream from a listener to its client: a POST's
// response stream or a session's GET stream. It numbers its events and,
// when it has an id prefix, keeps them so that a client that lost the
// connection can resume with Last-Event-ID ("<prefix>-<n>") on a new
// response. At most one response (a sink) is attached at a time; events
// sent while none is attached are kept and written when one attaches.
//
// The mutex serializes writes to the sink and guards everything else; a
// sink is detached under it, so once detach returns its response is no
// longer written to and its handler may return.
type outStream struct {
	prefix string // "" when the stream has no event ids and keeps nothing

	mu        sync.Mutex
	kept      [][]byte // events base, base+1, …
	base      int
	next      int // the number of the next event
	delivered int // events before it were written to some sink
	sink      *sseSink
	gen       int  // bumped on every attach and detach
	done      bool // no event comes after the kept ones
	doneCh    chan struct{}

	// lost, when set, is called once the stream has been without a
	// response for lostAfter, unless a client resumed it or it ended
	// before (it cancels the handling of a POST whose client is gone).
	lost      func()
	lostAfter time.Duration
	idle      *time.Timer // running while unattached, not done, lost set
}

func newOutStream(prefix string) *outStream {
	return &outStream{prefix: prefix, doneCh: make(chan struct{})}
}

// add numbers msg, keeps a copy if the stream keeps events, and writes it
// to the attached sink, if any: in pieces when ctx carries a pace
// (WithPace), else whole. A failed write detaches the sink (the client is
// gone; it may resume). add returns nil even then: the event is kept for
// a resume; only a stream that is done refuses events.
func (s *outStream) add(ctx context.Context, msg []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return errStreamDone
	}
	n := s.next
	s.next++
	if s.prefix != "" {
		s.kept = append(s.kept, append([]byte(nil), msg...))
		if len(s.kept) > maxKeptEvents {
			s.kept[0] = nil
			s.kept = s.kept[1:]
			s.base++
		}
	}
	if s.sink == nil {
		return nil
	}
	if err := s.sink.write(ctx, s.event(n, msg)); err != nil {
		s.detachLocked()
		return nil
	}
	s.delivered = n + 1
	return nil
}

// sseSink is a response an outStream writes events to.
type sseSink struct {
	ev *SSEWriter
	w  http.ResponseWriter
}

func newSSESink(w http.ResponseWriter) *sseSink {
	return &sseSink{ev: NewSSEWriter(w), w: w}
}

// write writes ev whole, or in pieces when ctx carries a pace.
func (k *sseSink) write(ctx context.Context, ev SSEEvent) error {
	chunk, pause, ok := PaceOf(ctx)
	if !ok {
		return k.ev.Write(ev)
	}
	var b bytes.Buffer
	if err := NewSSEWriter(&b).Write(ev); err != nil {
		return err
	}
	return writePaced(ctx, k.w, b.Bytes(), chunk, pause)
}

// writePaced writes p to an HTTP response chunk bytes at a time, each
// piece flushed, pausing for pause between pieces, as a slow server
// would. It returns early with ctx's error.
func writePaced(ctx context.Context, w http.ResponseWriter, p []byte, chunk int, pause time.Duration) error {
	rc := http.NewResponseController(w)
	return inPieces(ctx, p, chunk, pause, func(piece []byte) error {
		if _, err := w.Write(piece); err != nil {
			return err
		}
		return rc.Flush()
	})
}

// inPieces hands p to write chunk bytes at a time, pausing for pause
// between pieces (none after the last). It returns write's first error,
// or ctx's when ctx ends during a pause.
func inPieces(ctx context.Context, p []byte, chunk int, pause time.Duration, write func([]byte) error) error {
	for len(p) > 0 {
		n := min(chunk, len(p))
		if err := write(p[:n]); err != nil {
			return err
		}
		p = p[n:]
		if len(p) == 0 {
			break
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// event is event number n carrying msg.
func (s *outStream) event(n int, msg []byte) SSEEvent {
	ev := SSEEvent{Event: "message", Data: msg}
	if s.prefix != "" {
		ev.ID = s.prefix + "-" + strconv.Itoa(n)
	}
	return ev
}

// attach makes sink the stream's response, calls start (which writes the
// response's headers), and writes to sink the kept events from number
// from on (from < 0: those never delivered). When another response is
// attached it fails with errStreamBusy, without calling start — unless
// takeOver: a client resuming with Last-Event-ID has lost that response,
// even if the server has not noticed yet, so the new one replaces it.
func (s *outStream) attach(sink *sseSink, from int, takeOver bool, start func()) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sink != nil {
		if !takeOver {
			return errStreamBusy
		}
		s.sink = nil
		s.gen++
	}
	if s.idle != nil {
		s.idle.Stop()
	}
	if start != nil {
		start()
	}
	if from < 0 {
		from = s.delivered
	}
	from = max(from, s.base)
	s.sink = sink
	s.gen++
	for n := from; n < s.next; n++ {
		if err := sink.ev.Write(s.event(n, s.kept[n-s.base])); err != nil {
			s.detachLocked()
			return nil
		}
		s.delivered = max(s.delivered, n+1)
	}
	return nil
}

// detach lets go of sink if it is still the attached response.
func (s *outStream) detach(sink *sseSink) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sink == sink {
		s.detachLocked()
	}
}

func (s *outStream) detachLocked() {
	s.sink = nil
	s.gen++
	if s.done || s.lost == nil {
		return
	}
	gen := s.gen
	if s.idle != nil {
		s.idle.Stop()
	}
	s.idle = time.AfterFunc(s.lostAfter, func() {
		s.mu.Lock()
		fire := !s.done && s.sink == nil && s.gen == gen
		s.mu.Unlock()
		if fire {
			s.lost()
		}
	})
}

// finish ends the stream: no event comes after the kept ones. Responses
// waiting on doneCh return.
func (s *outStream) finish() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return
	}
	s.done = true
	if s.idle != nil {
		s.idle.Stop()
	}
	close(s.doneCh)
}

// parseEventID splits a Last-Event-ID into its stream prefix and event
// number.
func parseEventID(id string) (prefix string, n int, ok bool) {
	i := strings.LastIndexByte(id, '-')
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(id[i+1:])
	if err != nil || n < 0 {
		return "", 0, false
	}
	return id[:i], n, true
}

// cutOnDone makes every write of the response w fail at once when ctx is
// done (the handler is closed), and returns the function that undoes it.
// A client that reads nothing holds a write of a large answer until its
// connection goes; the handler's Close, which waits for the handling it
// cancels, would wait with it.
func cutOnDone(ctx context.Context, w http.ResponseWriter) (stop func() bool) {
	return context.AfterFunc(ctx, func() {
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now())
	})
}
