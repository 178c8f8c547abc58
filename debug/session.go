package debug

import (
	"context"
	"errors"
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/replayctl/replayctl/controller"
	"github.com/replayctl/replayctl/engine"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/tape"
)

// ErrRunTwice is Run's error when the session has run before: a session
// is run once.
var ErrRunTwice = errors.New("debug: the session has run already")

// Session is one debug session of a tape against a target: New, then
// Run, once, with the commands given from its drive function.
type Session struct {
	r           *replay.Replay
	c           *controller.Controller
	look        func(seq int64) (controller.Msg, bool) // the tape as it may be shown (Shown)
	j           *journal
	timeout     time.Duration // the answer timeout: bounds the waits for results
	stopAtStart bool
	ln          net.Listener // nil: no control socket
	onShow      []func(report.Result)
	ran         atomic.Bool

	ready     chan struct{} // closed by Begin once the handshake is replayed
	readyOnce sync.Once

	// The commands' own, kept for the goroutine that gives them.
	last           *report.Result // the last request shown
	defaultSession string         // the first session: Inject's
	// unjudged is how many released messages will never be judged (they
	// were in flight when a seek dropped them), for settle.
	unjudged int64
}

// New checks the options (the replay's and its config) and prepares the
// session; nothing is sent until Run. An error is about the input: the
// replay.New's errors (an *replay.OptionError, a *replay.ConfigError …),
// or a tape that cannot be read or has a bad line anywhere (New reads
// it through once: refused now, not once the session has begun).
// Neither shows a secret of the replay.
func New(src tape.Source, opts ...Option) (*Session, error) {
	st := defaults()
	for _, o := range opts {
		o(st)
	}
	if _, ok := src.(*tape.Shared); !ok {
		src = tape.Share(src) // read by the check below and by the replay
	}
	j := newJournal()
	ropts := append(slices.Clone(st.replay), replay.Control(st.control...), replay.Events(j.consumer()))
	r, err := replay.New(src, ropts...)
	if err != nil {
		return nil, err
	}
	rd := tape.RedactorOf(r.Secrets())
	if err := readThrough(src, st.maxLine); err != nil {
		return nil, redactedError{err: err, msg: rd.String(err.Error())}
	}
	c := r.Controller()
	return &Session{
		r: r, c: c, j: j, timeout: r.Timeout(), stopAtStart: st.stopAtStart, ln: st.ln,
		look:   func(seq int64) (controller.Msg, bool) { m, ok := c.Lookup(seq); return Shown(m, rd), ok },
		onShow: st.onShow,
		ready:  make(chan struct{}),
	}, nil
}

// readThrough reads the tape to its end, so that a bad line anywhere in
// it is refused by New, before anything is sent. Left to the replay's
// loader, it ended the session a moment after the start, or did not if
// the session ended first: a session quit at once on a tape whose fourth
// line was bad was a report of nothing checked (exit 1) without a word
// of the line, and the same session a moment longer its error (exit 2).
func readThrough(src tape.Source, maxLine int) error {
	tr, err := tape.OpenSource(src, tape.WithMaxLine(maxLine))
	if err != nil {
		return err
	}
	defer tr.Close()
	for {
		if _, err := tr.Next(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// Controller is the session's controller: the browser view and the
// control socket drive the replay through it, beside the session's
// commands.
func (s *Session) Controller() *controller.Controller { return s.c }

// Replay is the replay the session runs, for what it resolved: its
// Secrets (hide them in what you print), Speed, Timeout.
func (s *Session) Replay() *replay.Replay { return s.r }

// errControlStop ends a session whose controller was stopped over the
// control socket.
var errControlStop = errors.New("stopped over the control socket")

// Run runs the replay and its controller, and drive on the calling
// goroutine, with a context that ends when the session does: when the
// target dies or the tape turns out bad further down (the replay ends by
// itself), when a stop comes over the control socket, or when ctx ends.
// The session ends when drive returns; Run then stops the replay and
// returns its report, as far as it went (report.Report.Passed says
// whether every answer judged matched the recording).
//
// The error is the replay's, a *ReplayError, when it ended by itself with
// one (the report is then nil or partial), else drive's, unless a stop over the control
// socket cut drive short (that ends the session as drive returning does).
// The control socket (WithControl) is served until the controller stops,
// with ctx: its end cuts the replies under way.
func (s *Session) Run(ctx context.Context, drive func(ctx context.Context) error) (*report.Report, error) {
	if !s.ran.CompareAndSwap(false, true) {
		return nil, ErrRunTwice
	}
	if s.ln != nil {
		defer s.ln.Close() // Serve closes it too; the second close does nothing
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g, gctx := errgroup.WithContext(sctx)
	// The replay runs until the session ends it (drive returns, or stop
	// over the control socket): its stop is not an interrupt of the
	// replay (a controlled replay's Run does not conclude it as one).
	var rep *report.Report
	var stopped atomic.Bool // by stop over the control socket
	g.Go(func() error {
		err := s.c.Run(gctx)
		if err == nil { // Stop: only the control socket calls it
			stopped.Store(true)
			return errControlStop // ends drive and the replay
		}
		return err
	})
	g.Go(func() error {
		var err error
		rep, err = s.r.Run(gctx)
		return err
	})
	if s.ln != nil {
		// Served once Begin has replayed the handshake: a command sent
		// meanwhile waits in the socket (its client is connected, its line
		// buffered) rather than racing the handshake's steps ("a step is
		// already in progress"). Serve ends when the controller does,
		// which every end of the session brings about, after the replies
		// under way (the reply to a stop among them); at once only when
		// ctx ends. Not with gctx or sctx: their end would cut the reply
		// to a stop.
		g.Go(func() error {
			select {
			case <-s.ready:
				return controller.Serve(ctx, s.c, s.ln)
			case <-gctx.Done():
				return nil
			}
		})
	}
	driveErr := drive(gctx)
	replayFirst := gctx.Err() != nil && sctx.Err() == nil
	cancel()
	runErr := g.Wait()
	if stopped.Load() {
		// A stop over the control socket ends the session as drive
		// returning does.
		if errors.Is(runErr, errControlStop) || errors.Is(runErr, engine.ErrStopped) {
			runErr, replayFirst = nil, false
		}
		if stopErr(driveErr) != nil { // a command cut short by the stop
			driveErr = nil
		}
	}
	if replayFirst && runErr != nil {
		return rep, &ReplayError{Err: runErr} // the target died, or a bad tape
	}
	return rep, driveErr
}

// ReplayError is Run's error when the replay ended the session by itself:
// the target died, a bad tape line further down. Its message is Err's.
type ReplayError struct{ Err error }

func (e *ReplayError) Error() string { return e.Err.Error() }
func (e *ReplayError) Unwrap() error { return e.Err }

// stopErr keeps the errors that end the session: the controller or the
// replay is gone (the replay's own error then says why).
func stopErr(err error) error {
	if errors.Is(err, controller.ErrStopped) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// Ended reports whether err, from a command, says the session has ended
// (its controller stopped, or its context done) rather than that the
// command could not be carried out.
func Ended(err error) bool { return stopErr(err) != nil }

// show hands a result to the OnShow hooks, and keeps the last request's.
func (s *Session) show(r report.Result) {
	if r.Dir != report.DirC2S {
		return
	}
	for _, f := range s.onShow {
		f(r)
	}
	if r.Kind == report.KindRequest {
		rr := r
		s.last = &rr
	}
}

// Shown is m as it may be shown: the values of credential members and
// headers masked (tape.Mask, tape.MaskHeaders), the secrets redacted. The
// results the replay gives have had the same done already.
func Shown(m controller.Msg, rd *tape.Redactor) controller.Msg {
	m.Raw = rd.Bytes(tape.Mask(m.Raw))
	if m.HTTP != nil {
		h := *m.HTTP
		h.Headers = tape.MaskHeaders(h.Headers)
		m.HTTP = &h
	}
	return m
}

// redactedError is err with the secrets hidden from its message;
// errors.Is and errors.As see through it.
type redactedError struct {
	err error
	msg string
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }
