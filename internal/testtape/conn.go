package testtape

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replayctl/replayctl/tape"
)

// tapedSession is the session name every message of a client recording
// carries.
const tapedSession = "s1"

// transcript is the list of messages seen by a recording connection, in
// the order they crossed it, with seq and t_us assigned as they arrived.
type transcript struct {
	start time.Time

	mu   sync.Mutex // guards msgs: the client reads and writes on different goroutines
	msgs []tape.Message
}

func newTranscript() *transcript { return &transcript{start: time.Now()} }

// add encodes msg as the Go SDK's transports put it on the wire and appends
// it with the next seq and the time since the transcript's start.
func (l *transcript) add(dir tape.Dir, msg jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("testtape: encode a %s message: %w", dir, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, tape.Message{
		Seq:     int64(len(l.msgs)),
		TUS:     time.Since(l.start).Microseconds(), // taken under mu, so it grows with seq
		Session: tapedSession,
		Dir:     dir,
		Msg:     b,
	})
	return nil
}

// messages returns a copy of what was seen so far.
func (l *transcript) messages() []tape.Message {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]tape.Message(nil), l.msgs...)
}

// tapingTransport is an mcp.Transport that keeps every message its
// connection reads or writes.
//
// The Go SDK tells its own connections about the session's state through
// an unexported method (the negotiated version, and over HTTP the start of
// the standalone GET stream). A wrapper from outside the SDK cannot pass
// that on, so over Streamable HTTP a legacy session recorded this way sends
// no Mcp-Protocol-Version header after initialize and opens no GET stream.
// The JSON-RPC messages are the same; only the HTTP framing differs.
type tapingTransport struct {
	inner mcp.Transport
	seen  *transcript
}

var _ mcp.Transport = (*tapingTransport)(nil)

// Connect connects the inner transport and returns its connection, taped.
func (t *tapingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &tapingConn{Connection: c, seen: t.seen}, nil
}

// tapingConn keeps the messages of the connection it wraps.
type tapingConn struct {
	mcp.Connection
	seen *transcript
}

var _ mcp.Connection = (*tapingConn)(nil)

// Read returns the next message of the inner connection, kept as s2c.
func (c *tapingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		return nil, err
	}
	if err := c.seen.add(tape.S2C, msg); err != nil {
		return nil, err
	}
	return msg, nil
}

// Write keeps msg as c2s, then writes it. It keeps it first: over HTTP the
// answer can be read before the inner Write returns.
func (c *tapingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := c.seen.add(tape.C2S, msg); err != nil {
		return err
	}
	return c.Connection.Write(ctx, msg)
}
