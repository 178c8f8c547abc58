package mock

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/internal/jsonscan"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/transport"
)

// step is one message a Server sends while answering a request: a
// recorded notification or request to the client, or the answer, with
// how long after the request it was recorded.
type step struct {
	msg   []byte
	after time.Duration
	ask   bool // a request to the client: wait for its answer
}

// script returns what to send for entry i of recorded session name, in
// recorded order, the answer last with req's id; the notifications'
// progress tokens are the live request's.
func (s *Server) script(name string, i int, req jsonrpc.Message) ([]step, error) {
	e := &s.idx.sessions[name][i]
	info := s.idx.infoOf(name, i)
	var buf []byte
	liveToken, hasToken := progressToken(req.Params())
	var steps []step
	for k, n := range s.idx.notesOf(e) {
		msg, err := s.idx.at(n.at, n.seq, &buf)
		if err != nil {
			return nil, err
		}
		ni := s.idx.noteInfoOf(e, k)
		msg = bytes.Clone(msg)
		if hasToken && !ni.ask {
			msg = withProgressToken(msg, liveToken)
		}
		steps = append(steps, step{msg: msg, after: s.scaled(ni.t - info.t), ask: ni.ask})
	}
	msg, err := s.idx.at(e.ans, -1, &buf)
	if err != nil {
		return nil, err
	}
	rec, err := jsonrpc.Parse(msg)
	if err != nil {
		return nil, errRead
	}
	return append(steps, step{msg: rec.WithID(req.ID), after: s.scaled(info.tAns - info.t)}), nil
}

// scaled is a recorded span of us microseconds as the server's latency
// makes it; 0 for instant answers or a span below 0.
func (s *Server) scaled(us int64) time.Duration {
	if s.latency == 0 || us <= 0 {
		return 0
	}
	return time.Duration(float64(us) * s.latency * float64(time.Microsecond))
}

// play sends what was recorded around the answer to entry f.i, and the
// answer, at the recorded times when latency is on, with the chaos plan's
// fault if any.
func (ss *session) play(ctx context.Context, req jsonrpc.Message, f found, send transport.Send) error {
	start := time.Now()
	srv := ss.srv
	steps, err := srv.script(f.name, f.i, req)
	if err != nil {
		return ss.sent(send(ctx, unreadable(req, err)))
	}
	e := srv.idx.sessions[f.name][f.i]
	flt, faulty := srv.chaos.decide(f.copy, e.seq, req.Method, srv.nth(f.name, f.i))
	if faulty && srv.takeSpared(f.copy, e.seq) {
		faulty = false // the request sent again after its answer was dropped
	}
	notes, answer := steps[:len(steps)-1], steps[len(steps)-1]
	if faulty {
		srv.addInjected(Injected{Seq: e.seq, Session: f.copy, Live: ss.info.ID, Method: transport.Clip(req.Method),
			Kind: flt.kind, Detail: flt.detail(hasNotifications(notes), ss.info.Paces)})
		if flt.kind == ChaosHangUp && flt.hangUpFirst() {
			return ss.dropped(f, e.seq, transport.ErrHangUp)
		}
	}
	var after []step // notifications out-of-order chaos sends after the answer
	for _, st := range notes {
		if faulty && flt.kind == ChaosOutOfOrder && !st.ask {
			after = append(after, st)
			continue
		}
		if err := ss.waitUntil(ctx, start.Add(st.after)); err != nil {
			return err
		}
		if st.ask {
			if err := ss.askClient(ctx, req, st.msg, send); err != nil {
				return err
			}
			continue
		}
		if err := send(ctx, st.msg); err != nil {
			return err
		}
	}
	if err := ss.waitUntil(ctx, start.Add(answer.after)); err != nil {
		return err
	}
	if !faulty {
		return ss.sent(send(ctx, answer.msg))
	}
	err = ss.faulty(ctx, flt, answer.msg, after, send)
	if flt.kind == ChaosHangUp || flt.kind == ChaosMissing && ctx.Err() != nil {
		return ss.dropped(f, e.seq, err)
	}
	return err
}

// dropped gives back the answer to entry f.i that chaos kept from the
// client (a hang-up, or a missing answer the client stopped waiting
// for): it is not used up, and the request sent again gets it, without
// the fault. It passes err through.
func (ss *session) dropped(f found, seq int64, err error) error {
	srv := ss.srv
	if ss.info.Stateless {
		sc := srv.shared[f.name]
		sc.mu.Lock()
		sc.cur.unuse(f.i)
		sc.mu.Unlock()
	} else {
		ss.mu.Lock()
		if f.name == ss.bound {
			ss.cur.unuse(f.i)
		} else if k := ss.kin[f.name]; k != nil {
			k.cur.unuse(f.i)
		}
		ss.mu.Unlock()
	}
	srv.spare(f.copy, seq)
	return err
}

// faulty sends the answer as fault flt has it.
func (ss *session) faulty(ctx context.Context, flt fault, answer []byte, after []step, send transport.Send) error {
	switch flt.kind {
	case ChaosDelay:
		if err := ss.wait(ctx, flt.delay()); err != nil {
			return err
		}
	case ChaosSlow:
		chunk, pause := flt.f.SlowWrite()
		if ss.info.Paces {
			return ss.sent(send(transport.WithPace(ctx, chunk, pause), answer))
		}
		pieces := (len(answer) + chunk - 1) / chunk
		if err := ss.wait(ctx, time.Duration(max(pieces-1, 0))*pause); err != nil {
			return err
		}
	case ChaosMissing:
		select { // as a server that never answers: until the client or the session goes
		case <-ctx.Done():
			return ctx.Err()
		case <-ss.done:
			return nil
		}
	case ChaosError, ChaosMalformed:
		spoilt, err := chaos.MutateAnswer(flt.f, answer)
		if err != nil {
			return err
		}
		answer = spoilt
	case ChaosOutOfOrder:
		if len(after) == 0 {
			next := ss.hold()
			t := time.NewTimer(reorderHold)
			defer t.Stop()
			select {
			case <-next:
			case <-t.C:
			case <-ctx.Done():
				return ctx.Err()
			case <-ss.done:
				return errSessionClosed
			}
			return ss.sent(send(ctx, answer))
		}
		if err := ss.sent(send(ctx, answer)); err != nil {
			return err
		}
		for _, st := range after {
			if err := send(ctx, st.msg); err != nil {
				return err
			}
		}
		return nil
	case ChaosHangUp: // after the notifications, before the answer
		return transport.ErrHangUp
	}
	return ss.sent(send(ctx, answer))
}

// askClient sends a recorded request of the server to the client with a
// fresh id and waits for the client's answer, for the server's ask
// timeout at most: then it records a miss and returns nil, so that the
// answer goes on.
func (ss *session) askClient(ctx context.Context, req jsonrpc.Message, msg []byte, send transport.Send) error {
	rec, err := jsonrpc.Parse(msg)
	if err != nil {
		return err
	}
	id, answered := ss.srv.ask()
	if err := send(ctx, rec.WithID([]byte(id))); err != nil {
		ss.srv.forget(id)
		return err
	}
	t := time.NewTimer(ss.srv.askTimeout)
	defer t.Stop()
	select {
	case <-answered:
		return nil
	case <-t.C:
		ss.srv.forget(id)
		m := newMiss(ss.info.ID, "", req, fmt.Sprintf("the client did not answer the server's %s (sent with id %s while answering this request) within %v", rec.Method, id, ss.srv.askTimeout))
		ss.mu.Lock()
		m.Recorded = ss.bound
		ss.mu.Unlock()
		ss.srv.addMiss(m)
		return nil
	case <-ctx.Done():
		ss.srv.forget(id)
		return ctx.Err()
	case <-ss.done:
		ss.srv.forget(id)
		return errSessionClosed
	}
}

// heardOne counts a message of the client handled, and sends the
// requests its recorded session's server asked between requests (see
// aside) that are due: the live client has sent as many messages as the
// recorded one had before them.
func (ss *session) heardOne(ctx context.Context) {
	if ss.info.Stateless {
		return
	}
	ss.mu.Lock()
	ss.heard++
	var due []aside
	if as := ss.srv.idx.asides[ss.bound]; ss.unsol != nil {
		for ss.asided < len(as) && as[ss.asided].after <= ss.heard {
			due = append(due, as[ss.asided])
			ss.asided++
		}
	}
	send := ss.unsol
	ss.mu.Unlock()
	for _, a := range due {
		ss.askAside(ctx, a, send)
	}
}

// askAside sends the recorded server request a on the session's own
// stream with a fresh id, and waits, on a goroutine of its own, for the
// client's answer: for the server's ask timeout at most (then it records
// a Miss), or until the session is closed.
func (ss *session) askAside(ctx context.Context, a aside, send transport.Send) {
	var buf []byte
	msg, err := ss.srv.idx.at(a.at, a.seq, &buf)
	if err != nil {
		ss.srv.log.Warn().Err(err).Int64("seq", a.seq).Msg("the server's request recorded between the client's requests could not be read back: not sent")
		return
	}
	rec, err := jsonrpc.Parse(msg)
	if err != nil {
		return // indexed as a request: it parsed then
	}
	id, answered := ss.srv.ask()
	if err := send(ctx, rec.WithID([]byte(id))); err != nil {
		ss.srv.forget(id)
		ss.srv.log.Debug().Err(err).Str("session", ss.info.ID).Str("method", rec.Method).Msg("could not send the server's request on the session's own stream")
		return
	}
	go func() {
		t := time.NewTimer(ss.srv.askTimeout)
		defer t.Stop()
		select {
		case <-answered:
		case <-t.C:
			ss.srv.forget(id)
			ss.mu.Lock()
			bound := ss.bound
			ss.mu.Unlock()
			ss.srv.addMiss(&Miss{Session: ss.info.ID, Recorded: bound, Method: transport.Clip(rec.Method), ID: json.RawMessage(id),
				Reason: fmt.Sprintf("the client did not answer the server's %s (sent with id %s on the session's own stream, where it was recorded between the client's requests) within %v", rec.Method, id, ss.srv.askTimeout)})
		case <-ss.done:
			ss.srv.forget(id)
		}
	}()
}

// waitUntil waits until t, or returns ctx's error or errSessionClosed.
func (ss *session) waitUntil(ctx context.Context, t time.Time) error {
	return ss.wait(ctx, time.Until(t))
}

// wait waits for d, or returns ctx's error or errSessionClosed first.
func (ss *session) wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-ss.done:
		return errSessionClosed
	}
}

// nth is the place of entry i among the requests of its method in its
// recorded session, from 1: chaos targets' Nth.
func (s *Server) nth(name string, i int) int {
	if s.chaos == nil {
		return 0
	}
	es := s.idx.sessions[name]
	n := 0
	for k := 0; k <= i; k++ {
		if es[k].method == es[i].method {
			n++
		}
	}
	return n
}

func hasNotifications(steps []step) bool {
	for _, st := range steps {
		if !st.ask {
			return true
		}
	}
	return false
}

// progressToken returns the raw _meta.progressToken of params.
func progressToken(params []byte) ([]byte, bool) {
	meta, ok := memberOf(params, "_meta")
	if !ok {
		return nil, false
	}
	return memberOf(meta, "progressToken")
}

// withProgressToken returns a notifications/progress with its
// params.progressToken set to token; other messages unchanged.
func withProgressToken(msg, token []byte) []byte {
	n, err := jsonrpc.Parse(msg)
	if err != nil || n.Method != "notifications/progress" {
		return msg
	}
	p := n.Params()
	var start, end int
	found := false
	_ = jsonscan.Members(p, func(m jsonscan.Member) bool {
		if string(m.Key) == "progressToken" {
			start, end, found = m.Start, m.End, true
			return false
		}
		return true
	})
	if !found || bytes.Equal(p[start:end], token) {
		return msg
	}
	np := make([]byte, 0, len(p)+len(token))
	np = append(append(append(np, p[:start]...), token...), p[end:]...)
	return n.WithParams(np)
}

// memberOf returns the raw value of obj's top-level member name.
func memberOf(obj []byte, name string) ([]byte, bool) {
	var v []byte
	found := false
	_ = jsonscan.Members(obj, func(m jsonscan.Member) bool {
		if string(m.Key) == name {
			v, found = obj[m.Start:m.End], true
			return false
		}
		return true
	})
	return v, found
}
