package forward

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mock"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// upstream is one live session's connection to the real server, and its
// tape session.
type upstream struct {
	f    *Forwarder
	live *mock.Live
	name string

	// Under f.mu (see Forwarder.acquire): the forwarded requests in
	// flight, since when there are none, the timer that closes it idle.
	inflight  int
	idleSince time.Time
	timer     *time.Timer

	dialMu sync.Mutex // held while dialing and sending the handshake; guards err
	err    error      // why the connection failed (sticky)
	// conn and read (closed when the reader has ended) are set once,
	// under mu and dialMu.
	conn transport.Conn
	read chan struct{}

	sendMu sync.Mutex // one Send at a time, unless the connection sends concurrently

	mu       sync.Mutex        // guards the fields below
	pending  map[string]waiter // the calls waiting for an answer, by id key
	streams  []*stream         // the client streams of the forwarded requests in flight
	asks     map[string][]byte // relayed upstream requests: our id key → the upstream's id
	sentInit bool              // notifications/initialized has gone upstream
	// awaitInit: the miss that dialed is the client's initialize, which
	// forward sends; notifications/initialized waits for its answer
	// (see afterInit).
	awaitInit bool
	closed    bool
}

// waiter is a call waiting for an answer: where the answer goes, and the
// method it asked.
type waiter struct {
	ch     chan reply
	method string
}

// reply is what a call waiting for an answer gets: the answer, or the
// upstream's fault that lost it.
type reply struct {
	msg []byte
	err error
}

// stream is the client stream of one forwarded request: what the
// upstream sends while answering it goes there, until the request ends.
type stream struct {
	mu   sync.Mutex // held while sending; gone set under it
	ctx  context.Context
	send transport.Send
	gone bool
}

// forward sends req upstream (dialing first if need be) and its answer,
// and what comes before it, to the client.
func (u *upstream) forward(ctx context.Context, req []byte, send transport.Send) error {
	sendsInit, err := u.ensure(ctx, req)
	if err != nil {
		return err
	}
	m := parse(req)
	if m == nil || m.Kind != jsonrpc.KindRequest {
		return fmt.Errorf("forward: not a request")
	}
	st := &stream{ctx: ctx, send: send}
	u.mu.Lock()
	u.streams = append(u.streams, st)
	u.mu.Unlock()
	defer u.endStream(st)
	answer, err := u.call(ctx, m)
	if sendsInit {
		u.afterInit(ctx, err == nil)
	}
	if err != nil {
		return err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.gone = true
	return send(ctx, answer)
}

// call sends the request m upstream, recorded, and waits for its answer
// (recorded by the reader).
func (u *upstream) call(ctx context.Context, m *jsonrpc.Message) ([]byte, error) {
	key := jsonrpc.IDKey(m.ID)
	ch := make(chan reply, 1)
	u.mu.Lock()
	u.pending[key] = waiter{ch: ch, method: m.Method}
	u.mu.Unlock()
	defer func() {
		u.mu.Lock()
		delete(u.pending, key)
		u.mu.Unlock()
	}()
	u.record(tape.C2S, m.Raw)
	if err := u.sendUp(ctx, m.Raw); err != nil {
		return nil, fmt.Errorf("send %s upstream: %w", m.Method, err)
	}
	late := time.NewTimer(u.f.answerTimeout)
	defer late.Stop()
	select {
	case <-late.C:
		u.cancelUp(m)
		return nil, fmt.Errorf("%w: no answer to %s within %v", ErrAnswerTimeout, m.Method, u.f.answerTimeout)
	case r := <-ch:
		if r.err != nil {
			return nil, fmt.Errorf("the upstream's answer to %s: %w", m.Method, r.err)
		}
		return r.msg, nil
	case <-u.read:
		return nil, fmt.Errorf("the upstream connection ended before answering %s: %w", m.Method, u.connErr())
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// cancelUp tells the upstream that the request m is no longer awaited
// (MCP's notifications/cancelled), so that it can stop its work; not for
// initialize, which MCP says must not be cancelled: the miss fails, the
// upstream is told nothing.
func (u *upstream) cancelUp(m *jsonrpc.Message) {
	if m.Method == "initialize" {
		return
	}
	msg := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"replayctl serve: no answer within %v (--upstream-timeout)"}}`, m.ID, u.f.answerTimeout)
	u.record(tape.C2S, msg)
	ctx, cancel := context.WithTimeout(context.Background(), handshakeTimeout)
	defer cancel()
	if err := u.sendUp(ctx, msg); err != nil {
		u.f.log.Debug().Str("session", u.name).Err(err).Msg("notifications/cancelled could not be sent upstream")
	}
}

// connErr is why the connection ended.
func (u *upstream) connErr() error {
	if err := u.conn.Err(); err != nil {
		return err
	}
	return errors.New("closed")
}

// ensure dials the upstream at the first miss and sends it the client's
// handshake: its initialize (waiting for the answer) and its
// notifications/initialized. When req is that initialize, ensure sends
// nothing: sendsInit is true, forward sends req, and the notification
// goes once req is answered (afterInit), never before it.
func (u *upstream) ensure(ctx context.Context, req []byte) (sendsInit bool, err error) {
	u.dialMu.Lock()
	defer u.dialMu.Unlock()
	if u.conn != nil || u.err != nil {
		return false, u.err
	}
	u.mu.Lock()
	closed := u.closed
	u.mu.Unlock()
	if closed {
		return false, errClosed
	}
	conn, err := u.f.dialerOf(u).Dial(context.WithoutCancel(ctx), u.name)
	if err != nil {
		u.err = fmt.Errorf("dial the upstream: %w", err)
		return false, u.err
	}
	u.mu.Lock()
	if u.closed {
		u.mu.Unlock()
		_ = conn.Close()
		u.err = errClosed
		return false, u.err
	}
	u.conn, u.read = conn, make(chan struct{})
	u.mu.Unlock()
	go u.reader()
	// The handshake belongs to the session, not to the request that
	// started it: a client that cancels that request must not leave the
	// session without an upstream. It is bounded on its own.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), handshakeTimeout)
	defer cancel()
	for _, h := range u.live.Handshake() {
		if bytes.Equal(h, req) {
			// The miss is the initialize itself: forward sends it, and
			// what the client sent after it waits for its answer (a
			// notifications/initialized handled first is kept after
			// it: see mock.Live.Handshake).
			u.mu.Lock()
			u.awaitInit = true
			u.mu.Unlock()
			return true, nil
		}
		m := parse(h)
		if m == nil {
			continue
		}
		if m.Kind == jsonrpc.KindRequest {
			if _, err := u.call(ctx, m); err != nil {
				u.err = fmt.Errorf("the upstream handshake: %w", err)
				return false, u.err
			}
			continue
		}
		u.mu.Lock()
		u.sentInit = true
		u.mu.Unlock()
		u.record(tape.C2S, h)
		if err := u.sendUp(ctx, h); err != nil {
			u.err = fmt.Errorf("the upstream handshake: %w", err)
			return false, u.err
		}
	}
	return false, nil
}

// afterInit ends the wait of notifications/initialized for the answer to
// the client's initialize, which forward sent as the miss that dialed
// (see ensure): the notification the client sent goes upstream now, once,
// unless the initialize got no answer (ok false). One the client sends
// later goes through notify.
func (u *upstream) afterInit(ctx context.Context, ok bool) {
	u.mu.Lock()
	u.awaitInit = false
	u.mu.Unlock()
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), handshakeTimeout)
	defer cancel()
	for _, h := range u.live.Handshake() {
		if m := parse(h); m != nil && m.Kind == jsonrpc.KindNotification {
			u.notify(ctx, h)
		}
	}
}

// handshakeTimeout bounds the replay of a client's handshake to the
// upstream, and the sending of a refusal to an upstream request.
const handshakeTimeout = 30 * time.Second

// sendUp sends one message upstream.
func (u *upstream) sendUp(ctx context.Context, msg []byte) error {
	if cs, ok := u.conn.(transport.ConcurrentSender); !ok || !cs.SendsConcurrently() {
		u.sendMu.Lock()
		defer u.sendMu.Unlock()
	}
	return u.conn.Send(ctx, msg)
}

// reader records every message of the upstream and routes it: an answer
// to the call waiting for it; a notification or request to the client
// stream of the latest forwarded request in flight.
func (u *upstream) reader() {
	defer close(u.read)
	for in := range u.conn.Incoming() {
		u.record(tape.S2C, in.Msg)
		m := parse(in.Msg)
		if m == nil {
			continue
		}
		switch m.Kind {
		case jsonrpc.KindResponse, jsonrpc.KindError:
			u.mu.Lock()
			ch := u.pending[jsonrpc.IDKey(m.ID)].ch
			u.mu.Unlock()
			if ch != nil {
				select { // a 1-slot channel: an answer the upstream repeats must not block its reader
				case ch <- reply{msg: in.Msg}:
				default:
					u.f.log.Debug().Str("session", u.name).Str("id", string(m.ID)).Msg("the upstream answered this id again: recorded, not relayed")
				}
			}
		case jsonrpc.KindRequest:
			u.relayRequest(m)
		case jsonrpc.KindNotification:
			if st := u.latest(); st == nil || !st.relay(in.Msg) {
				u.f.log.Debug().Str("session", u.name).Str("method", m.Method).Msg("an upstream notification with no client request in flight: recorded, not relayed")
			}
		}
	}
}

// fault fails the call waiting for the answer the upstream lost (f.ID),
// or, for a fault that is no one request's (a stdio line that is not
// JSON, most likely meant as an answer), every call waiting but an
// initialize (a server starting may print a banner): each client is
// answered with an error naming the fault rather than left waiting for
// an answer that will not come.
func (u *upstream) fault(f transport.Fault) {
	u.mu.Lock()
	var chs []chan reply
	if f.ID != nil {
		if w, ok := u.pending[jsonrpc.IDKey(f.ID)]; ok {
			chs = append(chs, w.ch)
		}
	} else {
		for _, w := range u.pending {
			if w.method != "initialize" {
				chs = append(chs, w.ch)
			}
		}
	}
	u.mu.Unlock()
	for _, ch := range chs {
		select { // 1-slot: the answer (or another fault) came first
		case ch <- reply{err: f.Err}:
		default:
		}
	}
}

// relayRequest sends a request of the upstream to the client with an id
// of the Forwarder's, or refuses it when no client stream is open.
func (u *upstream) relayRequest(m *jsonrpc.Message) {
	id := u.f.askID()
	key := jsonrpc.IDKey(id)
	u.mu.Lock()
	u.asks[key] = append([]byte(nil), m.ID...)
	u.mu.Unlock()
	if st := u.latest(); st != nil && st.relay(m.WithID(id)) {
		return
	}
	u.mu.Lock()
	delete(u.asks, key)
	u.mu.Unlock()
	u.f.refused.Add(1)
	u.f.log.Warn().Str("session", u.name).Str("method", m.Method).Msg("an upstream request with no client request in flight to relay it on: answered with an error")
	r := refusal(m.ID)
	u.record(tape.C2S, r)
	go func() { // not from the reader: Send may wait on it; bounded, so it cannot outlive a stuck upstream
		ctx, cancel := context.WithTimeout(context.Background(), handshakeTimeout)
		defer cancel()
		_ = u.sendUp(ctx, r)
	}()
}

// answer sends the client's answer to a relayed request upstream, with
// the upstream's id; false when msg answers no relayed request.
func (u *upstream) answer(ctx context.Context, msg []byte) bool {
	m := parse(msg)
	if m == nil {
		return false
	}
	key := jsonrpc.IDKey(m.ID)
	u.mu.Lock()
	orig, ok := u.asks[key]
	delete(u.asks, key)
	u.mu.Unlock()
	if !ok {
		return false
	}
	out := m.WithID(orig)
	u.record(tape.C2S, out)
	if err := u.sendUp(ctx, out); err != nil {
		u.f.log.Warn().Str("session", u.name).Err(err).Msg("the client's answer could not be sent upstream")
	}
	return true
}

// notify sends a client notification upstream once the connection
// exists (notifications/initialized only if the handshake did not; a
// notifications/cancelled of the client's initialize never: see
// cancelsInitialize).
func (u *upstream) notify(ctx context.Context, msg []byte) {
	u.dialMu.Lock()
	ready := u.conn != nil && u.err == nil
	u.dialMu.Unlock()
	if !ready {
		return
	}
	m := parse(msg)
	if m == nil {
		return
	}
	if m.Method == "notifications/cancelled" && u.cancelsInitialize(m) {
		u.f.log.Warn().Str("session", u.name).Msg("the client cancelled its initialize, which MCP forbids (\"The initialize request MUST NOT be cancelled by clients\"): ignored and not sent upstream; the handshake goes on, and its answer goes to the client")
		return
	}
	if m.Method == "notifications/initialized" {
		u.mu.Lock()
		sent, held := u.sentInit, u.awaitInit
		u.sentInit = sent || !held
		u.mu.Unlock()
		if sent || held {
			return // afterInit sends it (the handshake keeps it) once initialize is answered
		}
	}
	u.record(tape.C2S, msg)
	if err := u.sendUp(ctx, msg); err != nil {
		u.f.log.Debug().Str("session", u.name).Err(err).Msg("a client notification could not be sent upstream")
	}
}

// cancelsInitialize reports whether m, a client's notifications/cancelled,
// names the session's initialize: the id of the client's initialize,
// unless a forwarded request of another method in flight upstream has
// that id now (a client may use an id again once its request is
// answered). MCP (2025-06-18, 2025-11-25, "Cancellation") says the
// initialize request MUST NOT be cancelled by clients, and a receiver
// MAY ignore a cancellation of a request that cannot be cancelled: serve
// ignores it, as the upstream's client it must not send it (an upstream
// that honours it would never answer initialize, so that the session
// would never get notifications/initialized), and the client gets the
// answer it may ignore.
func (u *upstream) cancelsInitialize(m *jsonrpc.Message) bool {
	var params struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(m.Params(), &params) != nil || len(params.RequestID) == 0 {
		return false
	}
	key := jsonrpc.IDKey(params.RequestID)
	isInit := false
	for _, h := range u.live.Handshake() {
		if hm := parse(h); hm != nil && hm.Kind == jsonrpc.KindRequest && hm.Method == "initialize" && jsonrpc.IDKey(hm.ID) == key {
			isInit = true
		}
	}
	if !isInit {
		return false
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	w, inFlight := u.pending[key]
	return !inFlight || w.method == "initialize"
}

// latest is the client stream of the latest forwarded request in flight.
func (u *upstream) latest() *stream {
	u.mu.Lock()
	defer u.mu.Unlock()
	if n := len(u.streams); n > 0 {
		return u.streams[n-1]
	}
	return nil
}

// endStream drops st: nothing more is sent on it.
func (u *upstream) endStream(st *stream) {
	st.mu.Lock()
	st.gone = true
	st.mu.Unlock()
	u.mu.Lock()
	for i, s := range u.streams {
		if s == st {
			u.streams = append(u.streams[:i], u.streams[i+1:]...)
			break
		}
	}
	u.mu.Unlock()
}

// relay sends msg on the stream; false when the stream has ended.
func (st *stream) relay(msg []byte) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.gone {
		return false
	}
	return st.send(st.ctx, msg) == nil
}

// close ends the upstream connection and waits for the reader.
func (u *upstream) close() {
	u.mu.Lock()
	u.closed = true
	conn, read := u.conn, u.read
	u.mu.Unlock()
	if conn != nil {
		_ = conn.Close()
		<-read
	}
}
