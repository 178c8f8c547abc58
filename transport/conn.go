package transport

import (
	"context"
	"time"

	"github.com/replayctl/replayctl/tape"
)

// Conn is one session's connection to a target.
//
// Send may be called from one goroutine at a time. Incoming delivers every
// message the target sends, in arrival order, and is closed when the
// connection ends; Err then says why (nil after Close).
type Conn interface {
	// Send writes one JSON-RPC message (no trailing newline). It returns
	// when the message has been handed to the target, or when ctx is done.
	Send(ctx context.Context, msg []byte) error
	// Incoming is the stream of messages from the target.
	Incoming() <-chan Incoming
	// Err is why Incoming was closed: nil after Close, else the target's
	// failure (for a subprocess: exit status and the tail of its stderr).
	Err() error
	// Close ends the connection and waits for its goroutines. Idempotent.
	Close() error
}

// Incoming is one message received from a target.
type Incoming struct {
	Msg  []byte    // the exact bytes received
	At   time.Time // when it was read
	HTTP *tape.HTTPMeta
	SSE  *tape.SSEMeta
}

// Dialer opens connections to one target, one per replayed session.
type Dialer interface {
	// Dial connects a new session. It returns when the connection is ready
	// to send, or when ctx is done.
	Dial(ctx context.Context, session string) (Conn, error)
}

// Rewinder is a connection that can start answering again as the recording
// did from a point of the tape on: the built-in mock. After a debugger's
// seek back the engine rewinds the connections that are Rewinders.
type Rewinder interface {
	Rewind(seq int64) error
}

// AsideSender is a connection that can answer a message that is not on
// the tape without counting it as one of the tape's: the built-in mock
// answers it as it would the recorded request like it, and keeps that
// recorded answer for the tape's own request. The engine sends the
// messages a debugger injects with SendAside on connections that have it.
type AsideSender interface {
	SendAside(ctx context.Context, msg []byte) error
}

// RawWriter is a connection that can write bytes that are not a whole
// message: a message in pieces, or cut short. Chaos faults use it
// (slow-write, disconnect mid-message); stdio connections have it.
type RawWriter interface {
	// WriteRaw writes p as it is (no newline added), or returns when ctx
	// is done.
	WriteRaw(ctx context.Context, p []byte) error
}

// SlowSender is a connection that can send a message slowly: in pieces of
// chunk bytes with a pause between them (the slow-write chaos fault).
// Stdio and Streamable HTTP connections have it.
type SlowSender interface {
	SendSlow(ctx context.Context, msg []byte, chunk int, pause time.Duration) error
}

// Asker is a connection that can say whether its target sends requests of
// its own (sampling/createMessage, roots/list, elicitation/create, ping).
// The built-in mock does not: it only answers. A connection that is not an
// Asker may. The engine waits for a live server's request the recording
// had (to send the client's recorded answer before what follows it) only
// on a connection that may ask.
type Asker interface {
	Asks() bool
}

// InstantSender is a connection whose Send returns at once whatever its
// ctx, waiting on nothing outside the process (the built-in mock answers
// from memory): a caller need not make a deadline to bound it, which
// costs a timer and a context for each message.
type InstantSender interface {
	Conn
	SendsInstantly() bool
}

// SendsInstantly reports whether c is an InstantSender that says so.
func SendsInstantly(c Conn) bool {
	s, ok := c.(InstantSender)
	return ok && s.SendsInstantly()
}

// DeadlineSender is a connection that takes a send's deadline apart from
// its ctx: SendBy(ctx, msg, deadline) is Send under ctx with that
// deadline, without the context and timer a caller would make for it
// when the connection can bound the wait itself (the lean HTTP client
// gives the deadline to its socket). An error of the deadline wraps
// context.DeadlineExceeded, as Send's would.
type DeadlineSender interface {
	Conn
	SendBy(ctx context.Context, msg []byte, deadline time.Time) error
}

// AsyncSender is a connection that can send a request without holding
// its caller: SendAsync(ctx, msg, deadline, done) returns at once and
// calls done, on a goroutine of its own, with what SendBy(ctx, msg,
// deadline) would have returned; done must not wait. false when it
// cannot (done is never called): the caller sends as before. done is
// called once for each send taken, at the latest by Close, which
// returns only after it (with an error for a send not yet through): a
// caller that waits for its sends' ends after Close does not wait for
// ever. The engine sends a request so without a goroutine of its own
// for each (issue 24).
type AsyncSender interface {
	Conn
	SendAsync(ctx context.Context, msg []byte, deadline time.Time, done func(error)) bool
}

// OwnServer is a connection that can say whether its target is a server
// of its own, started by its Dial (stdio: a subprocess per connection):
// a new connection then reaches a new server, which holds nothing the old
// one made (its tasks, durable or not). A connection that is not an
// OwnServer, or says false, reaches the same server again (HTTP).
type OwnServer interface {
	OwnServer() bool
}

// ArrivalCounter is a connection that counts the messages it has read
// from its target and queued for Incoming (stdio's and the in-process
// pipe's queue between their reader and Incoming, which one goroutine
// hands on a message at a time): Arrived is how many since it was made.
// A caller that has taken fewer from Incoming knows that more are
// coming (or Incoming is closed): one that must take everything that
// arrived before it judges a deadline receives until it has them all.
type ArrivalCounter interface {
	Arrived() uint64
}

// ConcurrentSender is a connection whose Send may be called from several
// goroutines at once and holds its caller until the target has begun to
// answer (Streamable HTTP: until the answer's status and headers). The
// engine sends requests on it without waiting for Send, so that one slow
// answer does not hold up the session's next message, as the recorded
// client's did not.
type ConcurrentSender interface {
	Conn
	SendsConcurrently() bool
}
