package mock

import (
	"context"
	"slices"
	"sync"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/transport"
)

// MissHandler answers what a Server's tape cannot: serve --mode new
// forwards a miss to the real server. A Server with one (WithMissHandler)
// hands it every miss instead of answering it with a CodeMiss error, and
// tells it what else of a live session it may need: the client's
// notifications and its answers to requests the handler sent it, and the
// session's end. Its methods are called from the listener's goroutines,
// several at once, for one live session or many.
type MissHandler interface {
	// Miss answers req, a request of live the tape has no answer for,
	// as Session.Handle does: through send, whatever the server says
	// while answering, then the answer with req's id; it returns when the
	// answer is sent or ctx is done. It returns an error, having sent
	// nothing, when it cannot answer (the upstream is unreachable): the
	// Server then keeps the Miss, the error in its reason, and answers
	// the client with the CodeMiss error.
	Miss(ctx context.Context, live *Live, req []byte, send transport.Send) error
	// Notify takes a notification of the client (initialized, cancelled,
	// progress…), after the Server has taken it. It must not block long.
	Notify(ctx context.Context, live *Live, msg []byte)
	// Answer takes a client's response that no request of the Server
	// waits for: an answer to a request Miss sent the client. It returns
	// false when the response is not its either.
	Answer(ctx context.Context, live *Live, msg []byte) bool
	// Closed says the live session has ended: Miss, Notify and Answer
	// are not called for it again.
	Closed(live *Live)
}

// WithMissHandler has h answer the requests the tape cannot (see
// MissHandler); nil, the default, answers them with a CodeMiss error.
func WithMissHandler(h MissHandler) ServerOption {
	return func(c *serverConfig) { c.onMiss = h }
}

// Live is a live client session as a MissHandler sees it: what the
// listener said of it, and the client's handshake, which a handler
// opening a connection of its own to a real server sends first, so that
// the session it records begins as the live one did.
type Live struct {
	Info transport.SessionInfo

	mu        sync.Mutex // guards handshake
	handshake [][]byte
}

// Handshake returns the client's initialize request and its
// notifications/initialized (2026-07-28 over a session-based listener
// such as stdio: its server/discover), as it sent them, the requests in
// the order they came and the notification after them: those that have
// come so far (none for stateless HTTP traffic, one Session per request).
func (l *Live) Handshake() [][]byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([][]byte(nil), l.handshake...)
}

// noteHandshake keeps msg when it is the client's first initialize or
// notifications/initialized.
func (l *Live) noteHandshake(m jsonrpc.Message, msg []byte) {
	switch m.Method {
	case "initialize", "notifications/initialized", "server/discover":
	default:
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, h := range l.handshake {
		if p, err := jsonrpc.Parse(h); err == nil && p.Method == m.Method {
			return
		}
	}
	kept := append([]byte(nil), msg...)
	// A request goes before a notification already kept: the stdio
	// listener hands each line to a goroutine of its own, so a client's
	// notifications/initialized written right behind its initialize may
	// be handled first, and the upstream must still get initialize first.
	at := len(l.handshake)
	if m.Kind == jsonrpc.KindRequest {
		for i, h := range l.handshake {
			if p, err := jsonrpc.Parse(h); err == nil && p.Kind == jsonrpc.KindNotification {
				at = i
				break
			}
		}
	}
	l.handshake = slices.Insert(l.handshake, at, kept)
}

// kinCursor is a live session's cursor in a kin of its recorded session.
type kinCursor struct {
	cur  cursor
	copy string // its copy name, given at its first answer
	not  bool   // not a kin: no request like the live session's first
}

// matchKin looks for q, which the session's recorded session cannot
// answer, in its kin: the other recorded sessions holding a request like
// the one that bound the live session (the same handshake), in tape
// order, each with a cursor of the live session's own (that request
// counted as answered). Sessions that serve --mode new added
// are such kin: each holds a client's handshake and the requests the
// tape missed, so that a later client like it is answered from both.
// Not for the sequential strategy, whose order is one recorded
// session's. ss.mu is held.
func (ss *session) matchKin(q query) (found, bool) {
	srv := ss.srv
	if srv.strategy == Sequential {
		return found{}, false
	}
	for _, name := range srv.idx.order {
		if name == ss.bound {
			continue
		}
		k := ss.kin[name]
		if k == nil {
			k = &kinCursor{cur: newCursor(len(srv.idx.sessions[name]))}
			if p := srv.choose(&k.cur, name, ss.first, false); p.i >= 0 {
				k.cur.use(p.i) // the live session's first request: answered
			} else {
				k.not = true
			}
			if ss.kin == nil {
				ss.kin = map[string]*kinCursor{}
			}
			ss.kin[name] = k
		}
		if k.not {
			continue
		}
		p := srv.choose(&k.cur, name, q, false)
		if p.i < 0 || !p.fresh {
			continue
		}
		k.cur.use(p.i)
		if k.copy == "" {
			k.copy = srv.newCopy(name)
		}
		return found{name: name, i: p.i, copy: k.copy, fresh: true}, true
	}
	return found{}, false
}
