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

// session is one replayed session: its connection and its requests in
// flight, by the id sent and by the id recorded.
type session struct {
	name  string
	conn  transport.Conn
	sent  map[string]*pend
	byRec map[string]*pend
}

// find looks a pend up by raw id bytes: the bytes as they are first (no
// allocation), then the canonical key.
func find(m map[string]*pend, id []byte) *pend {
	if p, ok := m[string(id)]; ok {
		return p
	}
	return m[jsonrpc.IDKey(id)]
}

// executor is the state of the execute stage, owned by its goroutine.
type executor struct {
	e        *Engine
	g        *errgroup.Group
	out      chan<- *outcome
	sessions map[string]*session
	arrivals chan arrival
	done     chan struct{} // closed when the stage returns: forwarders stop
	live     int           // pends not yet reported
	fifo     []*pend       // send order; deadlines are in the same order
	waitFor  *pend         // input is held until this request is answered
	// The first session's connection is read directly, without a
	// forwarder: one goroutine hand-off less per answer in the common
	// single-session replay.
	direct        <-chan transport.Incoming
	directSession string
	inflight      int
	timer         *time.Timer
	armed         *pend // the request the timer is set for
}

// execute sends what the client sent, on each session's connection, and
// pairs answers with requests. See the package doc for the order rules.
func (e *Engine) execute(ctx context.Context, g *errgroup.Group, in <-chan *Item, out chan<- *outcome) (err error) {
	defer close(out)
	x := &executor{
		e: e, g: g, out: out,
		sessions: make(map[string]*session),
		// A buffer per connection would do as well; one shared buffer
		// lets answers queue while execute is busy sending.
		arrivals: make(chan arrival, 64),
		done:     make(chan struct{}),
		timer:    time.NewTimer(time.Hour),
	}
	defer x.close()
	for in != nil || x.live > 0 {
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
		case inc, ok := <-x.direct:
			a := arrival{session: x.directSession, inc: inc}
			if !ok {
				a = arrival{session: x.directSession, closed: true, err: x.sessions[x.directSession].conn.Err()}
				x.direct = nil
			}
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
	ss, err := x.session(ctx, it.Rec.Session)
	if err != nil {
		return err
	}
	sent := time.Now()
	if err := x.sendRetry(ctx, ss.conn, it.Out); err != nil {
		var he *transport.HTTPError
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.As(err, &he):
			// The target refused this message and lives on.
			return x.emit(ctx, &outcome{Epoch: it.Epoch, Req: it, Sent: sent, Err: err})
		}
		return x.targetDied(ss, fmt.Errorf("send seq %d: %w", it.Rec.Seq, err))
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
	x.live++
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
	var p *pend
	if ss := x.sessions[it.Rec.Session]; ss != nil {
		p = find(ss.byRec, it.RPC.ID)
	}
	if p == nil {
		return x.emit(ctx, &outcome{Epoch: it.Epoch, Req: it, Skipped: "recorded answer to a request that was not replayed"})
	}
	delete(p.sess.byRec, p.recKey)
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
	var p *pend
	if ss := x.sessions[a.session]; ss != nil {
		p = find(ss.sent, rpc.ID)
	}
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
	ss := x.sessions[session]
	if ss == nil {
		return nil
	}
	msg := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"replayctl: no recorded answer to %s"}}`, rpc.ID, jsonQuote(rpc.Method))
	if err := ss.conn.Send(ctx, msg); err != nil && ctx.Err() == nil {
		return x.targetDied(ss, fmt.Errorf("answer server request %s: %w", rpc.Method, err))
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
		if conn := p.sess.conn; conn != nil {
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
			if _, live := p.sess.sent[p.key]; live {
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
	delete(p.sess.sent, p.key)
	delete(p.sess.byRec, p.recKey)
	x.live--
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

// session returns the named session, dialling its connection on first use.
func (x *executor) session(ctx context.Context, name string) (*session, error) {
	if ss, ok := x.sessions[name]; ok {
		return ss, nil
	}
	c, err := x.e.dialer.Dial(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("%w: connect session %s: %w", ErrTarget, name, err)
	}
	ss := &session{name: name, conn: c, sent: make(map[string]*pend), byRec: make(map[string]*pend)}
	x.sessions[name] = ss
	if x.directSession == "" {
		x.direct, x.directSession = c.Incoming(), name
		return ss, nil
	}
	x.g.Go(func() error { x.forward(name, c); return nil })
	return ss, nil
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
	for _, ss := range x.sessions {
		if err := ss.conn.Close(); err != nil {
			x.e.log.Debug().Str("session", ss.name).Err(err).Msg("close connection")
		}
	}
}
