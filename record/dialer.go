package record

// A Dialer that records the connections it opens: the replayer's side of
// a re-recording (replayctl run --rerecord).

import (
	"context"
	"sync"
	"time"

	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// DialerOption configures Dialer.
type DialerOption func(*dialer)

// DialSessions decides, per connection, whether it is recorded and under
// which session name: name is the session Dial was given; keep false
// leaves the connection untapped. Without it every connection is
// recorded under its own name.
func DialSessions(name func(session string) (recorded string, keep bool)) DialerOption {
	return func(d *dialer) { d.name = name }
}

// Dialer returns a transport.Dialer that dials through d and records
// every connection it opens into tap, as a recording proxy would: each
// message sent (c2s) just before it goes to the target, each message
// received (s2c) as it is handed on, with the time it was read and the
// HTTP and SSE metadata it came with. A message the target sent after
// Close began is recorded too, but not handed on.
//
// The connections keep what their targets can do (transport.Asker,
// ConcurrentSender, InstantSender, Rewinder), except writing raw bytes
// or slowly (RawWriter, SlowSender: chaos faults, which a recording
// should not carry). A write error of tap is sticky in it (Tap.Close
// returns it); the connection goes on.
func Dialer(d transport.Dialer, tap *Tap, opts ...DialerOption) transport.Dialer {
	td := &dialer{inner: d, tap: tap, name: func(s string) (string, bool) { return s, true }}
	for _, opt := range opts {
		opt(td)
	}
	return td
}

type dialer struct {
	inner transport.Dialer
	tap   *Tap
	name  func(string) (string, bool)
}

// Dial dials the session through the wrapped dialer and taps the
// connection, if DialSessions keeps it.
func (d *dialer) Dial(ctx context.Context, session string) (transport.Conn, error) {
	c, err := d.inner.Dial(ctx, session)
	if err != nil {
		return nil, err
	}
	name, keep := d.name(session)
	if !keep {
		return c, nil
	}
	tc := &tappedConn{inner: c, tap: d.tap, session: name, in: make(chan transport.Incoming), done: make(chan struct{})}
	tc.relay.Go(tc.relayIncoming)
	return tc, nil
}

// tappedConn is a connection whose messages are recorded. One goroutine
// (relayIncoming) reads the target's messages, records and hands them on;
// it ends when the wrapped connection's Incoming closes.
type tappedConn struct {
	inner   transport.Conn
	tap     *Tap
	session string
	in      chan transport.Incoming // handed on; closed by relayIncoming
	done    chan struct{}           // closed by Close: stop handing on
	once    sync.Once
	relay   sync.WaitGroup
}

// Send records msg, then sends it.
func (c *tappedConn) Send(ctx context.Context, msg []byte) error {
	_ = c.tap.Record(time.Time{}, c.session, tape.C2S, msg, nil, nil) // a write error is the Tap's, sticky
	return c.inner.Send(ctx, msg)
}

// Incoming is the target's messages, each recorded before it is here.
func (c *tappedConn) Incoming() <-chan transport.Incoming { return c.in }

// Err is the wrapped connection's.
func (c *tappedConn) Err() error { return c.inner.Err() }

// Close closes the wrapped connection and waits for the relay.
func (c *tappedConn) Close() error {
	c.once.Do(func() { close(c.done) })
	err := c.inner.Close()
	c.relay.Wait()
	return err
}

// relayIncoming records each message of the target and hands it on,
// until the wrapped connection's Incoming closes; after Close it only
// records (no one reads c.in any more).
func (c *tappedConn) relayIncoming() {
	defer close(c.in)
	for m := range c.inner.Incoming() {
		_ = c.tap.Record(m.At, c.session, tape.S2C, m.Msg, m.HTTP, m.SSE)
		select {
		case c.in <- m:
		case <-c.done:
		}
	}
}

// Asks is the wrapped connection's answer; a connection that cannot say
// may ask.
func (c *tappedConn) Asks() bool {
	a, ok := c.inner.(transport.Asker)
	return !ok || a.Asks()
}

// SendsConcurrently is the wrapped connection's answer (Record is safe
// for concurrent use).
func (c *tappedConn) SendsConcurrently() bool {
	s, ok := c.inner.(transport.ConcurrentSender)
	return ok && s.SendsConcurrently()
}

// OwnServer is the wrapped connection's answer.
func (c *tappedConn) OwnServer() bool {
	o, ok := c.inner.(transport.OwnServer)
	return ok && o.OwnServer()
}

// SendsInstantly is the wrapped connection's answer.
func (c *tappedConn) SendsInstantly() bool { return transport.SendsInstantly(c.inner) }

// Rewind rewinds the wrapped connection if it can; else there is nothing
// to rewind.
func (c *tappedConn) Rewind(seq int64) error {
	if rw, ok := c.inner.(transport.Rewinder); ok {
		return rw.Rewind(seq)
	}
	return nil
}

var (
	_ transport.Asker            = (*tappedConn)(nil)
	_ transport.ConcurrentSender = (*tappedConn)(nil)
	_ transport.InstantSender    = (*tappedConn)(nil)
	_ transport.Rewinder         = (*tappedConn)(nil)
)
