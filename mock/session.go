package mock

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// errSessionClosed ends a wait when the session is closed under it.
var errSessionClosed = errors.New("mock: session closed")

// session is one live client of a Server. Handle is called from the
// listener's goroutines, several at once; what they share is under mu.
type session struct {
	srv  *Server
	info transport.SessionInfo
	live *Live // what the Server's MissHandler sees of it

	mu     sync.Mutex // guards the fields below
	bound  string     // the recorded session, "" until the first request binds it
	copy   string     // its copy name, "s1#2"
	cur    cursor     // session-based: which recorded requests were answered
	first  query      // the request that bound it
	kin    map[string]*kinCursor
	held   []chan struct{}
	unsol  transport.Send
	closed bool
	heard  int // the client's messages handled
	asided int // the bound session's asides sent

	done      chan struct{} // closed by Close: ends every wait
	closeOnce sync.Once
}

var _ transport.Session = (*session)(nil)

func newSession(s *Server, info transport.SessionInfo) *session {
	return &session{srv: s, info: info, live: &Live{Info: info}, done: make(chan struct{})}
}

// SetUnsolicited keeps where to send what belongs to no request: the
// requests the server recorded asking while none of the client's was in
// flight (see aside). Every other recorded server message is sent around
// the answer it was recorded before.
func (ss *session) SetUnsolicited(send transport.Send) {
	ss.mu.Lock()
	ss.unsol = send
	ss.mu.Unlock()
}

// Close ends the session: every wait of its Handle calls (recorded
// latency, a client's answer, a missing answer) returns. It returns nil;
// later calls do nothing.
func (ss *session) Close() error {
	ss.closeOnce.Do(func() {
		ss.mu.Lock()
		ss.closed = true
		ss.mu.Unlock()
		close(ss.done)
		if ss.srv.onMiss != nil {
			ss.srv.onMiss.Closed(ss.live)
		}
		ss.srv.log.Debug().Str("session", ss.info.ID).Msg("session closed")
	})
	return nil
}

// Handle answers one message of the client (see transport.Session). A
// request gets, through send, what the server recorded around its answer
// and then the answer with the live id, or a JSON-RPC error (CodeMiss)
// naming the closest recorded request; a request the tape does not have
// that a server of its revision answers anyway is answered so (see
// Server.unrecorded: ping, server/discover on a session-based tape). The client's answer to a request of the server goes to the
// Handle call waiting for it; notifications are taken silently. A message
// that is not JSON-RPC gets a parse error (-32700) or an invalid request
// error (-32600), as a good server answers. Handle returns when the
// answer is sent, with ctx's error when ctx is done first, with
// transport.ErrHangUp when chaos drops the connection, or with send's
// error. Once the client has sent as many messages as the recorded one
// had before a request its server asked between requests, that request
// goes on the session's own stream (see aside).
func (ss *session) Handle(ctx context.Context, msg []byte, send transport.Send) error {
	err := ss.handle(ctx, msg, send)
	ss.heardOne(ctx)
	return err
}

func (ss *session) handle(ctx context.Context, msg []byte, send transport.Send) error {
	req, err := jsonrpc.ParseStrict(msg)
	if err != nil || req.Kind == jsonrpc.KindBatch || req.Kind == jsonrpc.KindInvalid {
		return send(ctx, badMessage(msg))
	}
	h := ss.srv.onMiss
	if h != nil {
		ss.live.noteHandshake(req, msg)
	}
	switch req.Kind {
	case jsonrpc.KindRequest:
		return ss.answer(ctx, req, send)
	case jsonrpc.KindResponse, jsonrpc.KindError:
		if !ss.srv.deliver(jsonrpc.IDKey(req.ID), msg) && (h == nil || !h.Answer(ctx, ss.live, msg)) {
			ss.srv.log.Debug().Str("session", ss.info.ID).Str("id", string(req.ID)).Msg("an answer to no request of the server: dropped")
		}
	case jsonrpc.KindNotification:
		if h != nil {
			h.Notify(ctx, ss.live, msg)
		}
	}
	return nil // notifications (initialized, cancelled, progress…): taken
}

// found is what matching a live request gave.
type found struct {
	name string // the recorded session
	i    int    // the entry in it
	copy string // the chaos key: the copy name, or the stateless round
	miss *Miss
	// unrecorded is the answer a server of the tape's revision gives to
	// a request it was not recorded answering (see Server.unrecorded),
	// or nil.
	unrecorded []byte
	fresh      bool
}

// match finds the recorded request to answer req with, binding the
// session to a recorded session on its first request, and counts it as
// answered.
func (ss *session) match(req jsonrpc.Message) found {
	q := ss.srv.query(req)
	if ss.info.Stateless {
		return ss.matchStateless(req, q)
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.bound == "" {
		name, ok := ss.srv.bind(q)
		if !ok {
			if ans := ss.srv.unrecorded(req); ans != nil {
				return found{unrecorded: ans}
			}
			return found{miss: ss.srv.missUnbound(ss.info.ID, req, q)}
		}
		ss.bound, ss.copy, ss.first = name, ss.srv.newCopy(name), q
		ss.cur = newCursor(len(ss.srv.idx.sessions[name]))
		ss.srv.log.Debug().Str("session", ss.info.ID).Str("recorded", ss.copy).Msg("bound")
	}
	p := ss.srv.choose(&ss.cur, ss.bound, q, ss.srv.repeat)
	if p.i < 0 || !p.fresh && !ss.srv.repeat {
		if f, ok := ss.matchKin(q); ok {
			return f
		}
		if ans := ss.srv.unrecorded(req); ans != nil {
			return found{unrecorded: ans}
		}
		return found{miss: ss.srv.missIn(ss.info.ID, ss.bound, &ss.cur, req, q, p)}
	}
	ss.cur.use(p.i)
	return found{name: ss.bound, i: p.i, copy: ss.copy, fresh: p.fresh}
}

// matchStateless matches a request of stateless traffic against the
// shared cursors: the first recorded session with a matching request
// never answered, else (repeating) the first with a matching request at
// all. Its chaos key is the round: "s1#k" when the request is answered
// for the k-th time.
func (ss *session) matchStateless(req jsonrpc.Message, q query) found {
	srv := ss.srv
	for _, again := range []bool{false, true} {
		for _, name := range srv.idx.order {
			sc := srv.shared[name]
			sc.mu.Lock()
			p := srv.choose(&sc.cur, name, q, again)
			if p.i >= 0 && (p.fresh || again) {
				sc.cur.use(p.i)
				sc.mu.Unlock()
				return found{name: name, i: p.i, copy: fmt.Sprintf("%s#%d", name, p.uses+1), fresh: p.fresh}
			}
			sc.mu.Unlock()
		}
	}
	if ans := srv.unrecorded(req); ans != nil {
		return found{unrecorded: ans}
	}
	return found{miss: srv.missUnbound(ss.info.ID, req, q)}
}

// answer answers one request.
func (ss *session) answer(ctx context.Context, req jsonrpc.Message, send transport.Send) error {
	f := ss.match(req)
	if f.miss == nil && f.unrecorded == nil && ss.srv.idx.sessions[f.name][f.i].ans == 0 {
		f.miss = ss.srv.missUnanswered(ss.info.ID, f.name, f.i, req)
	}
	switch {
	case f.unrecorded != nil:
		return ss.sent(send(ctx, f.unrecorded))
	case f.miss != nil && ss.srv.onMiss != nil:
		err := ss.srv.onMiss.Miss(ctx, ss.live, req.Raw, send)
		if err == nil || ctx.Err() != nil {
			return ss.sent(err)
		}
		f.miss.Reason += "; forwarding it failed: " + tape.MaskURLs(err.Error()) // the upstream's URL may hold credentials
		ss.srv.addMiss(f.miss)
		return ss.sent(send(ctx, f.miss.answer(req.ID)))
	case f.miss != nil:
		ss.srv.addMiss(f.miss)
		return ss.sent(send(ctx, f.miss.answer(req.ID)))
	}
	return ss.play(ctx, req, f, send)
}

// sent marks that the session has sent an answer: answers held for
// out-of-order chaos may go now. It passes err through.
func (ss *session) sent(err error) error {
	ss.mu.Lock()
	held := ss.held
	ss.held = nil
	ss.mu.Unlock()
	for _, ch := range held {
		close(ch)
	}
	return err
}

// hold returns a channel closed when the session's next answer has been
// sent.
func (ss *session) hold() chan struct{} {
	ch := make(chan struct{})
	ss.mu.Lock()
	ss.held = append(ss.held, ch)
	ss.mu.Unlock()
	return ch
}
