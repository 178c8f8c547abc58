package mock

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// conn answers synchronously in Send, from its session's entries of the
// mock's index. Answers go straight into out while it has room; beyond
// that they queue, and pump, a goroutine started only then, delivers them,
// so that Send never blocks on a caller that is not reading yet.
type conn struct {
	idx       *index
	entries   []entry // the session's, all of them: what Rewind starts from
	lookahead int
	// live is the read under way while the tape is streamed (idx is nil
	// until it ends, see answerLive); failed is its error, if it failed.
	live   *reading
	name   string // the recorded session's
	failed error

	sendMu sync.Mutex // one Send (or Rewind) at a time: guards m
	m      matcher

	mu      sync.Mutex // guards queue, closed and pumping
	queue   [][]byte
	closed  bool
	pumping bool // pump has been started: it, not Close, closes out

	out       chan transport.Incoming
	wake      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
}

// outBuffer is how many answers Incoming holds before they queue for the
// pump. Each slot costs 64 bytes per connection, open or not yet read:
// kept small, as load replays hold thousands of connections at once.
const outBuffer = 32

var (
	_ transport.Conn     = (*conn)(nil)
	_ transport.Rewinder = (*conn)(nil)
	_ transport.Asker    = (*conn)(nil)
)

// Asks reports false: the mock answers the client's requests and sends
// no request of its own (recorded server requests are not replayed).
func (c *conn) Asks() bool { return false }

func newConn(idx *index, entries []entry, lookahead int) *conn {
	return &conn{
		idx:       idx,
		entries:   entries,
		lookahead: lookahead,
		m:         newMatcher(idx, entries, lookahead, 0),
		out:       make(chan transport.Incoming, outBuffer),
		wake:      make(chan struct{}, 1),
		done:      make(chan struct{}),
	}
}

// newLiveConn returns a connection answering from the index r builds
// as the tape is read, as recorded session name did.
func newLiveConn(r *reading, name string, lookahead int) *conn {
	c := newConn(nil, nil, lookahead)
	c.live, c.name = r, name
	return c
}

// Send answers msg with the recorded answer (after the server
// notifications recorded before it) or an error saying the tape has none;
// a notification or an answer gets nothing. It answers at once from a
// tape read whole. While a replay streams the tape (Mock.StreamTape) a
// request the index so far cannot answer waits for its answer to be read,
// or for the whole index (one out of order, reworded or not on the tape):
// until then, or until ctx is done (its error) or the connection is
// closed (ErrClosed). If that read fails (a bad line in the tape), Send
// returns its error (a *tape.Error, the same the replay's reader gives)
// rather than an answer, for this request and every one after it. It
// returns ErrClosed after Close, else nil.
func (c *conn) Send(ctx context.Context, msg []byte) error { return c.send(ctx, msg, false) }

// SendAside answers msg, a message that is not on the tape (a debugger's
// inject), as Send does, but leaves the recorded answer it gives for the
// tape's own request: it answers with the first recorded request like it
// not asked yet, or else the last one asked. It waits as Send does.
func (c *conn) SendAside(ctx context.Context, msg []byte) error { return c.send(ctx, msg, true) }

var _ transport.AsideSender = (*conn)(nil)

// SendParsed is Send of req.Raw, which its caller has parsed already: req
// must be what jsonrpc.Parse(req.Raw) gives (a replay's request with its
// fresh id, jsonrpc.Message.Rebase of the recorded one's parse), so that
// the mock need not parse it again.
func (c *conn) SendParsed(ctx context.Context, req jsonrpc.Message) error {
	return c.answer(ctx, req, false)
}

func (c *conn) send(ctx context.Context, msg []byte, aside bool) error {
	req, err := jsonrpc.Parse(msg)
	if err != nil { // answered as a good server does: parse error or invalid request
		return c.reply(badMessage(msg))
	}
	return c.answer(ctx, req, aside)
}

// answer answers req, a valid message, as send says.
func (c *conn) answer(ctx context.Context, req jsonrpc.Message, aside bool) error {
	if req.Kind != jsonrpc.KindRequest {
		return c.checkOpen() // notifications and answers need no reply
	}
	c.sendMu.Lock()
	if c.live != nil {
		notes, ans, ok, err := c.answerLive(ctx, req, aside)
		if err != nil {
			c.sendMu.Unlock()
			return err
		}
		if ok {
			c.sendMu.Unlock()
			return c.reply(append(notes, ans)...)
		}
	}
	var notes [][]byte
	var ans []byte
	if c.failed != nil {
		if !errors.Is(c.failed, errHalted) {
			// Its answer cannot be known: not the target's wrong answer,
			// but the tape's error, which ends the replay.
			c.sendMu.Unlock()
			return readFailed(c.failed)
		}
		ans = unreadable(req, c.failed)
	} else {
		notes, ans = c.m.answer(req, aside)
	}
	c.sendMu.Unlock()
	return c.reply(append(notes, ans)...)
}

// readFailed is the error of a Send whose answer a failed read of the
// tape (err, as the read ended with it) cannot give: the tape's own
// error when it is one.
func readFailed(err error) error {
	if te, ok := errors.AsType[*tape.Error](err); ok {
		return te
	}
	return err
}

// SendsInstantly is true: Send answers from memory (transport.
// InstantSender), and needs no deadline of its own. While the tape is
// streamed it may wait for the mock's own read of it (see Send), which
// is not the target's time to answer and ends with the read of a local
// file of bounded size (keepUpTo), or with ctx or Close.
func (c *conn) SendsInstantly() bool { return true }

var _ transport.InstantSender = (*conn)(nil)

// Rewind makes the connection answer as the recording did from seq on, as
// if the messages before seq had not been asked yet: a debugger's seek
// back gets the recorded answers again. Answers already sent stay sent.
// While the tape is streamed it waits for the whole index, or for Close.
// It returns ErrClosed after Close, else nil.
func (c *conn) Rewind(seq int64) error {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	if err := c.checkOpen(); err != nil {
		return err
	}
	if c.live != nil {
		select {
		case <-c.live.done:
		case <-c.done:
			return ErrClosed
		}
		c.adopt()
	}
	if c.failed != nil {
		return nil
	}
	c.m = newMatcher(c.idx, c.entries, c.lookahead, seq)
	return nil
}

// reply queues messages for the caller, in order: straight into out while
// it has room and nothing is queued, else through pump.
func (c *conn) reply(msgs ...[]byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	for len(c.queue) == 0 && len(msgs) > 0 && c.offer(msgs[0]) {
		msgs = msgs[1:]
	}
	if len(msgs) == 0 {
		return nil
	}
	c.queue = append(c.queue, msgs...)
	if !c.pumping {
		c.pumping = true
		c.wg.Go(c.pump)
	}
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return nil
}

// offer puts msg into out if it has room, without waiting. Called with mu
// held and the queue empty, so that nothing queued is overtaken.
func (c *conn) offer(msg []byte) bool {
	select {
	case c.out <- transport.Incoming{Msg: msg, At: time.Now()}:
		return true
	default:
		return false
	}
}

func (c *conn) checkOpen() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	return nil
}

// pump delivers queued answers in order until the connection closes; then
// it closes out.
func (c *conn) pump() {
	defer close(c.out)
	for {
		select {
		case <-c.wake:
		case <-c.done:
			return
		}
		for {
			c.mu.Lock()
			if len(c.queue) == 0 {
				c.mu.Unlock()
				break
			}
			// Peek, deliver, then pop: while an answer is on its way the
			// queue is not empty, so Send cannot overtake it.
			ans := c.queue[0]
			c.mu.Unlock()
			select {
			case c.out <- transport.Incoming{Msg: ans, At: time.Now()}:
			case <-c.done:
				return
			}
			c.mu.Lock()
			c.queue[0] = nil
			c.queue = c.queue[1:]
			c.mu.Unlock()
		}
	}
}

// Incoming delivers the answers in the order Send made them; it is closed
// after Close.
func (c *conn) Incoming() <-chan transport.Incoming { return c.out }

// Err is always nil: a mock connection does not fail.
func (c *conn) Err() error { return nil }

// Close ends the connection; answers not yet taken from Incoming are
// dropped. It returns nil once Incoming is closed; later calls do nothing.
func (c *conn) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		pumping := c.pumping
		c.mu.Unlock()
		close(c.done)
		if pumping {
			c.wg.Wait() // pump closes out
		} else {
			close(c.out)
		}
	})
	return nil
}
