package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// ErrTarget is wrapped by errors that come from the target: it could not be
// reached, or it died.
var ErrTarget = transport.ErrTarget

// pend is a request sent and not yet reported.
type pend struct {
	req      *Item
	sess     *session
	key      string // the sent id
	recKey   string // the recorded id
	sent     time.Time
	deadline time.Time
	expected *Item
	actual   *transport.Incoming
	timedOut bool
	sendErr  error
	attempts int    // retries sent (on_failure: retry)
	lost     bool   // lost in an injected disconnect
	replaced bool   // sent again as another pend (resend)
	edited   []byte // the recorded answer after set_result rules
}

func (p *pend) answered() bool {
	return p.actual != nil || p.timedOut || p.sendErr != nil || p.replaced
}

// arrival is a message from one session's connection, or (msg == nil) the
// news that the connection ended.
type arrival struct {
	session string
	inc     transport.Incoming
	closed  bool
	err     error
}

// executor is the state of the execute stage, owned by its goroutine.
type executor struct {
	e        *Engine
	g        *errgroup.Group
	out      chan<- *outcome
	sessions map[string]*session
	arrivals chan arrival
	dialed   chan dialResult
	done     chan struct{} // closed when the stage returns: forwarders stop
	live     int           // pends not yet reported
	fifo     []*pend       // send order; deadlines are in the same order
	// backlogged counts the items held in sessions' backlogs; past
	// maxBacklog, input waits too (memory stays bounded).
	backlogged int
	inputDone  bool
	end        *Item // the end of the tape, passed on once all is judged
	// The first session's connection is read directly, without a
	// forwarder: one goroutine hand-off less per answer in the common
	// single-session replay.
	direct        <-chan transport.Incoming
	directSession string
	timer         *time.Timer
	armed         *pend         // the request the timer is set for
	retryIDs      int64         // retries sent so far, for their ids
	chaosExpired  chan *pend    // a faulted request's short wait is over
	chaosTimers   []*time.Timer // stopped when the stage returns
}

// execute sends what the client sent, on each session's connection, and
// pairs answers with requests. See the package doc for the order rules.
func (e *Engine) execute(ctx context.Context, g *errgroup.Group, in <-chan *Item, out chan<- *outcome) (err error) {
	x := &executor{
		e: e, g: g, out: out,
		sessions: make(map[string]*session),
		// A buffer per connection would do as well; one shared buffer
		// lets answers queue while execute is busy sending.
		arrivals:     make(chan arrival, 64),
		dialed:       make(chan dialResult),
		chaosExpired: make(chan *pend),
		done:         make(chan struct{}),
		timer:        time.NewTimer(time.Hour),
	}
	// On the way out: close out first, so that validate can finish its
	// clock, then the connections (a server process may take its time).
	defer close(out)
	defer x.close()
	defer func() { // a failed target: what was in flight is reported, not lost
		if errors.Is(err, ErrTarget) {
			x.abandon(ctx, err)
		}
	}()
	for in != nil || x.live > 0 || x.backlogged > 0 {
		if err := x.passEnd(ctx); err != nil {
			return err
		}
		x.armTimer()
		var inCh <-chan *Item
		if x.backlogged < maxBacklog {
			inCh = in
		}
		select {
		case it, ok := <-inCh:
			if !ok {
				in = nil
				for _, ss := range x.sessions { // the last runs of OrderRandom
					if err := x.flushRun(ctx, ss); err != nil {
						return err
					}
				}
				x.inputDone = true
				if err := x.settleAll(ctx); err != nil {
					return err
				}
				continue
			}
			if err := x.handle(ctx, it); err != nil {
				return err
			}
		case a := <-x.arrivals:
			if err := x.arrive(ctx, a); err != nil {
				return err
			}
		case inc, ok := <-x.direct:
			a := arrival{session: x.directSession, inc: inc}
			if !ok {
				a = arrival{session: x.directSession, closed: true, err: x.sessions[x.directSession].conn.Err()}
				x.direct = nil
			}
			if err := x.arrive(ctx, a); err != nil {
				return err
			}
		case r := <-x.dialed:
			if err := x.connected(ctx, r); err != nil {
				return err
			}
		case p := <-x.chaosExpired:
			if !p.answered() {
				if err := x.timeOut(ctx, p); err != nil {
					return err
				}
			}
		case req := <-x.e.rewinds:
			req.done <- x.rewind(req.seq)
		case req := <-x.e.injects:
			if err := x.inject(ctx, req); err != nil {
				return err
			}
		case now := <-x.timer.C:
			if err := x.expire(ctx, now); err != nil {
				return err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// armTimer points the timer at the oldest unanswered request's deadline.
// Deadlines are in send order, so only a change of the oldest one moves
// the timer; the runtime's timer lock is not taken on every message.
func (x *executor) armTimer() {
	for len(x.fifo) > 0 && x.fifo[0].answered() {
		x.fifo[0] = nil
		x.fifo = x.fifo[1:]
	}
	var head *pend
	if len(x.fifo) > 0 {
		head = x.fifo[0]
	}
	if head == x.armed {
		return
	}
	x.armed = head
	x.timer.Stop()
	if head != nil {
		x.timer.Reset(time.Until(head.deadline))
	}
}

// maxBacklog bounds the recorded messages held back for busy sessions.
const maxBacklog = 4096

// handle takes the next recorded message: at once, or into its session's
// backlog while that session waits (other sessions go on).
func (x *executor) handle(ctx context.Context, it *Item) error {
	if x.e.stale(it) {
		x.sentOrDropped(it)
		return nil
	}
	if it.End {
		x.end = it
		return nil
	}
	ss := x.sessions[it.Rec.Session]
	if ss == nil {
		if it.Rec.Dir == tape.S2C {
			return x.emit(ctx, &outcome{Epoch: it.Epoch, Req: it, Skipped: "recorded server message before its session's first client message"})
		}
		var err error
		if ss, err = x.session(ctx, it.Rec.Session); err != nil {
			return err
		}
	}
	if x.e.cfg.Order == OrderRandom {
		if it.paced() && !it.Injected {
			ss.run = append(ss.run, it) // shuffled when the run ends
			if len(ss.run) < maxRun {
				return nil
			}
			return x.flushRun(ctx, ss)
		}
		if err := x.flushRun(ctx, ss); err != nil {
			return err
		}
	}
	return x.take(ctx, ss, it)
}

// take processes a recorded message now, or keeps it in the session's
// backlog while the session waits.
func (x *executor) take(ctx context.Context, ss *session, it *Item) error {
	if len(ss.backlog) > 0 || ss.held(x.e.cfg.MaxInflight) {
		ss.backlog = append(ss.backlog, it)
		x.backlogged++
		return nil
	}
	return x.process(ctx, ss, it)
}

// drain processes a session's backlog for as long as the session may go on,
// then settles it if nothing more can be recorded for it.
func (x *executor) drain(ctx context.Context, ss *session) error {
	for len(ss.backlog) > 0 && !ss.held(x.e.cfg.MaxInflight) {
		it := ss.backlog[0]
		ss.backlog[0] = nil
		ss.backlog = ss.backlog[1:]
		x.backlogged--
		if x.e.stale(it) {
			x.sentOrDropped(it)
			continue
		}
		if err := x.process(ctx, ss, it); err != nil {
			return err
		}
	}
	return x.settle(ctx, ss)
}

// process replays one recorded message of a session that may go on.
func (x *executor) process(ctx context.Context, ss *session, it *Item) error {
	if it.Rec.Dir == tape.S2C {
		return x.recorded(ctx, ss, it)
	}
	if isAnswer(it.RPC.Kind) {
		x.sentOrDropped(it)
		return x.clientAnswer(ctx, ss, it)
	}
	if it.InjectError != nil && it.RPC.Kind == jsonrpc.KindRequest {
		return x.injectError(ss, it)
	}
	if !it.Injected && (it.RPC.Method == "initialize" || it.RPC.Method == "notifications/initialized") {
		ss.handshake = append(ss.handshake, it) // replayed after a reconnect
	}
	if ss.dead {
		return x.sendOne(ctx, ss, it) // reported as skipped: its server died
	}
	if f := it.Fault; f != nil && f.Kind == chaos.Disconnect {
		return x.disconnect(ctx, ss, it)
	}
	if f := it.Fault; f != nil && f.Kind == chaos.Reorder && !it.reordered {
		it.reordered = true // held back behind the next few messages
		ss.heldBack = append(ss.heldBack, heldItem{it: it, left: f.ReorderWindow() - 1})
		return nil
	}
	if err := x.sendOne(ctx, ss, it); err != nil {
		return err
	}
	return x.releaseHeld(ctx, ss, false)
}

// sendOne sends a client message (or answers it, for inject_error) and
// registers the request in flight.
func (x *executor) sendOne(ctx context.Context, ss *session, it *Item) error {
	if ss.dead {
		x.sentOrDropped(it)
		return x.emit(ctx, &outcome{Epoch: it.Epoch, Req: it, Skipped: "the server of this session died (chaos)"})
	}
	sent := time.Now()
	var err error
	if it.Fault != nil && it.Fault.Kind.Outbound() {
		var answerable bool
		answerable, err = x.sendFaulted(ctx, ss, it)
		if err == nil && !answerable {
			x.sentOrDropped(it)
			return x.emit(ctx, &outcome{Epoch: it.Epoch, Req: it, Skipped: "dropped (chaos)"})
		}
		if it.Fault.Kind == chaos.SlowWrite {
			sent = time.Now() // its answer is timed from the end of the write
		}
	} else {
		err = x.sendRetry(ctx, ss.conn, it.Out)
	}
	x.sentOrDropped(it)
	if err != nil {
		return x.sendFailed(ctx, ss, it, sent, err)
	}
	if it.RPC.Kind != jsonrpc.KindRequest {
		return x.emit(ctx, &outcome{Epoch: it.Epoch, Req: it, Sent: sent})
	}
	p := &pend{
		req: it, sess: ss, sent: sent, deadline: sent.Add(x.e.cfg.Timeout),
		key:    jsonrpc.IDKey(it.SentID),
		recKey: jsonrpc.IDKey(it.RPC.ID),
	}
	ss.sent[p.key] = p
	ss.byRec[p.recKey] = p
	ss.inflight++
	x.live++
	x.fifo = append(x.fifo, p)
	if x.e.cfg.Order == OrderSequential {
		ss.waitFor = p
	}
	ss.prevID = it.SentID
	if f := it.Fault; f != nil && f.Kind.Outbound() && chaos.Expect(*f).Want != chaos.WantRecorded {
		// The server may rightly not answer: wait a short while only.
		ss.faulted = append(ss.faulted, p)
		x.chaosDeadline(p, sent.Add(min(chaosWait, x.e.cfg.Timeout)))
	}
	return nil
}

// sendFailed handles a message the target did not take: an HTTP refusal
// (an answer of a kind, for a faulted message; an error verdict else), a
// server that died under chaos, or a target that failed.
func (x *executor) sendFailed(ctx context.Context, ss *session, it *Item, sent time.Time, err error) error {
	var he *transport.HTTPError
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &he) && it.Fault != nil:
		return x.emit(ctx, &outcome{Epoch: it.Epoch, Req: it, Sent: sent, Actual: refusal(he)})
	case errors.As(err, &he) && it.RPC.Method == "initialize":
		// Refusing the handshake is not an answer: this is no MCP server.
		return fmt.Errorf("%w: session %s: the server refused initialize: %w", ErrTarget, ss.name, err)
	case errors.As(err, &he):
		// The target refused this message and lives on.
		return x.emit(ctx, &outcome{Epoch: it.Epoch, Req: it, Sent: sent, Err: err})
	case x.e.cfg.Chaos != nil:
		if err := x.emit(ctx, &outcome{Epoch: it.Epoch, Req: it, Sent: sent, Err: err}); err != nil {
			return err
		}
		return x.died(ctx, ss, err)
	}
	return x.targetDied(ss, fmt.Errorf("send seq %d: %w", it.Rec.Seq, err))
}
