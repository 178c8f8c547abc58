package main

import (
	"context"
	"sync"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/transport"
)

// exchange is one client message as it went to the target, and the
// answer that came back for it (nil until it does, or for a
// notification).
type exchange struct {
	session string
	method  string
	sent    []byte
	answer  []byte
}

// tap is a transport.Dialer that sees what the debugger cannot get from a
// report.Result: the bytes sent (after any modify) and the answer that
// came back. The engine sends the messages of a session in order, so the
// debugger pairs a result with the first exchange of its session and
// method that it has not taken yet.
type tap struct {
	inner transport.Dialer

	mu      sync.Mutex             // guards the maps: conns send and receive on their own goroutines
	pending map[string][]*exchange // by session, in send order, not yet taken
	waiting map[string]*exchange   // by session and wire id, not yet answered
}

func newTap(inner transport.Dialer) *tap {
	return &tap{inner: inner, pending: map[string][]*exchange{}, waiting: map[string]*exchange{}}
}

// Dial connects through the wrapped dialer.
func (t *tap) Dial(ctx context.Context, session string) (transport.Conn, error) {
	c, err := t.inner.Dial(ctx, session)
	if err != nil {
		return nil, err
	}
	tc := &tapConn{Conn: c, t: t, session: session, in: make(chan transport.Incoming), quit: make(chan struct{}), done: make(chan struct{})}
	go tc.forward() // ends when the wrapped conn's Incoming closes, or at Close
	return tc, nil
}

// sent notes a message on its way to the target.
func (t *tap) sent(session string, msg []byte) {
	rpc, err := jsonrpc.Parse(msg)
	if err != nil || jsonrpc.IsResponseKind(rpc.Kind) {
		return // answers to the server's requests are not the debugger's steps
	}
	ex := &exchange{session: session, method: rpc.Method, sent: append([]byte(nil), msg...)}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pending[session] = append(t.pending[session], ex)
	if rpc.Kind == jsonrpc.KindRequest {
		t.waiting[session+"\x00"+jsonrpc.IDKey(rpc.ID)] = ex
	}
}

// received pairs an answer with its request.
func (t *tap) received(session string, msg []byte) {
	rpc, err := jsonrpc.Parse(msg)
	if err != nil || !jsonrpc.IsResponseKind(rpc.Kind) {
		return
	}
	key := session + "\x00" + jsonrpc.IDKey(rpc.ID)
	t.mu.Lock()
	defer t.mu.Unlock()
	if ex, ok := t.waiting[key]; ok {
		ex.answer = append([]byte(nil), msg...)
		delete(t.waiting, key)
	}
}

// take returns the first exchange of session with method not taken yet,
// and forgets it and the ones before it of the same method.
func (t *tap) take(session, method string) (exchange, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	q := t.pending[session]
	for i, ex := range q {
		if ex.method == method {
			t.pending[session] = append(q[:i:i], q[i+1:]...)
			return *ex, true
		}
	}
	return exchange{}, false
}

// reset forgets the exchanges not taken: after a seek their results never
// come.
func (t *tap) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	clear(t.pending)
}

// tapConn is a connection whose traffic the tap sees.
type tapConn struct {
	transport.Conn
	t       *tap
	session string
	in      chan transport.Incoming
	quit    chan struct{}
	done    chan struct{}
	once    sync.Once
}

func (c *tapConn) Send(ctx context.Context, msg []byte) error {
	c.t.sent(c.session, msg)
	return c.Conn.Send(ctx, msg)
}

func (c *tapConn) Incoming() <-chan transport.Incoming { return c.in }

// forward copies the wrapped connection's messages, noting the answers.
func (c *tapConn) forward() {
	defer close(c.done)
	defer close(c.in)
	for m := range c.Conn.Incoming() {
		c.t.received(c.session, m.Msg)
		select {
		case c.in <- m:
		case <-c.quit:
			return
		}
	}
}

// Close stops forwarding, then closes the wrapped connection (which must
// not wait for a reader of its Incoming) and waits for forward.
func (c *tapConn) Close() error {
	c.once.Do(func() { close(c.quit) })
	err := c.Conn.Close()
	<-c.done
	return err
}
