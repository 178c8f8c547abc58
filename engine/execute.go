package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transformer"
	"github.com/replayctl/replayctl/transport"
	"github.com/replayctl/replayctl/validator"
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
	edited   []byte // the recorded answer after set_result rules
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
	if ss.dead {
		x.sentOrDropped(it)
		return x.emit(ctx, &outcome{Epoch: it.Epoch, Req: it, Skipped: "the server of this session died (chaos)"})
	}
	if !it.Injected && (it.RPC.Method == "initialize" || it.RPC.Method == "notifications/initialized") {
		ss.handshake = append(ss.handshake, it) // replayed after a reconnect
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
	sent := time.Now()
	var err error
	if it.Fault != nil && it.Fault.Kind.Outbound() {
		var answerable bool
		answerable, err = x.sendFaulted(ctx, ss, it)
		if err == nil && !answerable {
			x.sentOrDropped(it)
			return x.emit(ctx, &outcome{Epoch: it.Epoch, Req: it, Skipped: "dropped (chaos)"})
		}
	} else {
		err = x.sendRetry(ctx, ss.conn, it.Out)
	}
	x.sentOrDropped(it)
	var he *transport.HTTPError
	if err != nil && it.Fault != nil && errors.As(err, &he) {
		// An HTTP server refuses a bad message with a status: its answer.
		return x.emit(ctx, &outcome{Epoch: it.Epoch, Req: it, Sent: sent, Actual: refusal(he)})
	}
	if err != nil && x.e.cfg.Chaos != nil && ctx.Err() == nil && !errors.As(err, &he) {
		return x.died(ctx, ss, err)
	}
	if err != nil {
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
	ss.inflight++
	x.live++
	x.fifo = append(x.fifo, p)
	if x.e.cfg.Order == OrderSequential {
		ss.waitFor = p
	}
	ss.prevID = it.SentID
	if it.Fault != nil && it.Fault.Kind.Outbound() {
		// The server may rightly not answer: wait a short while only.
		ss.faulted = append(ss.faulted, p)
		x.chaosDeadline(p, sent.Add(min(chaosWait, x.e.cfg.Timeout)))
	}
	return nil
}

// recorded handles a server message from the tape: the expected answer
// of a request sent earlier, or a server notification or request.
func (x *executor) recorded(ctx context.Context, ss *session, it *Item) error {
	switch it.RPC.Kind {
	case jsonrpc.KindResponse, jsonrpc.KindError:
	case jsonrpc.KindRequest:
		ss.serverMethods[jsonrpc.IDKey(it.RPC.ID)] = it.RPC.Method
		return x.emit(ctx, &outcome{Epoch: it.Epoch, Req: it, Skipped: "recorded server request; the live server's own is answered from the tape"})
	case jsonrpc.KindNotification:
		if x.e.cfg.ValidateNotifications {
			ss.recNotes = append(ss.recNotes, it) // compared when the session is settled
			return nil
		}
		return x.emit(ctx, &outcome{Epoch: it.Epoch, Req: it, Skipped: "recorded server notification (compared with --validate-notifications)"})
	default:
		return x.emit(ctx, &outcome{Epoch: it.Epoch, Req: it, Skipped: "recorded server " + it.RPC.Kind.String()})
	}
	p := find(ss.byRec, it.RPC.ID)
	if p == nil && len(ss.heldBack) > 0 {
		// Its request is held back by a reorder fault: it goes now.
		if err := x.releaseHeld(ctx, ss, true); err != nil {
			return err
		}
		p = find(ss.byRec, it.RPC.ID)
	}
	if p == nil {
		return x.emit(ctx, &outcome{Epoch: it.Epoch, Req: it, Skipped: "recorded answer to a request that was not replayed"})
	}
	delete(ss.byRec, p.recKey)
	p.expected = it
	if len(p.req.ExpectEdits) > 0 { // set_result: expect what the rules say
		edited, err := transformer.ApplyEdits(it.Rec.Msg, p.req.ExpectEdits)
		if err != nil {
			return fmt.Errorf("set_result on the recorded answer to seq %d: %w", p.req.Rec.Seq, err)
		}
		p.edited = edited
	}
	if p.answered() {
		return x.finish(ctx, p)
	}
	if x.e.cfg.Order == OrderCausal {
		ss.waitFor = p
		// The live server cannot be waiting for an answer recorded after
		// this point: refuse what it asked that the tape did not answer.
		return x.refuseAsked(ctx, ss)
	}
	return nil
}

// clientAnswer handles the client's recorded answer to a server request:
// it goes to the live server's request of the same method, now or when
// the server asks.
func (x *executor) clientAnswer(ctx context.Context, ss *session, it *Item) error {
	method := ss.serverMethods[jsonrpc.IDKey(it.RPC.ID)]
	if q := ss.asked[method]; len(q) > 0 {
		ss.asked[method] = q[1:]
		return x.answerServer(ctx, ss, q[0], it)
	}
	ss.answers[method] = append(ss.answers[method], it)
	return nil
}

// answerServer sends the recorded answer it to the live server request req.
func (x *executor) answerServer(ctx context.Context, ss *session, req jsonrpc.Message, it *Item) error {
	x.e.counters.serverRequests.Add(1)
	sent := time.Now()
	if err := ss.conn.Send(ctx, it.RPC.WithID(req.ID)); err != nil && ctx.Err() == nil {
		return x.targetDied(ss, fmt.Errorf("answer server request %s: %w", req.Method, err))
	}
	return x.emit(ctx, &outcome{Epoch: it.Epoch, Req: it, Sent: sent})
}

// arrive handles a message from the target.
func (x *executor) arrive(ctx context.Context, a arrival) error {
	if a.closed {
		if a.err != nil && x.e.cfg.Chaos != nil {
			if ss := x.sessions[a.session]; ss != nil {
				return x.died(ctx, ss, a.err)
			}
		}
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
		return x.serverAsks(ctx, a.session, rpc)
	default:
		x.e.counters.serverNotes.Add(1)
		if ss := x.sessions[a.session]; ss != nil && x.e.cfg.ValidateNotifications && rpc.Kind == jsonrpc.KindNotification {
			inc := a.inc
			ss.liveNotes = append(ss.liveNotes, liveNote{method: rpc.Method, inc: &inc})
		}
		return nil
	}
	ss := x.sessions[a.session]
	var p *pend
	if ss != nil {
		p = find(ss.sent, rpc.ID)
		if p == nil && string(rpc.ID) == "null" {
			p = ss.oldestFaulted() // a parse or invalid-request error to a fault
		}
		if p != nil && p.answered() && p.req.Fault != nil {
			return nil // the second answer of a duplicated message
		}
	}
	if p == nil && ss != nil && ss.faultsSent() {
		return nil // e.g. the answer to a duplicate-id: tolerated under chaos
	}
	if p == nil || p.answered() {
		x.e.log.Warn().Str("session", a.session).Str("id", string(rpc.ID)).Msg("answer to no request in flight")
		return x.emit(ctx, &outcome{Req: &Item{Rec: tape.Message{Seq: -1, Session: a.session, Dir: tape.S2C}}, Err: fmt.Errorf("answer with id %s matches no request in flight", rpc.ID)})
	}
	inc := a.inc
	if p.req.Fault != nil && !p.req.Fault.Kind.Outbound() && p.attempts == 0 {
		keep, err := x.faultedAnswer(ctx, p, &inc)
		if err != nil || !keep {
			return err
		}
	}
	p.actual = &inc
	ss.inflight--
	if p.expected != nil || x.final(ss) || p.req.Injected {
		if err := x.finish(ctx, p); err != nil {
			return err
		}
	}
	return x.drain(ctx, ss)
}

// final reports whether nothing more can be recorded for the session.
func (x *executor) final(ss *session) bool { return x.inputDone && len(ss.backlog) == 0 }

// serverAsks handles a request from the live server: answered with the
// client's recorded answer of the same method, in order; held until the
// tape gets there; or refused when the tape has none.
func (x *executor) serverAsks(ctx context.Context, session string, rpc jsonrpc.Message) error {
	ss := x.sessions[session]
	if ss == nil {
		return nil
	}
	if it, fromBacklog := ss.takeAnswer(rpc.Method); it != nil {
		if fromBacklog {
			x.backlogged--
		}
		return x.answerServer(ctx, ss, rpc, it)
	}
	if x.final(ss) || ss.held(x.e.cfg.MaxInflight) {
		return x.refuse(ctx, ss, rpc)
	}
	ss.asked[rpc.Method] = append(ss.asked[rpc.Method], rpc)
	return nil
}

// refuseAsked refuses every live server request still waiting.
func (x *executor) refuseAsked(ctx context.Context, ss *session) error {
	for m, q := range ss.asked {
		for _, rpc := range q {
			if err := x.refuse(ctx, ss, rpc); err != nil {
				return err
			}
		}
		delete(ss.asked, m)
	}
	return nil
}

// refuse answers a server request the tape has no answer to, with an
// error the report counts.
func (x *executor) refuse(ctx context.Context, ss *session, rpc jsonrpc.Message) error {
	x.e.counters.serverRefused.Add(1)
	x.e.log.Warn().Str("session", ss.name).Str("method", rpc.Method).Msg("the server asked something the tape has no answer to")
	msg := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":%s}}`, rpc.ID, jsonQuote("replayctl: the tape has no answer to "+rpc.Method))
	if err := ss.conn.Send(ctx, msg); err != nil && ctx.Err() == nil {
		return x.targetDied(ss, fmt.Errorf("answer server request %s: %w", rpc.Method, err))
	}
	return nil
}

// expire times out the requests whose deadline has passed and tells the
// server they are cancelled.
func (x *executor) expire(ctx context.Context, now time.Time) error {
	for _, p := range x.fifo {
		if p.deadline.After(now) {
			break
		}
		if !p.answered() {
			if err := x.timeOut(ctx, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// timeOut gives up on a request: the server is told it is cancelled, and
// the request is reported as timed out.
func (x *executor) timeOut(ctx context.Context, p *pend) error {
	p.timedOut = true
	p.sess.inflight--
	if conn := p.sess.conn; conn != nil {
		note := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"replayctl: timed out after %s"}}`, p.req.SentID, x.e.cfg.Timeout)
		if err := conn.Send(ctx, note); err != nil && ctx.Err() == nil {
			x.e.log.Warn().Err(err).Msg("could not send notifications/cancelled")
		}
	}
	return x.finishIfDone(ctx, p)
}

// finishIfDone reports an answered (or given up) request once its recorded
// answer is known or cannot come, and lets its session go on.
func (x *executor) finishIfDone(ctx context.Context, p *pend) error {
	if p.expected != nil || x.final(p.sess) {
		if err := x.finish(ctx, p); err != nil {
			return err
		}
	}
	return x.drain(ctx, p.sess)
}

// settle reports, once nothing more can be recorded for the session, the
// answered requests whose recorded answer never came (the tape ended
// without it), and refuses the server requests the tape did not answer.
func (x *executor) settle(ctx context.Context, ss *session) error {
	if ss.settled || !x.final(ss) {
		return nil // once settled, later answers are finished as they come
	}
	if err := x.releaseHeld(ctx, ss, true); err != nil {
		return err
	}
	ss.settled = true
	var orphans []*pend
	for _, p := range ss.sent {
		if p.answered() && p.expected == nil {
			orphans = append(orphans, p)
		}
	}
	slices.SortFunc(orphans, func(a, b *pend) int { return a.sent.Compare(b.sent) })
	for _, p := range orphans {
		if err := x.finish(ctx, p); err != nil {
			return err
		}
	}
	if err := x.compareNotes(ctx, ss); err != nil {
		return err
	}
	return x.refuseAsked(ctx, ss)
}

func (x *executor) settleAll(ctx context.Context) error {
	for _, ss := range x.sessions {
		if err := x.settle(ctx, ss); err != nil {
			return err
		}
	}
	return nil
}

// finish reports a request whose answer (or timeout) and recorded answer
// are both known, and forgets it.
func (x *executor) finish(ctx context.Context, p *pend) error {
	if retried, err := x.retry(ctx, p); retried || err != nil {
		return err
	}
	delete(p.sess.sent, p.key)
	delete(p.sess.byRec, p.recKey)
	x.live--
	if p.sess.waitFor == p {
		p.sess.waitFor = nil
	}
	o := &outcome{Epoch: p.req.Epoch, Req: p.req, Expected: p.expected, Edited: p.edited, Actual: p.actual, Sent: p.sent, Timeout: p.timedOut}
	switch {
	case p.timedOut:
		o.Err = fmt.Errorf("no answer within %s; cancelled", x.e.cfg.Timeout)
	case p.sendErr != nil:
		o.Err, o.Lost = p.sendErr, p.lost
	}
	return x.emit(ctx, o)
}

func (x *executor) emit(ctx context.Context, o *outcome) error { return send(ctx, x.out, o) }

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
			return nil, fmt.Errorf("%w: connect session %s: %w", ErrTarget, name, err)
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
		return fmt.Errorf("%w: connect session %s: %w", ErrTarget, r.ss.name, r.err)
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
	if x.end == nil || x.live > 0 || x.backlogged > 0 {
		return nil
	}
	end := x.end
	x.end = nil
	if x.e.stale(end) {
		return nil
	}
	return x.emit(ctx, &outcome{Epoch: end.Epoch, Req: end, End: true})
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

// liveNote is a notification the live server sent.
type liveNote struct {
	method string
	inc    *transport.Incoming
	used   bool
}

// compareNotes pairs the session's recorded server notifications with the
// live ones, by method in order, for validate to compare; a recorded one
// that never came and a live one that was not recorded are reported too.
func (x *executor) compareNotes(ctx context.Context, ss *session) error {
	for _, rec := range ss.recNotes {
		o := &outcome{Epoch: rec.Epoch, Req: rec, Expected: rec, Note: true}
		for i := range ss.liveNotes {
			if l := &ss.liveNotes[i]; !l.used && l.method == rec.RPC.Method {
				l.used, o.Actual = true, l.inc
				break
			}
		}
		if o.Actual == nil {
			o.Err = fmt.Errorf("the recorded notification %s never came", rec.RPC.Method)
		}
		if err := x.emit(ctx, o); err != nil {
			return err
		}
	}
	for _, l := range ss.liveNotes {
		if !l.used {
			it := &Item{Rec: tape.Message{Seq: -1, Session: ss.name, Dir: tape.S2C, Msg: l.inc.Msg}}
			it.RPC, _ = jsonrpc.Parse(l.inc.Msg)
			if err := x.emit(ctx, &outcome{Req: it, Actual: l.inc, Note: true, Err: fmt.Errorf("notification %s was not recorded", l.method)}); err != nil {
				return err
			}
		}
	}
	ss.recNotes, ss.liveNotes = nil, nil
	return nil
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

// retry sends a request again when its answer failed a validation rule
// whose on_failure is retry and retries are left: with a new id, the same
// recorded answer to meet. It reports whether it did.
func (x *executor) retry(ctx context.Context, p *pend) (bool, error) {
	if !x.e.retries || p.actual == nil || p.expected == nil || p.req.Injected {
		return false, nil
	}
	expected := p.expected.Rec.Msg
	if p.edited != nil {
		expected = p.edited
	}
	vd, err := x.e.v.Check(subject(p.req), expected, p.actual.Msg)
	if err != nil || !vd.Failed() || vd.OnFailure != validator.OnFailureRetry || p.attempts >= vd.MaxRetries {
		return false, nil
	}
	x.e.log.Info().Int64("seq", p.req.Rec.Seq).Int("attempt", p.attempts+1).Msg("answer failed a retry rule: sending again")
	return true, x.resend(ctx, p)
}

// resend sends a request again, with a new id, for the same recorded
// answer to meet.
func (x *executor) resend(ctx context.Context, p *pend) error {
	p.attempts++
	x.retryIDs++
	// Retries take ids far above the fresh ids of the transform stage.
	id := strconv.AppendInt(nil, 1<<40+x.retryIDs, 10)
	rpc, err := jsonrpc.Parse(p.req.Out)
	if err != nil {
		return nil
	}
	delete(p.sess.sent, p.key)
	p.req.Out, p.req.SentID = rpc.WithID(id), id
	p.key, p.actual = jsonrpc.IDKey(id), nil
	p.sent = time.Now()
	p.deadline = p.sent.Add(x.e.cfg.Timeout)
	p.sess.sent[p.key] = p
	p.sess.inflight++
	x.fifo = append(x.fifo, p)
	if err := p.sess.conn.Send(ctx, p.req.Out); err != nil && ctx.Err() == nil {
		return x.targetDied(p.sess, fmt.Errorf("resend seq %d: %w", p.req.Rec.Seq, err))
	}
	return nil
}

// injectError answers a request with the error an inject_error rule
// gives, without sending it: the replay goes on as if the server had.
func (x *executor) injectError(ss *session, it *Item) error {
	x.sentOrDropped(it)
	now := time.Now()
	answer := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":%s}`, it.RPC.ID, it.InjectError)
	p := &pend{
		req: it, sess: ss, sent: now, deadline: now.Add(x.e.cfg.Timeout),
		key: jsonrpc.IDKey(it.SentID), recKey: jsonrpc.IDKey(it.RPC.ID),
		actual: &transport.Incoming{Msg: answer, At: now},
	}
	ss.sent[p.key] = p
	ss.byRec[p.recKey] = p
	x.live++
	return nil
}
