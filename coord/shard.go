package coord

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/replayctl/replayctl/report"
)

// ErrStopped is the cause a coordinated shard's replay context is
// cancelled with (wrapped, with why) when the coordinator stops it, or
// cannot be reached for the heartbeat.
var ErrStopped = errors.New("stopped by the coordinator")

// Shard is a shard's side of a coordinated run once it has joined: the
// control poll that hears a Stop and the stream of its intervals run
// beside its replay until Finish. Join makes one.
type Shard struct {
	client *Client
	stream *Stream
	start  time.Time
	ctx    context.Context
	cancel context.CancelCauseFunc
	end    chan struct{}
	wg     sync.WaitGroup
	// sendErr is the last interval's send, read once wg is done.
	sendErr  error
	mu       sync.Mutex      // guards stopped and stopKind
	stopped  string          // why the coordinator stopped the shard
	stopKind report.StopKind // and the stop's kind: interrupted, or a failure
}

// Join registers the shard hello with the coordinator at url (sending
// token, "" for none), waits for the common start, and starts the
// control poll and the stream of st's intervals. It returns when the
// start is set; the shard's replay then runs in s.Context(), anchored to
// s.Start() (replay.StartAt).
//
// When the coordinator tells the shard not to run, Join returns a nil
// Shard and the Stop reply (its Reason says why). Errors: one wrapping
// ErrRefused when the coordinator refused the shard (a count or
// fingerprint other than the run's: it will never take it); ctx's when
// ctx is done first; else the coordinator could not be reached (opts:
// ReachTimeout, how long to try).
func Join(ctx context.Context, url, token string, hello Hello, st *Stream, opts ...ClientOption) (*Shard, Reply, error) {
	c := NewClient(url, token, hello, opts...)
	reply, err := c.Register(ctx)
	// Resume: a register retried after its answer was lost; the start may
	// not be set yet.
	if err == nil && (reply.Action == Run || reply.Action == Resume && reply.Start.IsZero()) {
		reply, err = c.WaitStart(ctx)
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, reply, fmt.Errorf("interrupted while waiting for the coordinator: %w", ctx.Err())
	case err != nil:
		return nil, reply, err
	case reply.Action == Stop:
		return nil, reply, nil
	}
	s := &Shard{client: c, stream: st, start: reply.Start, end: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancelCause(ctx)
	calls := context.WithoutCancel(ctx) // the last interval and the report go out after an interrupt
	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		r, err := c.WatchStop(s.ctx)
		if err != nil && s.ctx.Err() == nil {
			r = Reply{Reason: "lost the coordinator: " + err.Error(), Kind: report.StopFailure}
		}
		if r.Reason != "" {
			s.stop(r.Reason, r.Kind)
		}
	}()
	go func() {
		defer s.wg.Done()
		s.sendErr = c.Stream(calls, st, s.stop, s.end)
	}()
	return s, reply, nil
}

// Start is the common start of the run, which the shard's clock is
// anchored to.
func (s *Shard) Start() time.Time { return s.start }

// Context is the context to run the shard's replay in: it is cancelled,
// with a cause wrapping ErrStopped, when the coordinator stops the
// shard, and with Join's context.
func (s *Shard) Context() context.Context { return s.ctx }

// stop stops the shard's replay: the coordinator said so (why), a stop
// of kind ("" is a failure).
func (s *Shard) stop(why string, kind report.StopKind) {
	s.mu.Lock()
	if s.stopped == "" {
		s.stopped, s.stopKind = why, kind
	}
	s.mu.Unlock()
	s.cancel(fmt.Errorf("%w: %s", ErrStopped, why))
}

// Finish ends the shard's part: it stops the control poll, sends the
// last interval and then the shard's report rep (or, when rep is nil,
// runErr as why there is none), and returns when both are sent; ctx's
// end does not cut them short (an interrupted shard still reports). A
// replay the coordinator stopped (and ctx was not done) is reported as
// such: stopped by the coordinator, failed, or interrupted when the
// coordinator was (the stop's kind, see StoppedBy). Call it once.
func (s *Shard) Finish(ctx context.Context, rep *report.Report, runErr error) error {
	stopped, kind := s.StoppedBy()
	interrupted := ctx.Err() != nil
	if rep != nil && stopped != "" && !interrupted {
		if kind == report.StopInterrupted {
			rep.Interrupted()
		} else {
			rep.Summary.Stopped = report.StopFailure
		}
		rep.Summary.Aborted = "stopped by the coordinator: " + stopped
		rep.Summary.Passed = false
	}
	close(s.end)
	s.cancel(nil) // ends the control poll
	s.wg.Wait()
	f := Final{Report: rep, FirstSent: s.stream.FirstSent()}
	if rep == nil && runErr != nil {
		f.Error = runErr.Error()
	}
	return errors.Join(s.sendErr, s.client.Deliver(context.WithoutCancel(ctx), f))
}

// StoppedBy returns why the coordinator stopped the shard ("" when it did
// not) and the stop's kind: report.StopInterrupted when the coordinator
// was interrupted, else report.StopFailure.
func (s *Shard) StoppedBy() (why string, kind report.StopKind) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped != "" && s.stopKind == "" {
		return s.stopped, report.StopFailure
	}
	return s.stopped, s.stopKind
}

// serveReadHeaderTimeout bounds how long Serve waits for a request's
// headers.
const serveReadHeaderTimeout = 10 * time.Second

// Serve serves the coordinator on ln until the run is over (see Run),
// and returns its merged report. When ctx is done it tells every shard
// to stop (Stop) and still waits for their reports, or for them to be
// lost. When ln fails, no shard can reach the coordinator any more: it
// stops the run the same way, and its error joins Run's. It closes the
// HTTP server it started, long polls and all, before it returns; ln is
// closed with it.
func (s *Server) Serve(ctx context.Context, ln net.Listener) (*report.Report, error) {
	hs := &http.Server{Handler: s, ReadHeaderTimeout: serveReadHeaderTimeout}
	served := make(chan error, 1)
	go func() {
		err := hs.Serve(ln)
		if !errors.Is(err, http.ErrServerClosed) {
			s.Stop(fmt.Sprintf("the coordinator stopped serving on %s: %v", ln.Addr(), err))
		}
		served <- err
	}()
	stop := context.AfterFunc(ctx, func() { s.Interrupt("the coordinator was interrupted") })
	rep, err := s.Run(context.WithoutCancel(ctx))
	if interrupted := !stop(); interrupted && rep != nil && rep.Summary.Stopped != "" {
		// The shards say they were interrupted (the stop's kind); one
		// that does not know it (an older replayctl) says it failed: the
		// run they make up was interrupted.
		rep.Interrupted()
	}
	_ = hs.Close() // the long polls too
	if serveErr := <-served; !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(err, fmt.Errorf("serve the coordinator on %s: %w", ln.Addr(), serveErr))
	}
	return rep, err
}
