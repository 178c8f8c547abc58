package session

// What comes back: the recorded answers flowing down the pipeline, the
// live messages from the target, and the requests the live server asks.

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transformer"
	"github.com/replayctl/replayctl/transport"
)

// receiver is the actor's part for what comes back: the recorded answers
// flowing down the pipeline, the live messages from the target, and the
// requests the live server asks (answered from the tape).
type receiver struct {
	x        *Actor
	askTimer *time.Timer // the wait for a server request (session.awaiting) is over
	// tapeTimer: the wait of the oldest live server request for its
	// recorded twin (session.liveAsks) is over.
	tapeTimer *time.Timer
}

// recorded handles a server message from the tape: the expected answer
// of a request sent earlier, or a server notification or request.
func (r *receiver) recorded(ctx context.Context, ss *session, it *Item) error {
	x := r.x
	switch it.RPC.Kind {
	case jsonrpc.KindResponse, jsonrpc.KindError:
	case jsonrpc.KindRequest:
		ss.serverMethods[jsonrpc.IDKey(it.RPC.ID)] = it.RPC.Method
		if id := jsonrpc.IDKey(it.RPC.ID); ss.takenAhead[id] {
			delete(ss.takenAhead, id) // its client answer went to the live server already
		} else {
			ss.openAsks[it.RPC.Method]++
		}
		delete(ss.unreadAsks, jsonrpc.IDKey(it.RPC.ID))
		return x.emit(ctx, &Outcome{Epoch: it.Epoch, Req: it, Skipped: "recorded server request; the live server's own is answered from the tape"})
	case jsonrpc.KindNotification:
		if x.env.ValidateNotifications {
			ss.recNotes = append(ss.recNotes, it) // compared when the session is settled
			return nil
		}
		return x.emit(ctx, &Outcome{Epoch: it.Epoch, Req: it, Skipped: "recorded server notification (compared when notifications are validated)"})
	default:
		if id, method, ok := unreadRequest(it.Rec.Msg); ok && it.RPC.Kind == jsonrpc.KindInvalid {
			ss.unreadAsks[jsonrpc.IDKey(id)] = method
		}
		return x.emit(ctx, &Outcome{Epoch: it.Epoch, Req: it, Skipped: "recorded server " + it.RPC.Kind.String()})
	}
	p := pairRecorded(ss, it)
	if p == nil && len(ss.heldBack) > 0 {
		// Its request is held back by a reorder fault: it goes now.
		if err := x.fx.releaseHeld(ctx, ss, true); err != nil {
			return err
		}
		p = pairRecorded(ss, it)
	}
	if p == nil {
		return x.emit(ctx, &Outcome{Epoch: it.Epoch, Req: it, Skipped: "recorded answer to a request that was not replayed"})
	}
	ss.byRec.del(p.recKey)
	p.expected = it
	x.anchorHandshake(p)
	if edits := p.req.expectEdits(); len(edits) > 0 { // set_result: expect what the rules say
		edited, err := transformer.ApplyEdits(it.Rec.Msg, edits)
		if err != nil {
			return fmt.Errorf("set_result on the recorded answer to seq %d: %w", p.req.Rec.Seq, err)
		}
		p.edited = edited
	}
	if p.answered() {
		if p.actual != nil && !p.asRecorded {
			// The live answer came before its recorded one was read: it
			// is compared now, bytes against bytes, as receive would have.
			_, p.asRecorded = it.RPC.Rebase(p.actual.Msg)
		}
		return x.rq.finish(ctx, p)
	}
	switch {
	case x.env.Order.waitsForRecorded():
		ss.waitFor = p
		// The live server cannot be waiting for an answer recorded after
		// this point: refuse what it asked that the tape did not answer.
		return x.rx.refuseAsked(ctx, ss)
	case p.req.RPC.Method == mcp.MethodInitialize && !p.req.Injected:
		// Every order holds the session at the handshake, as a reconnect's
		// fresh one is held (chaos): MCP lets a client send nothing but
		// pings before initialize is answered, and the session's clock
		// starts again at that answer (anchorHandshake). Not held, with
		// --order none the messages due before the answer came went out
		// by the clock started when initialize was sent.
		ss.waitFor = p
	}
	return nil
}

// clientAnswer handles the client's recorded answer to a server request:
// it goes to the live server's request of the same method, now or when
// the server asks.
func (r *receiver) clientAnswer(ctx context.Context, ss *session, it *Item) error {
	x := r.x
	if method, ok := ss.unreadAsks[jsonrpc.IDKey(it.RPC.ID)]; ok {
		// The request it answers was not read: no live request is
		// matched to it, and none is waited for.
		delete(ss.unreadAsks, jsonrpc.IDKey(it.RPC.ID))
		what := "a server request"
		if method != "" {
			what = "the server request " + method
		}
		x.env.Log.Warn().Str("session", ss.name).Int64("seq", it.Rec.Seq).Str("method", method).
			Msgf("the client's recorded answer at seq %d answers %s that the tape could not read (not valid JSON-RPC): it is not sent, and the live server's asking is not waited for", it.Rec.Seq, what)
		return x.emit(ctx, &Outcome{Epoch: it.Epoch, Req: it, Skipped: "answer to " + what + " the tape could not read"})
	}
	method := ss.serverMethods[jsonrpc.IDKey(it.RPC.ID)]
	if ss.openAsks[method] > 0 {
		ss.openAsks[method]--
	}
	if q := ss.asked[method]; len(q) > 0 {
		ss.asked[method] = q[1:]
		return x.rx.answerServer(ctx, ss, q[0], it)
	}
	if ss.refused[method] > 0 {
		// The live server asked it before the replay got here, and was
		// refused then (the session was held): it will not ask again.
		ss.refused[method]--
		return x.emit(ctx, &Outcome{Epoch: it.Epoch, Req: it, Skipped: "answer to a server request the live server asked before the replay reached it (refused then, counted in the report)"})
	}
	ss.answers[method] = append(ss.answers[method], it)
	if x.env.Order.waitsForServer() && x.env.AskWait > 0 && ss.asks {
		x.rx.await(ss, it)
	}
	return nil
}

// asks reports whether the target on c may send requests of its own.
func asks(c transport.Conn) bool {
	a, ok := c.(transport.Asker)
	return !ok || a.Asks()
}

// await holds the session's later messages until the live server asks
// what the recorded answer it answers, for Env.AskWait at most: a server
// may not ask at all (it asks or not as it likes, and one that sends its
// request on a stream the client has not opened yet loses it), and the
// session is not held for the whole timeout then.
func (r *receiver) await(ss *session, it *Item) {
	x := r.x
	ss.awaiting = it
	x.rx.askTimer.Stop()
	x.rx.askTimer.Reset(x.env.AskWait)
}

// endAwait lets the session go on without waiting for a server request.
func (r *receiver) endAwait(ss *session) {
	x := r.x
	ss.awaiting = nil
	x.rx.askTimer.Stop()
}

// askExpired lets the session go on when the live server has not asked,
// within Env.AskWait, what the recorded server asked; the recorded answer
// is kept for a later ask, and reported as not asked for if none comes.
// For a settled session waiting for its notifications (notesIfQuiet) it
// compares them now.
func (r *receiver) askExpired(ctx context.Context) error {
	x := r.x
	ss := x.ss
	if ss.notesWait {
		return x.rq.notesWaited(ctx, ss) // the live server has not sent them all yet
	}
	it := ss.awaiting
	if it == nil {
		return nil
	}
	x.rx.endAwait(ss)
	method := ss.serverMethods[jsonrpc.IDKey(it.RPC.ID)]
	x.env.Log.Warn().Str("session", ss.name).Int64("seq", it.Rec.Seq).Str("method", method).
		Msgf("the live server did not ask %s within %s (--ask-wait; the recorded server asked it, and the client answered at seq %d): the session goes on, and the recorded answer answers it if it asks later", method, x.env.AskWait, it.Rec.Seq)
	return x.drain(ctx, ss)
}

// answerServer sends the recorded answer it to the live server request req.
func (r *receiver) answerServer(ctx context.Context, ss *session, req jsonrpc.Message, it *Item) error {
	x := r.x
	x.sink.Count(ServerRequest)
	sent := time.Now()
	if err := x.tx.sendBounded(ctx, ss, it.RPC.WithID(req.ID)); err != nil && ctx.Err() == nil {
		return x.rx.answerFailed(ctx, ss, it, sent, req.Method, err)
	}
	x.ev.sent(it, sent)
	return x.emit(ctx, &Outcome{Epoch: it.Epoch, Req: it, Sent: sent})
}

// arrive handles a message from the target.
func (r *receiver) arrive(ctx context.Context, a arrival) error {
	x := r.x
	ss := x.ss
	if a.closed {
		if a.err != nil && x.env.Chaos != nil && !overLimit(ss, a.err) {
			return x.fx.died(ctx, ss, a.err)
		}
		if a.err != nil {
			return fmt.Errorf("%w: session %s: %w", ErrTarget, ss.name, a.err)
		}
		if ss.notesWait { // nothing more will come
			return x.rq.notesNow(ctx, ss)
		}
		return nil
	}
	rpc, as, err := x.rx.parseLive(a.inc.Msg)
	if err != nil {
		x.env.Log.Warn().Str("session", ss.name).Err(err).Msg("target sent a message that is not JSON-RPC")
		return x.emit(ctx, &Outcome{Req: &Item{Rec: tape.Message{Seq: -1, Session: ss.name, Dir: tape.S2C}}, Err: fmt.Errorf("target sent a message that is not JSON-RPC: %w", err)})
	}
	switch rpc.Kind {
	case jsonrpc.KindResponse, jsonrpc.KindError:
	case jsonrpc.KindRequest:
		return x.rx.serverAsks(ctx, rpc)
	default:
		x.sink.Count(ServerNotification)
		if x.env.ValidateNotifications && rpc.Kind == jsonrpc.KindNotification && !ss.ownCancel(rpc) {
			inc := a.inc
			ss.liveNotes = append(ss.liveNotes, liveNote{method: rpc.Method, inc: &inc})
			if ss.notesWait { // maybe the one the settled session waits for
				return x.rq.notesIfQuiet(ctx, ss)
			}
		}
		return nil
	}
	var faulted *pend
	if string(rpc.ID) == "null" {
		faulted = ss.oldestFaulted() // a parse or invalid-request error to a fault
	}
	p, pr := pairLive(rpc.ID, inFlight{sent: &ss.sent, faulted: faulted, faultsSent: ss.faultsSent(), late: ss.late})
	switch pr {
	case pairDuplicate, pairTolerated:
		return nil
	case pairLate:
		x.env.Log.Debug().Str("session", ss.name).Str("id", string(rpc.ID)).Msg("answer to a request given up (timed out: already counted as one; or a tasks/cancel for a task given up): not judged")
		return nil
	case pairStray:
		x.env.Log.Warn().Str("session", ss.name).Str("id", string(rpc.ID)).Msg("answer to no request in flight")
		return x.emit(ctx, &Outcome{Req: &Item{Rec: tape.Message{Seq: -1, Session: ss.name, Dir: tape.S2C}}, Err: fmt.Errorf("answer with id %s matches no request in flight", rpc.ID)})
	}
	inc := a.inc
	if p.req.Fault != nil && !faultInjectedAtSend(p.req.Fault) && p.attempts == 0 {
		x.ev.fault(p.req)
	}
	if p.req.Fault != nil && !p.req.Fault.Kind.Outbound() && p.attempts == 0 {
		keep, err := x.fx.faultedAnswer(ctx, p, &inc)
		if err != nil || !keep {
			return err
		}
	}
	p.live = inc
	p.actual = &p.live // no allocation of its own: the pend's
	p.asRecorded = as == p && sameBytes(inc.Msg, a.inc.Msg)
	if p.req.RPC.Method == mcp.MethodInitialize {
		ss.cancelsTasks = mcp.CancelsTasks(Result(inc.Msg))
	}
	x.ev.message(inc.At, event.Answered, p.req)
	ss.inflight--
	x.anchorHandshake(p)
	if p.expected != nil || x.final(ss) || p.req.Injected {
		if err := x.rq.finish(ctx, p); err != nil {
			return err
		}
	}
	ss.answerAt = inc.At // the messages it lets go were free from then
	err = x.drain(ctx, ss)
	ss.answerAt = time.Time{}
	return err
}

// final reports whether nothing more can be recorded for the session.
func (x *Actor) final(ss *session) bool { return x.inputDone && len(ss.backlog) == 0 }

// serverAsks handles a request from the live server: answered with the
// client's recorded answer of the same method, in order; held until the
// tape gets there; or refused when the tape has none.
func (r *receiver) serverAsks(ctx context.Context, rpc jsonrpc.Message) error {
	x := r.x
	goOn, err := x.rx.ask(ctx, x.ss, liveAsk{rpc: rpc, until: time.Now().Add(x.env.AskWait)})
	if err != nil || !goOn {
		return err
	}
	return x.drain(ctx, x.ss)
}

// liveAsk is a request of the live server, and until when it may wait
// for its recorded twin to be read (see ask).
type liveAsk struct {
	rpc   jsonrpc.Message
	until time.Time
}

// ask answers, keeps, holds or refuses a request of the live server;
// goOn reports that it was answered with the recorded answer the session
// was held for (awaiting): what was recorded after it may go now.
//
// A held session sends nothing until what it waits for comes: the ask is
// refused, unless the tape has the server asking it, read with its
// client answer still to come (see refuseAsked) or further on, before
// the client's next notification (a server asking on its own stream may
// come before the answer the session waits for; see asksAhead). Where
// the tape reader has not reached that far yet (the recorded ask is
// past the read-ahead) the ask waits for it, until la.until
// (Env.AskWait after it came), in session.liveAsks: recheckAsks asks
// again as the tape comes. A server that answers what the session waits
// for only once its ask is answered waits that long, not the timeout.
func (r *receiver) ask(ctx context.Context, ss *session, la liveAsk) (goOn bool, err error) {
	x := r.x
	method := la.rpc.Method
	if it := ss.takeAnswer(method); it != nil {
		if err := x.rx.answerServer(ctx, ss, la.rpc, it); err != nil || it != ss.awaiting {
			return false, err
		}
		x.rx.endAwait(ss)
		return true, nil
	}
	if x.final(ss) {
		return false, x.rx.refuse(ctx, ss, la.rpc)
	}
	if ss.held(x.env.MaxInflight) && ss.openAsks[method]+ss.asksAhead(method) <= len(ss.asked[method]) {
		if x.rx.twinMayCome(ss, method) && time.Now().Before(la.until) {
			x.rx.holdAsk(ss, la)
			return false, nil
		}
		return false, x.rx.refuse(ctx, ss, la.rpc)
	}
	ss.asked[method] = append(ss.asked[method], la.rpc)
	return false, nil
}

// twinMayCome reports whether the tape reader may still bring a recorded
// request of the server of method that a live one made now would be
// answered with: the session's input has not ended, the live server's
// requests may wait (Env.AskWait), and nothing read yet ends the
// look-ahead (endsLookAhead: the client's next notification, or request
// for the requests asked within one).
func (r *receiver) twinMayCome(ss *session, method string) bool {
	x := r.x
	if x.inputDone || x.env.AskWait <= 0 {
		return false
	}
	for _, it := range ss.backlog {
		if endsLookAhead(it, method) {
			return false
		}
	}
	for _, it := range ss.run { // read, to be shuffled (OrderRandom)
		if endsLookAhead(it, method) {
			return false
		}
	}
	return true
}

// holdAsk keeps la waiting for the tape (see ask), behind those waiting
// already: they came earlier, so the oldest's until is the soonest.
func (r *receiver) holdAsk(ss *session, la liveAsk) {
	ss.liveAsks = append(ss.liveAsks, la)
	if len(ss.liveAsks) == 1 {
		r.tapeTimer.Reset(time.Until(la.until))
	}
	r.x.env.Log.Debug().Str("session", ss.name).Str("method", la.rpc.Method).
		Msg("the live server asked what the tape reader has not reached yet: the ask waits for it (--ask-wait at most)")
}

// recheckAsks asks again the live server's requests waiting for the
// tape (session.liveAsks), in the order they came: the tape reader has
// brought more, the session is no longer held, its input has ended, or
// a wait is over. In a held session it first answers those kept for a
// recorded twin (session.asked) whose client answer the tape has
// brought since, as their asks would have been answered had they come
// now: the session's hold may be the server's answer, which a server
// gives only once its ask is answered.
func (r *receiver) recheckAsks(ctx context.Context) error {
	x := r.x
	ss := x.ss
	if len(ss.asked) > 0 && ss.held(x.env.MaxInflight) {
		for m, q := range ss.asked {
			for len(q) > 0 {
				it := ss.takeAnswer(m)
				if it == nil {
					break
				}
				if err := x.rx.answerServer(ctx, ss, q[0], it); err != nil {
					return err
				}
				if it == ss.awaiting {
					x.rx.endAwait(ss)
				}
				q = q[1:]
			}
			if len(q) == 0 {
				delete(ss.asked, m)
			} else {
				ss.asked[m] = q
			}
		}
	}
	if len(ss.liveAsks) == 0 {
		return nil
	}
	r.tapeTimer.Stop()
	waiting := ss.liveAsks
	ss.liveAsks = nil
	for i, la := range waiting {
		waiting[i] = liveAsk{}
		if _, err := r.ask(ctx, ss, la); err != nil {
			return err
		}
	}
	return nil
}

// refuseAsked refuses every live server request still waiting, but as
// many of each method as the tape has recorded server requests of it
// whose client answer is not read yet, read already or further on in
// the backlog before the client's next notification (see asksAhead):
// those the client's recorded answer, read later, answers (a client may
// answer after the next answer it gets, as a busy one did). One the tape
// reader may still bring a recorded twin of waits for it (see ask).
func (r *receiver) refuseAsked(ctx context.Context, ss *session) error {
	x := r.x
	for m, q := range ss.asked {
		keep := min(ss.openAsks[m]+ss.asksAhead(m), len(q))
		for _, rpc := range q[keep:] {
			if x.rx.twinMayCome(ss, m) {
				x.rx.holdAsk(ss, liveAsk{rpc: rpc, until: time.Now().Add(x.env.AskWait)})
				continue
			}
			if err := x.rx.refuse(ctx, ss, rpc); err != nil {
				return err
			}
		}
		if keep == 0 {
			delete(ss.asked, m)
		} else {
			ss.asked[m] = q[:keep]
		}
	}
	return x.rx.recheckAsks(ctx) // at the end of the input: refused now
}

// refuse answers a server request the tape has no answer to, with an
// error the report counts.
func (r *receiver) refuse(ctx context.Context, ss *session, rpc jsonrpc.Message) error {
	x := r.x
	x.sink.Count(ServerRefused)
	if !ss.asksLater(rpc.Method) {
		// Perhaps the tape's ask, not read yet; one anywhere in the
		// backlog (past the look-ahead's end, or spent: see asksAhead)
		// is taken for another ask.
		ss.refused[rpc.Method]++
	}
	ev := x.env.Log.Debug()
	if !ss.warned[rpc.Method] { // once per method and session: a server may ask thousands of times
		if ss.warned == nil {
			ss.warned = make(map[string]bool)
		}
		ss.warned[rpc.Method] = true
		ev = x.env.Log.Warn()
	}
	ev.Str("session", ss.name).Str("method", rpc.Method).Msg("the server asked something the tape has no answer to (refused; counted in the report)")
	msg := jsonrpc.ErrorResponse(rpc.ID, mcp.CodeMethodNotFound, "replayctl: the tape has no answer to "+rpc.Method, nil)
	if err := x.tx.sendBounded(ctx, ss, msg); err != nil && ctx.Err() == nil {
		return x.rx.answerFailed(ctx, ss, nil, time.Now(), rpc.Method, err)
	}
	return nil
}

// answerFailed handles an answer to a live server request (it, the
// client's recorded one; nil: a refusal) that the target did not take:
// not within the timeout, or refused over HTTP, it is the session's
// error, reported and counted, and the replay goes on; else (the
// connection is gone) the target failed.
func (r *receiver) answerFailed(ctx context.Context, ss *session, it *Item, sent time.Time, method string, err error) error {
	x := r.x
	fate, _ := x.sendFate(ctx, sent, err)
	if ss.conn.Err() != nil || fate == sendDied {
		return x.targetDied(ss, fmt.Errorf("answer server request %s: %w", method, err))
	}
	if fate == sendInterrupted {
		return ctx.Err()
	}
	if it == nil {
		it = &Item{Rec: tape.Message{Seq: -1, Session: ss.name, Dir: tape.C2S}}
	}
	return x.emit(ctx, &Outcome{Epoch: it.Epoch, Req: it, Sent: sent,
		Err: fmt.Errorf("answer server request %s: the target did not take it: %w", method, err)})
}

// unreadRequest reads the id and method of a recorded message that is
// not valid JSON-RPC, as far as they can be read: ok when it has an id
// and a method (a request), method "" when that is not a string.
func unreadRequest(msg []byte) (id json.RawMessage, method string, ok bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
	}
	if json.Unmarshal(msg, &m) != nil || len(m.ID) == 0 || string(m.ID) == "null" || len(m.Method) == 0 {
		return nil, "", false
	}
	_ = json.Unmarshal(m.Method, &method) // not a string: ""
	return m.ID, method, true
}
