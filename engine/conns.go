package engine

// The sessions' connections: dialling, forwarding, reconnecting after a
// seek (rewind), injecting, closing.

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/replayctl/replayctl/transport"
)

// session returns the named session, dialling its connection on first
// use. The first session is dialled at once; later ones in the background,
// their messages held in their backlog meanwhile, so that connecting one
// session (starting a server process, say) never holds up the others.
func (x *executor) session(ctx context.Context, name string) (*session, error) {
	if ss, ok := x.sessions[name]; ok {
		return ss, nil
	}
	ss := newSession(name, nil)
	x.sessions[name] = ss
	if x.directSession == "" {
		c, err := x.e.dialer.Dial(ctx, name)
		if err != nil {
			return nil, targetErr(fmt.Sprintf("connect session %s", name), err)
		}
		ss.conn = c
		x.direct, x.directSession = c.Incoming(), name
		return ss, nil
	}
	x.g.Go(func() error {
		c, err := x.e.dialer.Dial(ctx, name)
		select {
		case x.dialed <- dialResult{ss: ss, conn: c, err: err}:
		case <-x.done:
			if c != nil {
				c.Close()
			}
		}
		return nil
	})
	return ss, nil
}

// dialResult is a background dial's outcome.
type dialResult struct {
	ss   *session
	conn transport.Conn
	err  error
}

// connected takes a background dial's outcome: the session goes on.
func (x *executor) connected(ctx context.Context, r dialResult) error {
	if r.err != nil {
		return targetErr(fmt.Sprintf("connect session %s", r.ss.name), r.err)
	}
	r.ss.conn = r.conn
	x.g.Go(func() error { x.forward(r.ss.name, r.conn); return nil })
	return x.drain(ctx, r.ss)
}

// forward copies one connection's messages into the shared arrivals
// channel until the connection ends or the stage returns.
func (x *executor) forward(session string, c transport.Conn) {
	for inc := range c.Incoming() {
		select {
		case x.arrivals <- arrival{session: session, inc: inc}:
		case <-x.done:
			return
		}
	}
	select {
	case x.arrivals <- arrival{session: session, closed: true, err: c.Err()}:
	case <-x.done:
	}
}

func (x *executor) targetDied(ss *session, err error) error {
	if cerr := ss.conn.Err(); cerr != nil {
		return fmt.Errorf("%w: session %s: %w", ErrTarget, ss.name, cerr)
	}
	return fmt.Errorf("%w: session %s: %w", ErrTarget, ss.name, err)
}

// close ends every connection; forwarders stop on done.
func (x *executor) close() {
	close(x.done)
	x.timer.Stop()
	for _, t := range x.chaosTimers {
		t.Stop()
	}
	for _, ss := range x.sessions {
		if ss.conn == nil {
			continue
		}
		if err := ss.conn.Close(); err != nil {
			x.e.log.Debug().Str("session", ss.name).Err(err).Msg("close connection")
		}
	}
}

// sentOrDropped tells a controller that a client message it let through is
// on the wire, or will never be.
func (x *executor) sentOrDropped(it *Item) {
	if x.e.ctl != nil && it.paced() && !it.Injected {
		x.e.ctl.Sent(it.Rec.Seq)
	}
}

// passEnd passes the end-of-tape marker on once nothing is in flight.
func (x *executor) passEnd(ctx context.Context) error {
	if x.end == nil || x.backlogged > 0 {
		return nil
	}
	if x.live > 0 {
		// Everything recorded before the end has gone by: an answered
		// request with no recorded answer has none, and what a seek left
		// of an older epoch will never be reported.
		if err := x.settleAtEnd(ctx); err != nil || x.live > 0 {
			return err
		}
	}
	end := x.end
	x.end = nil
	if x.e.stale(end) {
		return nil
	}
	return x.emit(ctx, &outcome{Epoch: end.Epoch, Req: end, End: true})
}

// settleAtEnd finishes the answered requests whose recorded answer the
// tape does not have, and forgets those of an older epoch.
func (x *executor) settleAtEnd(ctx context.Context) error {
	for _, ss := range x.sessions {
		var done []*pend
		for _, p := range ss.sent {
			switch {
			case x.e.stale(p.req):
				delete(ss.sent, p.key)
				delete(ss.byRec, p.recKey)
				if !p.answered() {
					ss.inflight--
				}
				if ss.waitFor == p {
					ss.waitFor = nil
				}
				p.replaced = true // gone: the timer and lists skip it
				x.live--
			case p.answered() && p.expected == nil:
				done = append(done, p)
			}
		}
		slices.SortFunc(done, func(a, b *pend) int { return a.sent.Compare(b.sent) })
		for _, p := range done {
			if err := x.finish(ctx, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// inject sends a message that is not on the tape.
func (x *executor) inject(ctx context.Context, req injectReq) error {
	it := req.it
	if it.Rec.Session == "" {
		it.Rec.Session = x.directSession
	}
	ss := x.sessions[it.Rec.Session]
	if ss == nil || ss.conn == nil {
		req.done <- fmt.Errorf("inject: no session %q is connected yet", it.Rec.Session)
		return nil
	}
	err := x.process(ctx, ss, it)
	req.done <- err
	return err
}

// rewind makes the connections that can (the mock) answer as recorded from
// seq on, after a seek.
func (x *executor) rewind(seq int64) error {
	for _, ss := range x.sessions {
		if rw, ok := ss.conn.(transport.Rewinder); ok {
			if err := rw.Rewind(seq); err != nil {
				return fmt.Errorf("rewind session %s to seq %d: %w", ss.name, seq, err)
			}
		}
	}
	return nil
}

// targetErr wraps err as a failure of the target, once.
func targetErr(what string, err error) error {
	if errors.Is(err, ErrTarget) {
		return fmt.Errorf("%s: %w", what, err)
	}
	return fmt.Errorf("%w: %s: %w", ErrTarget, what, err)
}
