package transport

import (
	"context"
	"strconv"
	"sync"
	"time"
)

// httpSession is one session-based client of a StreamableHandler: the
// Session answering it, its GET stream, and the POST streams a client may
// still resume.
type httpSession struct {
	id          string
	s           Session
	ctx         context.Context // done when the session is closed
	cancel      context.CancelFunc
	unsolicited *outStream // the GET stream, event ids "0-<n>"
	window      time.Duration

	mu         sync.Mutex // guards the fields below
	closed     bool
	busy       int         // requests being handled and GET streams open
	idle       *time.Timer // armed while !busy, when the handler has an idle timeout
	idleAfter  time.Duration
	onIdle     func() // the handler's: forget the session and close it
	nextStream int
	streams    map[string]*outStream // by event id prefix
	ended      []endedStream         // streams done, oldest first, kept for resumes
	inflight   sync.WaitGroup        // Handle calls running; Add under mu while !closed
}

type endedStream struct {
	prefix string
	at     time.Time
}

func newHTTPSession(parent context.Context, id string, s Session, window time.Duration) *httpSession {
	ctx, cancel := context.WithCancel(parent)
	sess := &httpSession{
		id: id, s: s, ctx: ctx, cancel: cancel, window: window,
		unsolicited: newOutStream("0"),
		nextStream:  1,
		streams:     map[string]*outStream{},
	}
	sess.streams["0"] = sess.unsolicited
	return sess
}

// sendUnsolicited is the Session's Send for what belongs to no request:
// the GET stream, kept until a GET takes it when none is open.
func (s *httpSession) sendUnsolicited(ctx context.Context, msg []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.unsolicited.add(ctx, msg)
}

// begin counts a request about to be handled, or a GET stream opening;
// it fails once the session is closed. While any is counted, the
// session is not idle.
func (s *httpSession) begin() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.inflight.Add(1)
	s.busy++
	if s.idle != nil {
		s.idle.Stop()
	}
	return true
}

// end uncounts what begin counted; the last one arms the idle timer.
func (s *httpSession) end() {
	s.mu.Lock()
	s.busy--
	s.armIdleLocked()
	s.mu.Unlock()
	s.inflight.Done()
}

// armIdleLocked starts the idle timer when the session is not busy and
// the handler has an idle timeout. s.mu is held.
func (s *httpSession) armIdleLocked() {
	if s.busy > 0 || s.closed || s.idleAfter <= 0 {
		return
	}
	if s.idle == nil {
		s.idle = time.AfterFunc(s.idleAfter, s.expire)
		return
	}
	s.idle.Reset(s.idleAfter)
}

// expire runs on the idle timer: a session still idle is forgotten by
// its handler and closed.
func (s *httpSession) expire() {
	s.mu.Lock()
	idle := s.busy == 0 && !s.closed
	s.mu.Unlock()
	if idle {
		s.onIdle()
	}
}

// newStream makes the event stream of a POST, registered for resumes,
// and forgets the streams that ended more than the window ago.
func (s *httpSession) newStream(lost func()) *outStream {
	s.mu.Lock()
	defer s.mu.Unlock()
	cut := time.Now().Add(-s.window)
	for len(s.ended) > 0 && s.ended[0].at.Before(cut) {
		delete(s.streams, s.ended[0].prefix)
		s.ended = s.ended[1:]
	}
	prefix := strconv.Itoa(s.nextStream)
	s.nextStream++
	st := newOutStream(prefix)
	st.lost, st.lostAfter = lost, s.window
	s.streams[prefix] = st
	return st
}

// streamEnded keeps st for resumes during the window, then lets it go;
// a stream whose connection was cut on purpose (hungUp) goes at once,
// as it would with a crashed server.
func (s *httpSession) streamEnded(st *outStream, hungUp bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if hungUp {
		delete(s.streams, st.prefix)
		return
	}
	s.ended = append(s.ended, endedStream{prefix: st.prefix, at: time.Now()})
}

// stream finds a stream by the prefix of its event ids.
func (s *httpSession) stream(prefix string) *outStream {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.streams[prefix]
}

// close ends the session once: the handling of its messages is cancelled
// and waited for, its streams end, and its Session is closed. It returns
// the Session's Close error.
func (s *httpSession) close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	if s.idle != nil {
		s.idle.Stop()
	}
	s.mu.Unlock()
	s.cancel()
	s.inflight.Wait()
	s.mu.Lock()
	for _, st := range s.streams {
		st.finish()
	}
	s.mu.Unlock()
	return s.s.Close()
}
