package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// ErrTarget is wrapped by errors that come from the target: it could not be
// reached, or it died.
var ErrTarget = errors.New("target failed")

// pend is a request sent and not yet reported.
type pend struct {
	req      *Item
	key      string // session + sent id
	recKey   string // session + recorded id
	sent     time.Time
	deadline time.Time
	expected *Item
	actual   *transport.Incoming
	timedOut bool
	sendErr  error
}

func (p *pend) answered() bool { return p.actual != nil || p.timedOut || p.sendErr != nil }

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
	conns    map[string]transport.Conn
	arrivals chan arrival
	done     chan struct{} // closed when the stage returns: forwarders stop
	byKey    map[string]*pend
	byRec    map[string]*pend
	fifo     []*pend // send order; deadlines are in the same order
	waitFor  *pend   // input is held until this request is answered
	inflight int
	timer    *time.Timer
}

func pendKey(session string, id []byte) string {
	return session + "\x00" + jsonrpc.IDKey(id)
}

// execute sends what the client sent, on each session's connection, and
// pairs answers with requests. See the package doc for the order rules.
func (e *Engine) execute(ctx context.Context, g *errgroup.Group, in <-chan *Item, out chan<- *outcome) (err error) {
	defer close(out)
	x := &executor{
		e: e, g: g, out: out,
		conns: make(map[string]transport.Conn),
		// A buffer per connection would do as well; one shared buffer
		// lets answers queue while execute is busy sending.
		arrivals: make(chan arrival, 64),
		done:     make(chan struct{}),
		byKey:    make(map[string]*pend),
		byRec:    make(map[string]*pend),
		timer:    time.NewTimer(time.Hour),
	}
	defer x.close()
	for in != nil || len(x.byKey) > 0 {
		x.armTimer()
		var inCh <-chan *Item
		if !x.held() {
			inCh = in
		}
		select {
		case it, ok := <-inCh:
			if !ok {
				in = nil
				// Nothing more will be recorded: an answer that came
				// without its recorded twin is reported as it is.
				if err := x.flushUnexpected(ctx); err != nil {
					return err
				}
				continue
			}
			if err := x.handle(ctx, it); err != nil {
				return err
			}
		case a := <-x.arrivals:
			if err := x.arrive(ctx, a, in == nil); err != nil {
				return err
			}
		case now := <-x.timer.C:
			if err := x.expire(ctx, now, in == nil); err != nil {
				return err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// held reports whether input must wait: too many requests in flight, or
// the order rule says a recorded answer comes first.
func (x *executor) held() bool {
	if x.inflight >= x.e.cfg.MaxInflight {
		return true
	}
	return x.waitFor != nil && !x.waitFor.answered()
}

func (x *executor) armTimer() {
	for len(x.fifo) > 0 && x.fifo[0].answered() {
		x.fifo[0] = nil
		x.fifo = x.fifo[1:]
	}
	x.timer.Stop()
	if len(x.fifo) > 0 {
		x.timer.Reset(time.Until(x.fifo[0].deadline))
	}
}

func (x *executor) handle(ctx context.Context, it *Item) error {
	if x.e.stale(it) {
		return nil
	}
	if it.Rec.Dir == tape.S2C {
		return x.recordedAnswer(ctx, it)
	}
	switch it.RPC.Kind {
	case jsonrpc.KindResponse, jsonrpc.KindError:
		// The client's answer to a server request: it only makes sense
		// when the live server asks.
		return x.emit(ctx, &outcome{Epoch: it.Epoch, Req: it, Skipped: "answer to a server request; the live server did not ask"})
	}
	conn, err := x.conn(ctx, it.Rec.Session)
	if err != nil {
		return err
	}
	sent := time.Now()
	if err := conn.Send(ctx, it.Out); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return x.targetDied(it.Rec.Session, conn, fmt.Errorf("send seq %d: %w", it.Rec.Seq, err))
	}
	if it.RPC.Kind != jsonrpc.KindRequest {
		return x.emit(ctx, &outcome{Epoch: it.Epoch, Req: it, Sent: sent})
	}
	p := &pend{
		req: it, sent: sent, deadline: sent.Add(x.e.cfg.Timeout),
		key:    pendKey(it.Rec.Session, it.SentID),
		recKey: pendKey(it.Rec.Session, it.RPC.ID),
	}
	x.byKey[p.key] = p
	x.byRec[p.recKey] = p
	x.fifo = append(x.fifo, p)
	x.inflight++
	if x.e.cfg.Order == OrderSequential {
		x.waitFor = p
	}
	return nil
}

// recordedAnswer handles a server message from the tape: the expected
// answer of a request sent earlier, or a server notification or request.
func (x *executor) recordedAnswer(ctx context.Context, it *Item) error {
	switch it.RPC.Kind {
	case jsonrpc.KindResponse, jsonrpc.KindError:
	default:
		return x.emit(ctx, &outcome{Epoch: it.Epoch, Req: it, Skipped: "recorded server " + it.RPC.Kind.String()})
	}
	p := x.byRec[pendKey(it.Rec.Session, it.RPC.ID)]
	if p == nil {
		return x.emit(ctx, &outcome{Epoch: it.Epoch, Req: it, Skipped: "recorded answer to a request that was not replayed"})
	}
	delete(x.byRec, p.recKey)
	p.expected = it
	if p.answered() {
		return x.finish(ctx, p)
	}
	if x.e.cfg.Order == OrderCausal {
		x.waitFor = p
	}
	return nil
}

// arrive handles a message from the target.
func (x *executor) arrive(ctx context.Context, a arrival, inputDone bool) error {
	if a.closed {
		delete(x.conns, a.session)
		if a.err != nil {
			return fmt.Errorf("%w: session %s: %w", ErrTarget, a.session, a.err)
		}
		return nil
	}
	rpc, err := jsonrpc.Parse(a.inc.Msg)
	if err != nil {
		x.e.log.Warn().Str("session", a.session).Err(err).Msg("target sent a message that is not JSON-RPC")
		return x.emit(ctx, &outcome{Req: &Item{Rec: tape.Message{Seq: -1, Session: a.session, Dir: tape.S2C}}, Err: fmt.Errorf("target sent a message that is not JSON-RPC: %w", err)})
	}
	switch rpc.Kind {
	case jsonrpc.KindResponse, jsonrpc.KindError:
	case jsonrpc.KindRequest:
		return x.refuse(ctx, a.session, rpc)
	default:
		x.e.counters.serverNotes.Add(1)
		return nil
	}
	p := x.byKey[pendKey(a.session, rpc.ID)]
	if p == nil || p.answered() {
		x.e.log.Warn().Str("session", a.session).Str("id", string(rpc.ID)).Msg("answer to no request in flight")
		return x.emit(ctx, &outcome{Req: &Item{Rec: tape.Message{Seq: -1, Session: a.session, Dir: tape.S2C}}, Err: fmt.Errorf("answer with id %s matches no request in flight", rpc.ID)})
	}
	inc := a.inc
	p.actual = &inc
	x.inflight--
	if p.expected != nil || inputDone {
		return x.finish(ctx, p)
	}
	return nil
}

// refuse answers a request from the server that the replay cannot answer.
func (x *executor) refuse(ctx context.Context, session string, rpc jsonrpc.Message) error {
	x.e.counters.serverRequests.Add(1)
	conn := x.conns[session]
	if conn == nil {
		return nil
	}
	msg := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"replayctl: no recorded answer to %s"}}`, rpc.ID, jsonQuote(rpc.Method))
	if err := conn.Send(ctx, msg); err != nil && ctx.Err() == nil {
		return x.targetDied(session, conn, fmt.Errorf("answer server request %s: %w", rpc.Method, err))
	}
	return nil
}

// expire times out the requests whose deadline has passed and tells the
// server they are cancelled.
func (x *executor) expire(ctx context.Context, now time.Time, inputDone bool) error {
	for _, p := range x.fifo {
		if p.deadline.After(now) {
			break
		}
		if p.answered() {
			continue
		}
		p.timedOut = true
		x.inflight--
		if conn := x.conns[p.req.Rec.Session]; conn != nil {
			note := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"replayctl: timed out after %s"}}`, p.req.SentID, x.e.cfg.Timeout)
			if err := conn.Send(ctx, note); err != nil && ctx.Err() == nil {
				x.e.log.Warn().Err(err).Msg("could not send notifications/cancelled")
			}
		}
		if p.expected != nil || inputDone {
			if err := x.finish(ctx, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// flushUnexpected reports the answered requests whose recorded answer
// never came: the tape ended without it.
func (x *executor) flushUnexpected(ctx context.Context) error {
	for _, p := range x.fifo {
		if p.answered() && p.expected == nil {
			if _, live := x.byKey[p.key]; live {
				if err := x.finish(ctx, p); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// finish reports a request whose answer (or timeout) and recorded answer
// are both known, and forgets it.
func (x *executor) finish(ctx context.Context, p *pend) error {
	delete(x.byKey, p.key)
	delete(x.byRec, p.recKey)
	if x.waitFor == p {
		x.waitFor = nil
	}
	o := &outcome{Epoch: p.req.Epoch, Req: p.req, Expected: p.expected, Actual: p.actual, Sent: p.sent, Timeout: p.timedOut}
	if p.timedOut {
		o.Err = fmt.Errorf("no answer within %s; cancelled", x.e.cfg.Timeout)
	}
	return x.emit(ctx, o)
}

func (x *executor) emit(ctx context.Context, o *outcome) error { return send(ctx, x.out, o) }

// conn returns the session's connection, dialling it on first use.
func (x *executor) conn(ctx context.Context, session string) (transport.Conn, error) {
	if c, ok := x.conns[session]; ok {
		return c, nil
	}
	c, err := x.e.dialer.Dial(ctx, session)
	if err != nil {
		return nil, fmt.Errorf("%w: connect session %s: %w", ErrTarget, session, err)
	}
	x.conns[session] = c
	x.g.Go(func() error { x.forward(session, c); return nil })
	return c, nil
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

func (x *executor) targetDied(session string, c transport.Conn, err error) error {
	if cerr := c.Err(); cerr != nil {
		return fmt.Errorf("%w: session %s: %w", ErrTarget, session, cerr)
	}
	return fmt.Errorf("%w: session %s: %w", ErrTarget, session, err)
}

// close ends every connection; forwarders stop on done.
func (x *executor) close() {
	close(x.done)
	x.timer.Stop()
	for s, c := range x.conns {
		if err := c.Close(); err != nil {
			x.e.log.Debug().Str("session", s).Err(err).Msg("close connection")
		}
	}
}
