package session

// Requests sent without waiting, on connections whose Send holds its
// caller until the target begins to answer (Streamable HTTP).

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/transport"
)

// sendResult is how a send made without waiting ended.
type sendResult struct {
	p   *pend
	err error
}

// async reports whether a message goes out without the session waiting
// for its Send to return: a request (not the handshake, which gives the
// session its id, and not one carrying a fault) on a connection that
// allows it. Over HTTP a Send returns only when the answer's headers come;
// waiting for it would let one slow answer hold up every later message of
// the session, which the recorded client did not do.
func (r *sender) async(ss *session, it *Item) bool {
	if !isRequest(it) || it.Fault != nil || it.RPC.Method == mcp.MethodInitialize {
		return false
	}
	return ss.concurrent
}

// holdsSender reports whether a Send on c holds its caller until the
// target begins to answer (Streamable HTTP): the actor hands on the
// outcomes it keeps (flush) before such a send, as before any wait. A
// write to a pipe or the mock does not wait for the target to answer.
// Asked once per connection, by session.setConn: session.concurrent
// says it without a type assertion per send.
func holdsSender(c transport.Conn) bool {
	cs, ok := c.(transport.ConcurrentSender)
	return ok && cs.SendsConcurrently()
}

// sendAsync registers the request as in flight and sends it without
// waiting: handed to the connection (transport.AsyncSender) when it
// can, else on a goroutine of the actor's. sendDone tells the actor of a
// send that failed; one that went through needs nothing more (its
// answer comes on the connection).
func (r *sender) sendAsync(ctx context.Context, ss *session, it *Item, sent time.Time) {
	x := r.x
	x.sentOrDropped(it)
	p := x.rq.inFlight(ss, it, sent)
	v, conn, msg := ss.via, ss.conn, it.Out
	// No send outlives the time its request has to be answered.
	if as := ss.async; as != nil && !it.Injected { // an injected message may be sent aside (sendBy)
		x.sends.Add(1)
		if as.SendAsync(x.ctx, msg, p.deadline, func(err error) { x.tx.handedEnded(conn, it, p, err) }) {
			return
		}
		x.sends.Done()
	}
	x.sends.Go(func() {
		x.tx.sendEndedAsync(p, x.tx.sendBy(x.ctx, v, msg, it, p.deadline))
	})
}

// handedEnded is told, on the connection's goroutine, how a send handed
// to it ended. It must not wait: a failure that may be retried, or is to
// be told to the actor, goes on a goroutine of the actor's.
func (r *sender) handedEnded(conn transport.Conn, it *Item, p *pend, err error) {
	if err == nil {
		r.x.sends.Done()
		return
	}
	go r.handedFailed(conn, it, p, err)
}

// handedFailed retries a send handed to the connection that failed, as
// sendBy retries, and tells the actor how it ended.
func (r *sender) handedFailed(conn transport.Conn, it *Item, p *pend, err error) {
	x := r.x
	defer x.sends.Done()
	if temporary(err) {
		sctx, cancel := context.WithDeadline(x.ctx, p.deadline)
		err = r.retry(sctx, conn, it.Out, it, err)
		cancel()
	}
	r.sendEndedAsync(p, err)
}

// sendEndedAsync tells the actor how a send made without waiting
// ended, unless it went through.
func (r *sender) sendEndedAsync(p *pend, err error) {
	if err == nil {
		return
	}
	x := r.x
	select {
	case x.sendDone <- sendResult{p: p, err: err}:
	case <-x.ctx.Done():
	}
}

// sendEnded handles the end of a send made without waiting: nothing to do
// when it went through; else the request failed as sendFailed says.
func (r *sender) sendEnded(ctx context.Context, res sendResult) error {
	x := r.x
	p, err := res.p, res.err
	if err == nil || p.answered() {
		return nil // the answer, a timeout or a seek came first
	}
	ss := p.sess
	var he *transport.HTTPError
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case interruptedBy(ctx, err, p.deadline):
		return ctx.Err()
	case errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, ErrTarget):
		return x.rq.timeOut(ctx, p, x.timedOutAfter()) // the answer's headers never came
	case isTapeErr(err):
		return err // see sendFailed
	case errors.As(err, &he):
		// The target refused this request and lives on: its refusal is
		// the answer, judged when the recorded one is known.
		p.sendErr = err
	case x.env.Chaos != nil && !overLimit(ss, err):
		p.sendErr = err
		p.givenUp()
		if err := x.rq.finishIfDone(ctx, p); err != nil {
			return err
		}
		return x.fx.died(ctx, ss, err)
	default:
		return x.targetDied(ss, fmt.Errorf("send seq %d: %w", p.req.Rec.Seq, err))
	}
	p.givenUp()
	return x.rq.finishIfDone(ctx, p)
}
