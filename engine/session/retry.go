package session

import (
	"context"
	"fmt"
	"time"

	"github.com/cenkalti/backoff/v4"

	"github.com/replayctl/replayctl/transport"
)

// sendRetry sends msg (of it), retrying answers that may succeed later (HTTP
// 408, 429, 5xx) with exponential backoff, never sooner than the server's
// Retry-After, at most MaxRetries times and within Timeout. Other errors
// return at once. It may run on a goroutine of its own (async.go): of it
// it reads only what never changes (its seq, session and method, for the
// retry events).
func (r *sender) sendRetry(ctx context.Context, v via, msg []byte, it *Item) error {
	if v.aside != nil && it.Injected {
		return v.aside.SendAside(ctx, msg) // not on the tape: uses none of its answers
	}
	return r.retry(ctx, v.conn, msg, it, sendFirst(ctx, v, msg, it))
}

// sendBy is sendRetry under ctx bounded by deadline. A
// transport.DeadlineSender's first attempt is made with no context of
// its own (a context and a timer per request); a retry gets one.
func (r *sender) sendBy(ctx context.Context, v via, msg []byte, it *Item, deadline time.Time) error {
	if v.deadline == nil || it.Injected { // an injected message may be sent aside (sendRetry)
		sctx, cancel := context.WithDeadline(ctx, deadline)
		defer cancel()
		return r.sendRetry(sctx, v, msg, it)
	}
	err := v.deadline.SendBy(ctx, msg, deadline)
	if !temporary(err) {
		return err
	}
	sctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	return r.retry(sctx, v.conn, msg, it, err)
}

// via is a connection to send a request on, with the ways to send it
// that the connection has beyond Send (nil: not that one), found once
// per connection (viaOf, by session.setConn): a type assertion per
// message calls runtime.getitab (see session.async). A value, so that a
// send on a goroutine of its own keeps the connection it was made for.
type via struct {
	conn     transport.Conn
	parsed   parsedSender
	aside    transport.AsideSender
	deadline transport.DeadlineSender
}

// viaOf is c with the ways to send on it (nil c: none).
func viaOf(c transport.Conn) via {
	v := via{conn: c}
	if c != nil {
		v.parsed, _ = c.(parsedSender)
		v.aside, _ = c.(transport.AsideSender)
		v.deadline, _ = c.(transport.DeadlineSender)
	}
	return v
}

// retry is sendRetry after the first attempt, which ended in err.
func (r *sender) retry(ctx context.Context, conn transport.Conn, msg []byte, it *Item, err error) error {
	x := r.x
	if !temporary(err) {
		return err // the hot path: no backoff state is made
	}
	exp := backoff.NewExponentialBackOff()
	exp.InitialInterval = 100 * time.Millisecond
	if x.env.RetryDelay > 0 {
		exp.InitialInterval = x.env.RetryDelay
	}
	exp.MaxElapsedTime = x.env.Timeout
	b := backoff.WithContext(backoff.WithMaxRetries(exp, uint64(x.env.MaxRetries)), ctx)
	deadline, _ := ctx.Deadline()
	for attempt := 1; temporary(err); attempt++ {
		next := b.NextBackOff()
		wait, ok := retryWait(err, next, time.Now(), deadline)
		if next == backoff.Stop {
			return err
		}
		// Retry-After is honoured only within the time the request has.
		if !ok {
			x.env.Log.Warn().Err(err).Str("retry_after", wait.Round(time.Millisecond).String()).Msg("target asked to retry later than the request's deadline; giving up")
			return fmt.Errorf("%w (the target asked to retry in %s, later than the %s the request has: raise the timeout)", err, wait.Round(time.Millisecond), x.env.Timeout)
		}
		x.env.Log.Warn().Err(err).Str("retry_in", wait.Round(time.Millisecond).String()).Msg("target asked to retry")
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
		x.ev.retry(it, attempt, "http_status", err)
		err = conn.Send(ctx, msg)
	}
	return err
}
