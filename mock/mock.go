package mock

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// ErrClosed is returned by Send on a closed connection.
var ErrClosed = errors.New("mock: connection closed")

// Mock is a transport.Dialer whose sessions answer from a tape.
type Mock struct {
	path      string
	tapeOpts  []tape.Option
	lookahead int
}

// Option configures a Mock.
type Option func(*Mock)

// WithTapeOptions passes options to the mock's tape reader.
func WithTapeOptions(opts ...tape.Option) Option {
	return func(m *Mock) { m.tapeOpts = append(m.tapeOpts, opts...) }
}

// WithLookahead sets how far the mock reads ahead for an unseen request.
func WithLookahead(n int) Option { return func(m *Mock) { m.lookahead = n } }

// New returns a mock that answers from the tape at path.
func New(path string, opts ...Option) *Mock {
	m := &Mock{path: path, lookahead: DefaultLookahead}
	for _, o := range opts {
		o(m)
	}
	return m
}

var _ transport.Dialer = (*Mock)(nil)

// Dial opens the tape for the recorded session and returns a connection
// that answers as that session's server did. A virtual copy of a session
// ("s1#3", as the engine names them in load replays) answers as the
// recorded one.
func (m *Mock) Dial(ctx context.Context, session string) (transport.Conn, error) {
	c := &conn{
		mock:    m,
		session: recordedName(session),
		out:     make(chan transport.Incoming, 256),
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	if err := c.startFeed(0); err != nil {
		return nil, err
	}
	c.wg.Go(c.pump)
	return c, nil
}

// startFeed opens the tape and reads the session's messages from seq on
// into a new feed, on a goroutine of its own. Called with sendMu held (or
// before the connection is shared).
func (c *conn) startFeed(from int64) error {
	opts := append(c.mock.tapeOpts[:len(c.mock.tapeOpts):len(c.mock.tapeOpts)], tape.WithSession(c.session))
	r, err := tape.Open(c.mock.path, opts...)
	if err != nil {
		return err
	}
	// The feed's buffer lets the reader run ahead of the replay.
	feed := make(chan feedItem, 128)
	stop := make(chan struct{})
	c.r, c.feedStop = r, stop
	c.m = matcher{feed: feed, lookahead: c.mock.lookahead}
	c.feedWG.Go(func() { readAhead(r, from, feed, stop, c.done) })
	return nil
}

// stopFeed ends the read-ahead goroutine and closes its reader.
func (c *conn) stopFeed() error {
	if c.feedStop == nil {
		return nil // stopped already (a rewind that could not start again)
	}
	close(c.feedStop)
	c.feedWG.Wait()
	c.feedStop = nil
	return c.r.Close()
}

// Rewind makes the connection answer as the recording did from seq on, as
// if the messages before seq had not been asked yet: a debugger's seek
// back gets the recorded answers again.
func (c *conn) Rewind(seq int64) error {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	if err := c.checkOpen(); err != nil {
		return err
	}
	if err := c.stopFeed(); err != nil {
		return err
	}
	return c.startFeed(seq)
}

// conn answers synchronously in Send. Answers go straight into out while
// it has room; beyond that they queue, and pump delivers them, so that
// Send never blocks on a caller that is not reading yet.
type conn struct {
	mock    *Mock
	session string // the recorded session it answers as

	sendMu   sync.Mutex // one Send (or Rewind) at a time: guards m, r, feedStop
	m        matcher
	r        *tape.Reader // read by the read-ahead goroutine only
	feedStop chan struct{}
	feedWG   sync.WaitGroup

	mu     sync.Mutex // guards queue and closed
	queue  [][]byte
	closed bool

	out       chan transport.Incoming
	wake      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
}

func (c *conn) Send(ctx context.Context, msg []byte) error {
	req, err := jsonrpc.Parse(msg)
	if err != nil { // answered as a good server does: parse error or invalid request
		return c.reply(badMessage(msg))
	}
	if req.Kind != jsonrpc.KindRequest {
		return c.checkOpen() // notifications and answers need no reply
	}
	c.sendMu.Lock()
	notes, ans, err := c.m.answer(req)
	c.sendMu.Unlock()
	if err != nil {
		return err
	}
	return c.reply(append(notes, ans)...)
}

// reply queues messages for the caller, in order: straight into out while
// it has room and nothing is queued, else through pump.
func (c *conn) reply(msgs ...[]byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	if len(c.queue) == 0 && len(msgs) == 1 {
		select {
		case c.out <- transport.Incoming{Msg: msgs[0], At: time.Now()}:
			return nil
		default:
		}
	}
	c.queue = append(c.queue, msgs...)
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return nil
}

func (c *conn) checkOpen() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	return nil
}

// pump delivers queued answers in order until the connection closes.
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

func (c *conn) Incoming() <-chan transport.Incoming { return c.out }

func (c *conn) Err() error { return nil }

func (c *conn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		c.mu.Unlock()
		close(c.done)
		c.wg.Wait()
		c.sendMu.Lock()
		err = c.stopFeed()
		c.sendMu.Unlock()
	})
	return err
}

// recordedName strips a virtual copy's "#k" suffix.
func recordedName(session string) string {
	i := strings.LastIndexByte(session, '#')
	if i <= 0 || i == len(session)-1 {
		return session
	}
	for _, c := range session[i+1:] {
		if c < '0' || c > '9' {
			return session
		}
	}
	return session[:i]
}
