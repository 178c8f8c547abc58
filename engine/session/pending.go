package session

// Requests in flight: timeouts, retries, and reporting each once its
// answer and its recorded answer are known.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/transport"
)

// requests is the actor's part that keeps its requests in flight: their
// deadlines (in send order, one timer for the oldest), their reporting
// once the live and the recorded answer are known, retries by rule,
// task polls and the notifications compared at the end.
type requests struct {
	x        *Actor
	live     int         // pends not yet reported
	fifo     []*pend     // send order from head on; deadlines are in the same order
	head     int         // fifo[:head] is done with (trim)
	timer    *time.Timer // the oldest request's deadline, or an earlier one (see armTimer)
	armedAt  time.Time   // when the timer is set to fire; zero: not set
	due      atomic.Bool // the timer has fired (fire): expire
	retryIDs int64       // ids made for retries and reconnects
	polls    chan *pend  // a task poll's interval is over: send it again
	block    []pend      // where newPend takes pends from
}

// expire times out the requests whose deadline has passed and tells the
// server they are cancelled.
func (r *requests) expire(ctx context.Context, now time.Time) error {
	x := r.x
	for _, p := range x.rq.fifo[x.rq.head:] {
		if p.deadline.After(now) {
			break
		}
		if !p.answered() {
			if err := x.rq.timeOut(ctx, p, x.timedOutAfter()); err != nil {
				return err
			}
		}
	}
	return nil
}

// timeOut gives up on a request: the server is told it is cancelled
// (never initialize: MCP forbids cancelling it), with why (after
// "replayctl: "), and the request is reported as timed out. A tasks/get
// waiting for its next poll was answered: MCP lets notifications/cancelled
// name only a request "believed to still be in progress", so none is
// sent for it; the task it polled is cancelled instead (cancelTask, from
// finish).
func (r *requests) timeOut(ctx context.Context, p *pend, why string) error {
	x := r.x
	answered := p.pollWait
	p.timedOut, p.pollGaveUp = true, answered
	p.givenUp()
	p.sess.gaveUp(p.key.String())
	x.anchorHandshake(p)
	if conn := p.sess.conn; conn != nil && !answered && p.req.RPC.Method != mcp.MethodInitialize {
		note := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":%s}}`, p.req.SentID, jsonString("replayctl: "+why))
		err := x.tx.sendBounded(ctx, p.sess, note)
		if err != nil && ctx.Err() == nil {
			x.env.Log.Warn().Err(err).Msg("could not send notifications/cancelled")
		}
		p.noted = err == nil
	}
	return x.rq.finishIfDone(ctx, p)
}

// timedOutAfter is why a request was given up at its deadline.
func (x *Actor) timedOutAfter() string { return fmt.Sprintf("timed out after %s", x.env.Timeout) }

// jsonString is s as a JSON string.
func jsonString(s string) []byte {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}

// finishIfDone reports an answered (or given up) request once its recorded
// answer is known or cannot come, and lets its session go on.
func (r *requests) finishIfDone(ctx context.Context, p *pend) error {
	x := r.x
	if p.expected != nil || x.final(p.sess) {
		if err := x.rq.finish(ctx, p); err != nil {
			return err
		}
	}
	return x.drain(ctx, p.sess)
}

// settle reports, once nothing more can be recorded for the session, the
// answered requests whose recorded answer never came (the tape ended
// without it), and refuses the server requests the tape did not answer.
func (r *requests) settle(ctx context.Context, ss *session) error {
	x := r.x
	if ss.settled || !x.final(ss) {
		return nil // once settled, later answers are finished as they come
	}
	if err := x.fx.releaseHeld(ctx, ss, true); err != nil {
		return err
	}
	ss.settled = true
	var orphans []*pend
	for p := range ss.sent.all() {
		if p.answered() && p.expected == nil || x.rq.endListen(p) {
			orphans = append(orphans, p)
		}
	}
	slices.SortFunc(orphans, func(a, b *pend) int { return a.sent.Compare(b.sent) })
	for _, p := range orphans {
		if err := x.rq.finish(ctx, p); err != nil {
			return err
		}
	}
	clear(ss.openAsks) // the tape has no more answers: every ask left is refused
	x.rx.endAwait(ss)
	if err := x.rq.notesIfQuiet(ctx, ss); err != nil {
		return err
	}
	if ss.notesCompared {
		// Else they wait until the notifications are compared (notesNow):
		// a server that asks late (after --ask-wait) is answered while the
		// session waits for its last answers and for the notification it
		// sends once answered.
		if err := x.rq.unasked(ctx, ss); err != nil {
			return err
		}
	}
	return x.rx.refuseAsked(ctx, ss)
}

// unasked reports the client's recorded answers to server requests that
// the live server has not asked, once the session is settled and no
// longer waits for its notifications.
func (r *requests) unasked(ctx context.Context, ss *session) error {
	x := r.x
	for _, q := range ss.answers {
		for _, it := range q {
			if err := x.emit(ctx, &Outcome{Epoch: it.Epoch, Req: it, Skipped: "answer to a server request; the live server did not ask"}); err != nil {
				return err
			}
		}
	}
	clear(ss.answers)
	return nil
}

// notesIfQuiet compares the session's notifications once it is settled and
// nothing is in flight any more: a notification may come with the last
// answer. While a recorded notification has no live one of its method
// yet, the session waits for it, Env.Timeout at most (askTimer): a
// server may notify a moment after a message that has no answer (the
// client's answer to its request, a client notification).
func (r *requests) notesIfQuiet(ctx context.Context, ss *session) error {
	x := r.x
	if !ss.settled || ss.sent.len() > 0 || ss.notesCompared {
		return nil
	}
	came := notesCame(ss)
	if !came && !ss.notesWait && x.direct != nil && !ss.dead {
		ss.notesWait, ss.notesSince = true, time.Now()
		x.rx.askTimer.Stop()
		x.rx.askTimer.Reset(min(notesSayAfter, x.env.Timeout))
		return nil
	}
	if ss.notesWait && !came {
		return nil // still waiting: notesExpired ends it
	}
	return x.rq.notesNow(ctx, ss)
}

// notesSayAfter is how long a session waits for a recorded notification
// before it says (a warning) what it waits for and how long it may: the
// wait is the request timeout, which looks like a hang when the live
// server never sends it.
const notesSayAfter = time.Second

// notesWaited handles the askTimer of a session waiting for its
// notifications: notesSayAfter into the wait it says what it waits for
// and waits on, to Env.Timeout; then it compares them (the missing ones
// are reported never come).
func (r *requests) notesWaited(ctx context.Context, ss *session) error {
	x := r.x
	waited := time.Since(ss.notesSince)
	if ss.notesSaid || waited >= x.env.Timeout {
		return r.notesNow(ctx, ss)
	}
	ss.notesSaid = true
	missing := missingNotes(ss)
	what := "it"
	if len(missing) > 1 {
		what = "them"
	}
	x.env.Log.Warn().Msgf("session %s has every answer but waits for %s, which the recorded server sent and the live one has not (yet): it waits %s at most (--timeout), then reports %s never came (--validate-notifications; compare --notifications=false leaves notifications out)",
		ss.name, strings.Join(missing, ", "), x.env.Timeout, what)
	x.rx.askTimer.Reset(x.env.Timeout - waited)
	return nil
}

// missingNotes says which recorded notifications have no live one of
// their method yet: "notifications/message (seq 6)".
func missingNotes(ss *session) []string {
	came := make(map[string]int, len(ss.liveNotes))
	for _, l := range ss.liveNotes {
		came[l.method]++
	}
	var out []string
	for _, rec := range ss.recNotes {
		if came[rec.RPC.Method] > 0 {
			came[rec.RPC.Method]--
			continue
		}
		out = append(out, fmt.Sprintf("%s (seq %d)", rec.RPC.Method, rec.Rec.Seq))
	}
	return out
}

// notesNow compares the session's notifications, ending a wait for them
// (the live server has not sent, within the timeout, every one recorded:
// askExpired; or its connection ended: arrive).
func (r *requests) notesNow(ctx context.Context, ss *session) error {
	x := r.x
	if ss.notesWait {
		ss.notesWait, ss.notesSaid = false, false
		x.rx.askTimer.Stop()
	}
	ss.notesCompared = true
	if err := x.rq.compareNotes(ctx, ss); err != nil {
		return err
	}
	return x.rq.unasked(ctx, ss)
}

// notesCame reports whether each of the session's recorded notifications
// has a live one of its method.
func notesCame(ss *session) bool {
	if len(ss.recNotes) == 0 {
		return true
	}
	left := make(map[string]int, len(ss.recNotes))
	for _, rec := range ss.recNotes {
		left[rec.RPC.Method]++
	}
	for _, l := range ss.liveNotes {
		left[l.method]--
	}
	for _, n := range left {
		if n > 0 {
			return false
		}
	}
	return true
}

// finish reports a request whose answer (or timeout) and recorded answer
// are both known, and forgets it.
func (r *requests) finish(ctx context.Context, p *pend) error {
	x := r.x
	if x.rq.pollAgain(p) {
		return nil
	}
	if retried, err := x.rq.retry(ctx, p); retried || err != nil {
		return err
	}
	task := x.rq.cancelTask(ctx, p)
	p.sess.sent.del(p.key)
	p.sess.byRec.del(p.recKey)
	x.rq.live--
	x.rq.learnLive(p.sess, p)
	if p.sess.waitFor == p {
		p.sess.waitFor = nil
	}
	// In the pend's own memory (a request is finished once): no
	// allocation of its own.
	p.out = Outcome{Epoch: p.req.Epoch, Req: p.req, Expected: p.expected, Edited: p.edited, Actual: p.actual, Sent: p.sent, Timeout: p.timedOut, Stream: p.listenEnded,
		AsRecorded: p.asRecorded && p.actual != nil && p.expected != nil && p.edited == nil}
	o := &p.out
	switch {
	case p.timedOut:
		o.Err = timedOut(x.env.Timeout, p, task)
	case p.sendErr != nil:
		o.Err, o.Lost = p.sendErr, p.lost
	}
	if err := x.emit(ctx, o); err != nil {
		return err
	}
	return x.rq.notesIfQuiet(ctx, p.sess)
}

// timedOut says what became of a request given up at its timeout: a
// task poll that gave up waiting for its next send, the task still going
// (as pollAgain finds at an answer past the timeout: the task did not end
// in time), or a request unanswered, and whether each was cancelled
// (notifications/cancelled for the request, tasks/cancel for the task:
// task, from cancelTask, "" when no task was given up).
func timedOut(timeout time.Duration, p *pend, task string) error {
	if p.pollGaveUp {
		return fmt.Errorf("the task did not end in time: still going at its last poll when the poll's %s ran out; %s", timeout, task)
	}
	msg := fmt.Sprintf("no answer within %s", timeout)
	if p.noted {
		msg += "; cancelled"
	} else {
		msg += "; not cancelled"
		if p.req.RPC.Method == mcp.MethodInitialize {
			msg += " (initialize never is)"
		}
	}
	if task != "" {
		msg += "; its task " + task
	}
	return errors.New(msg)
}

// emit hands an outcome on to the sink, to be judged.
//
// With a sink that takes batches (BatchSink) the outcome waits with the
// actor's others until the actor is about to wait, or holds maxBatch
// (flush): validate is then handed an actor's outcomes in one send, not
// one by one (a channel hand-off, and on an idle processor a wake-up,
// each). The error is then flush's, maybe at a later emit.
func (x *Actor) emit(ctx context.Context, o *Outcome) error {
	if x.batch == nil {
		return x.sink.Outcome(ctx, o)
	}
	if x.outs == nil {
		x.outs = make([]*Outcome, 0, maxBatch)
	}
	x.outs = append(x.outs, o)
	if len(x.outs) < maxBatch {
		return nil
	}
	return x.flush(ctx)
}

// maxBatch bounds the outcomes an actor keeps before it hands them on.
const maxBatch = 64

// flush hands the outcomes the actor keeps on to the sink, in order: one
// alone as it is (the actor keeps its slice), more in a batch (the sink's
// once taken). The actor calls it before it waits for anything: the
// select of its loop, a spin, a send that may wait for the target, a
// controller's request done, its return. What the sink did not take (ctx
// done first) stays kept, for the flush at the actor's return, which
// does not give up (see Run): a verdict reached before an interrupt is
// in the report.
func (x *Actor) flush(ctx context.Context) error {
	switch len(x.outs) {
	case 0:
		return nil
	case 1:
		if err := x.sink.Outcome(ctx, x.outs[0]); err != nil {
			return err
		}
		x.outs[0] = nil
		x.outs = x.outs[:0]
		return nil
	}
	if err := x.batch.Outcomes(ctx, x.outs); err != nil {
		return err
	}
	x.outs = nil
	return nil
}

// retry sends a request again when its answer failed a validation rule
// whose on_failure is retry and retries are left: with a new id, the same
// recorded answer to meet. It reports whether it did.
func (r *requests) retry(ctx context.Context, p *pend) (bool, error) {
	x := r.x
	if x.env.Validator == nil || p.actual == nil || p.expected == nil || p.req.Injected {
		return false, nil
	}
	expected := p.expected.Rec.Msg
	if p.edited != nil {
		expected = p.edited
	}
	vd, err := x.env.Validator.Check(Subject(p.req), expected, p.actual.Msg)
	if err != nil || !retryByRule(vd, p.attempts) {
		return false, nil
	}
	x.env.Log.Info().Int64("seq", p.req.Rec.Seq).Int("attempt", p.attempts+1).Msg("answer failed a retry rule: sending again")
	x.ev.retry(p.req, p.attempts+1, "validation_rule", nil)
	return true, x.rq.resend(ctx, p)
}

// resend sends a request again, with a new id, for the same recorded
// answer to meet.
func (r *requests) resend(ctx context.Context, p *pend) error {
	x := r.x
	rpc, err := jsonrpc.Parse(p.req.Out)
	if err != nil {
		return nil
	}
	x.rq.retryIDs++
	// Retries take ids far above the fresh ids of the transform stage.
	id := strconv.AppendInt(nil, 1<<40+x.rq.retryIDs, 10)
	// A new pend takes the old one's place, so that its deadline is queued
	// in order; the old one is done (replaced) wherever it is still seen.
	np := *p
	p.replaced = true
	np.attempts++
	np.req.Out, np.req.SentID = rpc.WithID(id), id
	np.key, np.actual, np.timedOut, np.sendErr, np.asRecorded, np.pollWait = keyOf(id), nil, false, nil, false, false
	np.pollGaveUp, np.noted = false, false
	np.sent = time.Now()
	np.deadline = np.sent.Add(x.env.Timeout)
	ss := p.sess
	ss.sent.del(p.key)
	ss.sent.put(np.key, &np)
	if ss.byRec.at(p.recKey) == p {
		ss.byRec.put(p.recKey, &np)
	}
	if ss.waitFor == p {
		ss.waitFor = &np
	}
	ss.inflight++
	x.rq.fifo = append(x.rq.fifo, &np)
	if err := x.tx.sendBounded(ctx, ss, np.req.Out); err != nil && ctx.Err() == nil {
		return x.targetDied(ss, fmt.Errorf("resend seq %d: %w", np.req.Rec.Seq, err))
	}
	return nil
}

// injectError answers a request with the error an inject_error rule
// gives, without sending it: the replay goes on as if the server had.
func (r *requests) injectError(ss *session, it *Item) error {
	x := r.x
	x.sentOrDropped(it)
	now := time.Now()
	answer := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":%s}`, it.RPC.ID, it.injectError())
	p := &pend{
		req: it, sess: ss, sent: now, deadline: now.Add(x.env.Timeout),
		key: keyOf(it.SentID), recKey: keyOf(it.RPC.ID),
		actual: &transport.Incoming{Msg: answer, At: now},
	}
	ss.sent.put(p.key, p)
	ss.byRec.put(p.recKey, p)
	x.rq.live++
	return nil
}

// abandon reports every request still in flight as failed with cause, when
// the replay stops because the target failed: they were sent. They go
// through emit, after the outcomes the actor keeps (judged before), and
// are handed on with them by the flush at Run's return.
func (r *requests) abandon(ctx context.Context, cause error) {
	x := r.x
	var left []*pend
	for p := range x.ss.sent.all() {
		if !p.answered() {
			left = append(left, p)
		}
	}
	slices.SortFunc(left, func(a, b *pend) int { return a.sent.Compare(b.sent) })
	for _, p := range left {
		o := &Outcome{Epoch: p.req.Epoch, Req: p.req, Sent: p.sent, Err: cause}
		if x.emit(ctx, o) != nil {
			return
		}
	}
}
