package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/cenkalti/backoff/v4"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// chaosWait bounds the wait for an answer to a faulted message: a server
// may rightly say nothing to a line that is not JSON.
const chaosWait = 300 * time.Millisecond

// faults is the actor's part for chaos faults (Env.Chaos): sending a
// message with its outbound fault, spoiling an answer with its inbound
// one, disconnects and reconnects, and a server that died.
type faults struct {
	x            *Actor
	chaosExpired chan *pend    // a faulted request's short wait is over
	chaosTimers  []*time.Timer // stopped when the actor returns
}

// sendFaulted sends a client message with its outbound fault: mutated,
// twice, not at all, or followed by a cancellation. It reports whether the
// message was sent in a way that can be answered (false for drop).
func (r *faults) sendFaulted(ctx context.Context, ss *session, it *Item) (bool, error) {
	x := r.x
	f := *it.Fault
	if f.Kind.Alters() {
		ss.altered = it.Fault
	}
	if f.Kind == chaos.Drop {
		return false, nil
	}
	ss.faultCount++
	ss.lastFault = it.Fault
	if f.Kind == chaos.SlowWrite {
		return true, x.fx.slowWrite(ctx, ss, it)
	}
	msgs, err := chaos.MutateWithPrev(f, it.Out, ss.prevID)
	if errors.Is(err, chaos.ErrNotApplicable) || f.Kind == chaos.Burst || f.Kind == chaos.Reorder {
		msgs = [][]byte{it.Out} // burst and reorder change when, not what
	} else if err != nil {
		return false, fmt.Errorf("chaos %s on seq %d: %w", f.Kind, it.Rec.Seq, err)
	}
	for _, m := range msgs {
		if err := ss.conn.Send(ctx, m); err != nil {
			return false, err
		}
	}
	return true, nil
}

// faultedAnswer applies an inbound fault to the answer of p as it
// arrives. It reports whether the answer is kept (false: withheld or lost).
func (r *faults) faultedAnswer(ctx context.Context, p *pend, inc *transport.Incoming) (bool, error) {
	x := r.x
	f := *p.req.Fault
	switch f.Kind {
	case chaos.Timeout: // withheld past the deadline: the request times out
		return false, x.rq.timeOut(ctx, p, "an injected timeout (chaos): the answer was withheld")
	case chaos.InvalidResponse, chaos.ErrorResponse:
		m, err := chaos.MutateAnswer(f, inc.Msg)
		if err != nil {
			return true, nil
		}
		inc.Msg = m
	}
	return true, nil
}

// died marks a session whose server died in a chaos replay: what it had in
// flight fails, what comes later for it is skipped, the other sessions go
// on, and the survival verdict says which fault broke it.
func (r *faults) died(ctx context.Context, ss *session, cause error) error {
	x := r.x
	if ss.dead {
		return nil
	}
	ss.dead = true
	x.rx.endAwait(ss) // a dead server asks nothing more
	x.env.Log.Warn().Str("session", ss.name).Err(cause).Msg("the server died under chaos")
	// The fault sent last before the death is the one that killed it.
	if err := x.emit(ctx, &Outcome{Req: &Item{Rec: tapeMessage(ss.name), Fault: ss.lastFault}, Died: true, Err: cause}); err != nil {
		return err
	}
	var lost []*pend
	for p := range ss.sent.all() {
		if !p.answered() {
			lost = append(lost, p)
		}
	}
	slices.SortFunc(lost, func(a, b *pend) int { return a.sent.Compare(b.sent) })
	for _, p := range lost {
		p.sendErr = fmt.Errorf("the server died: %w", cause)
		p.givenUp()
		if err := x.rq.finish(ctx, p); err != nil {
			return err
		}
	}
	return x.drain(ctx, ss)
}

// chaosDeadline times p out at t unless it is answered by then.
func (r *faults) chaosDeadline(p *pend, t time.Time) {
	x := r.x
	x.fx.chaosTimers = append(x.fx.chaosTimers, time.AfterFunc(time.Until(t), func() {
		select {
		case x.fx.chaosExpired <- p:
		case <-x.done:
		}
	}))
}

// tapeMessage is the stand-in recorded message of a session-wide event.
func tapeMessage(session string) tape.Message {
	return tape.Message{Seq: -1, Session: session, Dir: tape.S2C}
}

// refusal is an HTTP server's refusal of a message as the answer it
// stands for: its body when that is a JSON-RPC message, else an error
// that names the status.
func refusal(he *transport.HTTPError) *transport.Incoming {
	body := []byte(he.Body)
	if rpc, err := jsonrpc.Parse(body); err != nil || !jsonrpc.IsResponseKind(rpc.Kind) {
		code := mcp.CodeInvalidRequest
		if he.Status >= 500 {
			code = mcp.CodeInternal
		}
		body = jsonrpc.ErrorResponse(nil, code, fmt.Sprintf("HTTP %d", he.Status), nil)
	}
	return &transport.Incoming{Msg: body, At: time.Now(), HTTP: &tape.HTTPMeta{Status: he.Status}}
}

// slowWrite writes the message in small pieces with pauses, on a
// connection that can (stdio, HTTP); elsewhere it goes whole.
func (r *faults) slowWrite(ctx context.Context, ss *session, it *Item) error {
	if sw, ok := ss.conn.(transport.SlowSender); ok {
		chunk, pause := it.Fault.SlowWrite()
		return sw.SendSlow(ctx, it.Out, chunk, pause)
	}
	return ss.conn.Send(ctx, it.Out)
}

// errLost is the fate of what was in flight when a disconnect fault cut
// the connection.
var errLost = errors.New("lost in an injected disconnect (chaos)")

// disconnect sends the message, or only the first part of it, drops the
// connection with everything in flight, and connects again with backoff
// and a fresh handshake. The messages that follow go on the new one, once
// the new initialize is answered (or has timed out).
func (r *faults) disconnect(ctx context.Context, ss *session, it *Item) error {
	x := r.x
	f := *it.Fault
	ss.faultCount++
	ss.lastFault = it.Fault
	ss.altered = it.Fault
	x.ev.fault(it)
	sent := time.Now()
	if rw, ok := ss.conn.(transport.RawWriter); ok {
		line := append(slices.Clip(it.Out), '\n')
		_ = x.tx.bounded(ctx, func(ctx context.Context) error { return rw.WriteRaw(ctx, line[:f.DisconnectAt(len(line))]) }) // the cut is the point
	} else {
		_ = x.tx.sendBounded(ctx, ss, it.Out)
	}
	x.sentOrDropped(it)
	x.ev.sent(it, sent)
	var lost []*pend
	for p := range ss.sent.all() {
		if !p.answered() {
			lost = append(lost, p)
		}
	}
	slices.SortFunc(lost, func(a, b *pend) int { return a.sent.Compare(b.sent) })
	for _, p := range lost {
		p.sendErr, p.lost = errLost, true
		p.givenUp()
		if err := x.rq.finish(ctx, p); err != nil {
			return err
		}
	}
	if err := x.emit(ctx, &Outcome{Epoch: it.Epoch, Req: it, Sent: sent}); err != nil {
		return err
	}
	old := ss.conn
	_ = old.Close()
	// What the old connection's server asked is of that connection: no
	// answer reaches its requests now (waiting for the tape, liveAsks,
	// or for the client's answer, asked), and one refused there
	// (refused) says nothing of what the new one will ask after its
	// fresh handshake. The recorded answers they would have taken are
	// kept for the new server's asks. What is of the tape (openAsks,
	// answers, takenAhead, serverMethods) stays.
	ss.liveAsks = nil
	x.rx.tapeTimer.Stop()
	clear(ss.asked)
	clear(ss.refused)
	// Of the live values learned from the old server, those of its
	// session (live.go). The notifications it sent (liveNotes) stay:
	// they came, and are compared with the recorded ones.
	ss.forgetOldServer()
	conn, err := x.fx.redial(ctx)
	if err != nil {
		return x.fx.died(ctx, ss, fmt.Errorf("reconnect after the disconnect at seq %d: %w", it.Rec.Seq, err))
	}
	ss.setConn(conn)
	x.direct, x.taken = conn.Incoming(), 0
	x.ev.about(time.Now(), event.Reconnect, fmt.Sprintf("after the disconnect fault at seq %d", it.Rec.Seq))
	// A fresh handshake, as a client reconnecting does: initialize now;
	// notifications/initialized, and everything after it, once the server
	// has answered it (MCP: nothing but pings before that answer).
	var after []*Item
	for _, h := range ss.handshake {
		again := *h
		again.Injected, again.Fault = true, nil
		if again.RPC.Kind != jsonrpc.KindRequest {
			after = append(after, &again)
			continue
		}
		x.rq.retryIDs++
		again.SentID = strconv.AppendInt(nil, 1<<40+x.rq.retryIDs, 10)
		again.Out = again.RPC.WithID(again.SentID)
		if err := x.tx.process(ctx, ss, &again); err != nil {
			return err
		}
		if p := ss.sent.get(again.SentID); p != nil && !p.answered() {
			ss.waitFor = p // the session is held until the answer (see drain)
		}
	}
	ss.pushFront(after)
	return nil
}

// redial connects the session again, with backoff.
func (r *faults) redial(ctx context.Context) (transport.Conn, error) {
	x := r.x
	b := backoff.NewExponentialBackOff()
	b.InitialInterval = 50 * time.Millisecond
	b.MaxElapsedTime = 10 * time.Second
	return backoff.RetryWithData(func() (transport.Conn, error) {
		return x.dial(ctx)
	}, backoff.WithContext(b, ctx))
}

// releaseHeld counts one more message gone past the messages a reorder
// fault holds back, and sends those whose turn has come (all of them when
// all is set: the session needs them now).
func (r *faults) releaseHeld(ctx context.Context, ss *session, all bool) error {
	x := r.x
	if len(ss.heldBack) == 0 {
		return nil
	}
	var due []*Item
	keep := ss.heldBack[:0]
	for _, h := range ss.heldBack {
		h.left--
		if h.left <= 0 || all {
			due = append(due, h.it)
		} else {
			keep = append(keep, h)
		}
	}
	ss.heldBack = keep
	for _, it := range due {
		if err := x.tx.sendOne(ctx, ss, it); err != nil {
			return err
		}
	}
	return nil
}
