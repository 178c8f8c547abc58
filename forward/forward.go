package forward

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/mock"
	"github.com/replayctl/replayctl/record"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// Forwarder is serve --mode new's mock.MissHandler: a request the tape
// has no answer for is forwarded to the real server (the upstream), its
// answer goes back to the client, and the exchange is recorded through a
// Tap (a journal that serve merges into the tape when it stops).
//
// Each live client session with a miss gets one upstream connection of
// its own, dialed at its first miss and opened with the client's own
// handshake (its initialize and notifications/initialized, as it sent
// them, the notification after initialize's answer even when the miss
// is that initialize; nothing for stateless traffic), and one tape
// session of its own (named by the name function given to New), which
// holds that handshake, every forwarded request and every message of
// the upstream: replayed alone, it answers a client like this one (see
// mock's kin).
// While a forwarded request is being answered, what the upstream sends
// goes to the client on that request's stream: notifications as they
// are, requests (sampling, elicitation, roots) with an id of the
// Forwarder's own, the client's answer sent back with the upstream's.
// An upstream request arriving when no forwarded request is in flight is
// answered with an error, and counted (Refused). The client's
// notifications go upstream once its connection exists.
//
// A Forwarder is safe for concurrent use. Miss blocks until the answer is
// sent, ctx is done, or the upstream connection fails; Close ends every
// upstream connection.
type Forwarder struct {
	dial transport.Dialer
	tap  *record.Tap
	name func() string
	log  zerolog.Logger

	forwarded atomic.Int64 // misses the upstream answered
	failed    atomic.Int64 // misses it did not
	refused   atomic.Int64 // upstream requests no client stream could take
	nextAsk   atomic.Int64

	maxUpstreams  int           // see MaxUpstreams
	idle          time.Duration // see IdleTimeout
	answerTimeout time.Duration // see AnswerTimeout

	// closing counts the upstream connections being closed (by Closed,
	// an idle timer, or a new session taking an idle one's place); each is
	// added under mu while closed is false, so Close's Wait sees it.
	closing sync.WaitGroup

	mu       sync.Mutex // guards the fields below, and the inflight, idleSince and timer of each upstream
	sessions map[*mock.Live]*upstream
	added    []string
	closed   bool
}

var _ mock.MissHandler = (*Forwarder)(nil)

// New returns a Forwarder dialing upstream connections with
// dial, recording to tap, naming the tape session of each live session
// with a miss by calling name (once per such session).
func New(dial transport.Dialer, tap *record.Tap, name func() string, log zerolog.Logger, opts ...Option) *Forwarder {
	f := &Forwarder{dial: dial, tap: tap, name: name, log: log.With().Str("stage", "forward").Logger(),
		maxUpstreams: DefaultMaxUpstreams, idle: DefaultIdleTimeout, answerTimeout: DefaultAnswerTimeout, sessions: map[*mock.Live]*upstream{}}
	for _, opt := range opts {
		opt(f)
	}
	return f
}

// Forwarded is how many misses the upstream answered.
func (f *Forwarder) Forwarded() int64 { return f.forwarded.Load() }

// Failed is how many misses could not be forwarded: each was answered
// with an error naming why (mock keeps it as a Miss). A miss whose client
// went away first is not counted.
func (f *Forwarder) Failed() int64 { return f.failed.Load() }

// Refused is how many requests of the upstream were answered with an
// error because no client stream was open to relay them.
func (f *Forwarder) Refused() int64 { return f.refused.Load() }

// Added returns the names of the tape sessions recorded so far.
func (f *Forwarder) Added() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.added...)
}

// errClosed fails a Miss after Close.
var errClosed = errors.New("forward: closed")

// Miss forwards req (see mock.MissHandler).
func (f *Forwarder) Miss(ctx context.Context, live *mock.Live, req []byte, send transport.Send) error {
	u, err := f.acquire(live)
	if err == nil {
		err = u.forward(ctx, req, send)
		f.release(u)
	}
	if err != nil && ctx.Err() != nil { // the client is gone (or serve stops): no one to answer
		return err
	}
	if err != nil {
		f.failed.Add(1)
		f.log.Warn().Str("session", live.Info.ID).Err(err).Msg("a miss could not be forwarded")
		return err
	}
	f.forwarded.Add(1)
	return nil
}

// Notify sends a notification of the client upstream, when its session
// has an upstream connection.
func (f *Forwarder) Notify(ctx context.Context, live *mock.Live, msg []byte) {
	f.mu.Lock()
	u := f.sessions[live]
	f.mu.Unlock()
	if u != nil {
		u.notify(ctx, msg)
	}
}

// Answer sends the client's answer to a relayed upstream request back
// upstream, with the upstream's id.
func (f *Forwarder) Answer(ctx context.Context, live *mock.Live, msg []byte) bool {
	f.mu.Lock()
	u := f.sessions[live]
	f.mu.Unlock()
	return u != nil && u.answer(ctx, msg)
}

// Closed ends the live session's upstream connection. It returns at
// once: a server command may take its stop timeout to exit, and the
// listener closing its sessions (serve stopping) must not wait for it;
// Close waits.
func (f *Forwarder) Closed(live *mock.Live) {
	f.mu.Lock()
	u := f.sessions[live]
	delete(f.sessions, live)
	if u != nil {
		if u.timer != nil {
			u.timer.Stop()
		}
		f.closing.Add(1)
	}
	f.mu.Unlock()
	if u != nil {
		go func() {
			defer f.closing.Done()
			u.close()
		}()
	}
}

// Close ends every upstream connection, and waits for them (and those
// Closed, an idle timer or a new session's miss is ending) to end; Miss fails after it. It does not close the
// Tap, which may be closed first: what the upstreams send then is not
// recorded.
func (f *Forwarder) Close() error {
	defer f.closing.Wait()
	f.mu.Lock()
	f.closed = true
	us := make([]*upstream, 0, len(f.sessions))
	for live, u := range f.sessions {
		us = append(us, u)
		delete(f.sessions, live)
		if u.timer != nil {
			u.timer.Stop()
		}
	}
	f.mu.Unlock()
	for _, u := range us {
		u.close()
	}
	return nil
}

// record writes one message of u's tape session; a failure is logged
// (the Tap's error is sticky: serve reports it when it closes the Tap).
func (u *upstream) record(dir tape.Dir, msg []byte) {
	err := u.f.tap.Record(time.Time{}, u.name, dir, msg, nil, nil)
	switch {
	case errors.Is(err, tape.ErrClosed): // serve is stopping: the journal is merged
		u.f.log.Debug().Str("session", u.name).Msg("an upstream message after the journal was closed: not recorded")
	case err != nil:
		u.f.log.Error().Err(err).Msg("the journal could not be written")
	}
}

// dialerOf is the dialer of u's upstream connection. It tells u of the
// upstream's faults (a lost answer, a stdio line that is not JSON); over
// HTTP it sends the Mcp-Param-* headers the client sent when it opened
// the session (for stateless traffic, one session per request: that
// request's), which the upstream may require and the connection cannot
// derive (it has not listed the tools). A value with "${" in it is not
// passed: the dialer would take it for an environment variable.
func (f *Forwarder) dialerOf(u *upstream) transport.Dialer {
	var h transport.HTTP
	switch d := f.dial.(type) {
	case transport.Stdio:
		d.OnFault = u.fault
		return d
	case transport.HTTP:
		h = d
	default:
		return f.dial
	}
	h.OnFault = u.fault
	out := h.Header.Clone()
	for k, vs := range u.live.Info.Header {
		if !strings.HasPrefix(http.CanonicalHeaderKey(k), "Mcp-Param-") {
			continue
		}
		for _, v := range vs {
			if strings.Contains(v, "${") {
				continue
			}
			if out == nil {
				out = http.Header{}
			}
			out.Add(k, v)
		}
	}
	h.Header = out
	return h
}

// askID is a fresh id for an upstream request relayed to the client.
func (f *Forwarder) askID() []byte {
	return strconv.AppendQuote(nil, "replayctl-fwd-"+strconv.FormatInt(f.nextAsk.Add(1), 10))
}

// refusal is the answer to an upstream request no client stream can take.
func refusal(id []byte) []byte {
	return jsonrpc.ErrorResponse(id, mcp.CodeInternal, "replayctl serve --mode new: no client request in flight to relay this request on", nil)
}

// parse reads a message of a peer, nil when it is not one JSON-RPC
// message.
func parse(msg []byte) *jsonrpc.Message {
	m, err := jsonrpc.ParseStrict(msg)
	if err != nil || m.Kind == jsonrpc.KindBatch || m.Kind == jsonrpc.KindInvalid {
		return nil
	}
	return &m
}
