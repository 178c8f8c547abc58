package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// pend is a request sent and not yet reported.
type pend struct {
	req      *Item
	sess     *session
	key      idKey // the sent id
	recKey   idKey // the recorded id
	sent     time.Time
	deadline time.Time
	expected *Item
	actual   *transport.Incoming
	live     transport.Incoming // what actual points to once answered
	out      Outcome            // what finish reports, once
	timedOut bool
	sendErr  error
	attempts int    // retries sent (on_failure: retry)
	lost     bool   // lost in an injected disconnect
	replaced bool   // sent again as another pend (resend)
	edited   []byte // the recorded answer after set_result rules
	anchored bool   // initialize: the session's clock was anchored on it
	// asRecorded: the live answer is the recorded one but for its id,
	// byte for byte (parseLive), so no live value differs from its
	// recorded one (learnLive).
	asRecorded bool
	// pollingSince is when a tasks/get first went out, while it is sent
	// again until the live task ends (live.go).
	pollingSince time.Time
	// pollWait: a tasks/get answered, waiting for its next poll (live.go).
	// Not in flight: its answer took it out of the session's count.
	pollWait bool
	// pollGaveUp: timed out while it waited for its next poll, the task
	// still going at its last answer; noted: notifications/cancelled went
	// out for it (timeOut).
	pollGaveUp, noted bool
	// listenEnded: a subscriptions/listen left open by the recording,
	// ended with the tape (conns.go).
	listenEnded bool
}

func (p *pend) answered() bool {
	return p.actual != nil || p.timedOut || p.sendErr != nil || p.replaced || p.listenEnded
}

// givenUp takes a request given up (timed out, failed, lost) out of its
// session's count in flight, unless it waits for its next poll: its
// answer took it out then.
func (p *pend) givenUp() {
	if p.pollWait {
		p.pollWait = false
		return
	}
	p.sess.inflight--
}

// sender is the actor's part that sends: each recorded client message
// (or answers it, for inject_error), through the gate, with retries, and
// without waiting over connections that allow it (async.go).
type sender struct{ x *Actor }

// process replays one recorded message of a session that may go on.
func (r *sender) process(ctx context.Context, ss *session, it *Item) error {
	x := r.x
	if it.Rec.Dir == tape.S2C {
		return x.rx.recorded(ctx, ss, it)
	}
	if isAnswer(it.RPC.Kind) {
		x.sentOrDropped(it)
		return x.rx.clientAnswer(ctx, ss, it)
	}
	if it.injectError() != nil && it.RPC.Kind == jsonrpc.KindRequest {
		return x.rq.injectError(ss, it)
	}
	if !it.Injected && (it.RPC.Method == mcp.MethodInitialize || it.RPC.Method == mcp.NotificationInitialized) {
		ss.handshake = append(ss.handshake, it.detached()) // replayed after a reconnect
	}
	if ss.dead {
		return x.tx.sendOne(ctx, ss, it) // reported as skipped: its server died
	}
	if f := it.Fault; f != nil && f.Kind == chaos.Disconnect {
		return x.fx.disconnect(ctx, ss, it)
	}
	if f := it.Fault; f != nil && f.Kind == chaos.Reorder && !it.reordered {
		it.reordered = true // held back behind the next few messages
		ss.heldBack = append(ss.heldBack, heldItem{it: it, left: f.ReorderWindow() - 1})
		return nil
	}
	if err := x.tx.sendOne(ctx, ss, it); err != nil {
		return err
	}
	return x.fx.releaseHeld(ctx, ss, false)
}

// sendOne sends a client message (or answers it, for inject_error) and
// registers the request in flight.
func (r *sender) sendOne(ctx context.Context, ss *session, it *Item) error {
	x := r.x
	if ss.dead {
		x.sentOrDropped(it)
		return x.emit(ctx, &Outcome{Epoch: it.Epoch, Req: it, Skipped: "the server of this session died (chaos)"})
	}
	x.rq.liveValues(ss, it)
	it.After = ss.altered
	if faultInjectedAtSend(it.Fault) {
		x.ev.fault(it)
	}
	if f := it.Fault; f != nil && f.Kind == chaos.NetworkError && x.env.MaxRetries == 0 {
		// The connection failed as the request was written: the server
		// never got it, and without retries nobody sends it again.
		ss.altered = f
		x.sentOrDropped(it)
		return x.emit(ctx, &Outcome{Epoch: it.Epoch, Req: it, Err: ErrNetworkFault})
	}
	// With retries, the attempt the network error spoiled never reached
	// the server: what goes out now is the retry, which it gets once.
	async := x.tx.async(ss, it)
	if !async && ss.concurrent && len(x.outs) > 0 {
		// A Send that holds the actor: what it kept goes on first. The
		// flush may wait for the sink (validate backed up); that wait is
		// not the message's send time, nor part of its deadline, so the
		// send time is read after it (as due does for its spin).
		if err := x.flush(ctx); err != nil {
			return err
		}
		x.sendAt = time.Time{} // stale once waited
	}
	sent := x.tx.now()
	it.Held = heldFor(ss, it, sent)
	if async {
		x.ev.sent(it, sent)
		x.tx.sendAsync(ctx, ss, it, sent)
		return nil
	}
	// No send outlives the time its request has to be answered. A send
	// that returns at once (the mock's) needs no deadline; a faulted one
	// may be slowed down (chaos), and has one.
	sctx := ctx
	if (it.Fault != nil && it.Fault.Kind.Outbound()) || !ss.instant {
		var cancel context.CancelFunc
		sctx, cancel = context.WithDeadline(ctx, sent.Add(x.env.Timeout))
		defer cancel()
	}
	var err error
	if it.Fault != nil && it.Fault.Kind.Outbound() {
		var answerable bool
		answerable, err = x.fx.sendFaulted(sctx, ss, it)
		if err == nil && !answerable {
			x.sentOrDropped(it)
			return x.emit(ctx, &Outcome{Epoch: it.Epoch, Req: it, Skipped: "dropped (chaos)"})
		}
		if it.Fault.Kind == chaos.SlowWrite {
			sent = time.Now() // its answer is timed from the end of the write
		}
	} else {
		err = x.tx.sendRetry(sctx, ss.via, it.Out, it)
		if !ss.instant {
			from := sent
			if !ss.sendTo.IsZero() && !it.Due.After(ss.sendTo) {
				from = ss.sendFrom // it waited through the send before too: one wait
			}
			ss.sendFrom, ss.sendTo = from, time.Now()
		}
	}
	x.sentOrDropped(it)
	if err != nil {
		return x.tx.sendFailed(ctx, ss, it, sent, err)
	}
	x.ev.sent(it, sent)
	if it.RPC.Kind != jsonrpc.KindRequest {
		return x.emit(ctx, &Outcome{Epoch: it.Epoch, Req: it, Sent: sent})
	}
	x.rq.inFlight(ss, it, sent)
	return nil
}

// now is the send time of the message being sent: the clock read drain
// made for it a moment ago, taken once, or the clock.
func (r *sender) now() time.Time {
	x := r.x
	if t := x.sendAt; !t.IsZero() {
		x.sendAt = time.Time{}
		return t
	}
	return time.Now()
}

// inFlight registers a request sent at sent as waiting for its answer.
func (r *requests) inFlight(ss *session, it *Item, sent time.Time) *pend {
	x := r.x
	p := r.newPend()
	*p = pend{req: it, sess: ss, sent: sent, deadline: sent.Add(x.env.Timeout)}
	p.key, p.recKey = keysOf(it.SentID, it.RPC.ID)
	ss.sent.put(p.key, p)
	ss.byRec.put(p.recKey, p)
	ss.inflight++
	x.rq.live++
	x.rq.fifo = append(x.rq.fifo, p)
	if x.env.Order.waitsForOwn() {
		ss.waitFor = p
	}
	ss.prevID = append(ss.prevID[:0], it.SentID...) // a copy: SentID is in a shared block
	if f := it.Fault; f != nil && f.Kind.Outbound() && chaos.Expect(*f).Want != chaos.WantRecorded {
		// The server may rightly not answer: wait a short while only.
		ss.faulted = append(ss.faulted, p)
		x.fx.chaosDeadline(p, sent.Add(min(chaosWait, x.env.Timeout)))
	}
	return p
}

// newPend returns a new pend for a request sent, from a block of
// pendBlock where each was an allocation of its own. A block lives as
// long as any of its pends (an outcome handed on is in its pend's
// memory): a few kilobytes.
func (r *requests) newPend() *pend {
	if len(r.block) == 0 {
		r.block = make([]pend, pendBlock)
	}
	p := &r.block[0]
	r.block = r.block[1:]
	return p
}

const pendBlock = 16

// ownDeadline is the deadline of a message sent at sent under timeout
// (zero: none).
func ownDeadline(sent time.Time, timeout time.Duration) time.Time {
	if timeout <= 0 {
		return time.Time{}
	}
	return sent.Add(timeout)
}

// sendFailed handles a message the target did not take: an HTTP refusal
// (an answer of a kind, for a faulted message; an error verdict else), a
// server that died under chaos, or a target that failed.
func (r *sender) sendFailed(ctx context.Context, ss *session, it *Item, sent time.Time, err error) error {
	x := r.x
	fate, he := x.sendFate(ctx, sent, err)
	switch {
	case fate == sendInterrupted:
		return ctx.Err()
	case fate == sendNotTaken && !isRequest(it):
		// A notification or an answer the target did not take: an error
		// of the message, not a timeout (timeouts count requests).
		return x.emit(ctx, &Outcome{Epoch: it.Epoch, Req: it, Sent: sent,
			Err: fmt.Errorf("the target did not take the message within %s (the timeout): %w", x.env.Timeout, err)})
	case fate == sendNotTaken:
		// The target did not take the message (an HTTP answer's headers
		// never came) within the time its answer had.
		return x.emit(ctx, &Outcome{Epoch: it.Epoch, Req: it, Sent: sent, Timeout: true,
			Err: fmt.Errorf("no answer within %s (the timeout): the target did not take the message: %w", x.env.Timeout, err)})
	case fate == sendRefused && it.Fault != nil:
		return x.emit(ctx, &Outcome{Epoch: it.Epoch, Req: it, Sent: sent, Actual: refusal(he)})
	case fate == sendRefused && it.RPC.Method == mcp.MethodInitialize:
		// Refusing the handshake is not an answer: this is no MCP server.
		return fmt.Errorf("%w: session %s: the server refused initialize: %w", ErrTarget, ss.name, err)
	case fate == sendRefused:
		// The target refused this message and lives on.
		return x.emit(ctx, &Outcome{Epoch: it.Epoch, Req: it, Sent: sent, Err: err})
	case isTapeErr(err):
		return err // the built-in mock cannot read the tape: the run ends with the tape's error
	case x.env.Chaos != nil && !overLimit(ss, err):
		if err := x.emit(ctx, &Outcome{Epoch: it.Epoch, Req: it, Sent: sent, Err: err}); err != nil {
			return err
		}
		return x.fx.died(ctx, ss, err)
	}
	return x.targetDied(ss, fmt.Errorf("send seq %d: %w", it.Rec.Seq, err))
}

// sendFate is what the error of a send the target did not take says.
type sendFate int

const (
	sendInterrupted sendFate = iota // the run was stopped (ctx is done)
	sendNotTaken                    // not taken within its time; the target lives on
	sendRefused                     // refused over HTTP (an *transport.HTTPError); the target lives on
	sendDied                        // else: the connection failed
)

// sendFate sorts the error of a send made at sent, for sendFailed and
// answerFailed alike; for sendRefused it returns the HTTP refusal too.
func (x *Actor) sendFate(ctx context.Context, sent time.Time, err error) (sendFate, *transport.HTTPError) {
	var he *transport.HTTPError
	switch {
	case ctx.Err() != nil, interruptedBy(ctx, err, ownDeadline(sent, x.env.Timeout)):
		return sendInterrupted, nil
	case errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, ErrTarget):
		return sendNotTaken, nil
	case errors.As(err, &he):
		return sendRefused, he
	}
	return sendDied, nil
}

// isTapeErr reports whether a send failed on a bad tape (a *tape.Error):
// the built-in mock, answering from the tape the replay streams, could
// not read the answer. Not the target's failure: the run stops with the
// tape's error, as the loader reports it.
func isTapeErr(err error) bool {
	_, ok := errors.AsType[*tape.Error](err)
	return ok
}

// ErrNetworkFault is the fate of a request whose network-error fault is
// not retried (--max-retries 0).
var ErrNetworkFault = errors.New("injected network error (chaos): the connection failed as the request was written, so the server never got it; not retried (--max-retries 0)")

// heldFor is how long a message waited, past the time it was free to go
// by the schedule, for the target: the order rule, the in-flight limit or
// the connection. The rest of its lateness is the replayer's own (lag).
func heldFor(ss *session, it *Item, sent time.Time) time.Duration {
	ready := it.Due // when it was free to go by the schedule
	if ready.IsZero() {
		return 0
	}
	var held time.Duration
	if !ss.freeAt.IsZero() && ss.freeAt.After(ready) {
		held = min(ss.freeAt.Sub(ready), sent.Sub(ready))
	}
	// The part of the last send that waited for the target after this
	// message was due: the target held it, the replayer did not lag.
	from, to := ss.sendFrom, ss.sendTo
	if from.Before(ready) {
		from = ready
	}
	if to.After(sent) {
		to = sent
	}
	if to.After(from) {
		held = max(held, to.Sub(from))
	}
	return held
}
