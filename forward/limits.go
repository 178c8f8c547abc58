package forward

import (
	"errors"
	"fmt"
	"time"

	"github.com/replayctl/replayctl/mock"
)

// DefaultMaxUpstreams is how many upstream connections a Forwarder keeps
// open at once (MaxUpstreams): with a server command, how many server
// processes run.
const DefaultMaxUpstreams = 8

// DefaultIdleTimeout is how long a Forwarder keeps a live session's
// upstream connection open without a forwarded request (IdleTimeout).
const DefaultIdleTimeout = 60 * time.Second

// DefaultAnswerTimeout is how long a Forwarder waits for the upstream's
// answer to a forwarded request (AnswerTimeout): the default request
// timeout of the official TypeScript SDK's client.
const DefaultAnswerTimeout = 60 * time.Second

// ErrAnswerTimeout fails a miss whose upstream did not answer within
// AnswerTimeout.
var ErrAnswerTimeout = errors.New("forward: the upstream did not answer in time (--upstream-timeout)")

// Option configures a Forwarder.
type Option func(*Forwarder)

// MaxUpstreams bounds the upstream connections open at once (one per live
// session with a miss; a server process each, for a command). At the
// bound, a new session's miss first closes the connection idle longest
// (no forwarded request in flight); when every one is forwarding, the
// miss fails (ErrTooManyUpstreams) and the client gets the miss's error.
// 0 or less means DefaultMaxUpstreams.
func MaxUpstreams(n int) Option {
	return func(f *Forwarder) {
		if n > 0 {
			f.maxUpstreams = n
		}
	}
}

// IdleTimeout closes a live session's upstream connection (stops its
// server process) once it has had no forwarded request for d; the
// session's next miss opens a new one, replaying the client's handshake,
// recorded as a tape session of its own. 0 or less means
// DefaultIdleTimeout.
func IdleTimeout(d time.Duration) Option {
	return func(f *Forwarder) {
		if d > 0 {
			f.idle = d
		}
	}
}

// AnswerTimeout bounds the wait for the upstream's answer to each
// forwarded request. When it passes, the upstream is sent
// notifications/cancelled for the request (recorded, as everything sent
// upstream is; not for initialize, which MCP says must not be
// cancelled), the miss fails with ErrAnswerTimeout and the client gets
// its error; a late answer is recorded, not relayed. It frees the
// upstream connection for the idle timer and MaxUpstreams, which a
// request in flight holds. 0 or less means DefaultAnswerTimeout.
func AnswerTimeout(d time.Duration) Option {
	return func(f *Forwarder) {
		if d > 0 {
			f.answerTimeout = d
		}
	}
}

// ErrTooManyUpstreams fails a miss of a new session when MaxUpstreams
// connections are open and every one is forwarding a request.
var ErrTooManyUpstreams = errors.New("forward: every upstream connection allowed is forwarding a request (--max-upstreams)")

// acquire returns live's upstream, made (not yet dialed) at its first
// miss, with one more request in flight (release it). At the bound it
// closes the upstream idle longest first.
func (f *Forwarder) acquire(live *mock.Live) (*upstream, error) {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil, errClosed
	}
	u := f.sessions[live]
	var victim *upstream
	if u == nil {
		if len(f.sessions) >= f.maxUpstreams {
			victim = f.idlest()
			if victim == nil {
				f.mu.Unlock()
				return nil, fmt.Errorf("%w: %d open", ErrTooManyUpstreams, f.maxUpstreams)
			}
			delete(f.sessions, victim.live)
			victim.timer.Stop()
			f.closing.Add(1)
		}
		u = &upstream{f: f, live: live, name: f.name(), pending: map[string]waiter{}, asks: map[string][]byte{}}
		f.sessions[live] = u
		f.added = append(f.added, u.name)
	}
	u.inflight++
	if u.timer != nil {
		u.timer.Stop()
	}
	f.mu.Unlock()
	if victim != nil {
		f.log.Info().Str("session", victim.name).Int("max", f.maxUpstreams).Msg("--max-upstreams reached: the upstream connection idle longest closed")
		victim.close()
		f.closing.Done()
	}
	return u, nil
}

// idlest is the open upstream without a request in flight idle longest,
// nil when every one has one. f.mu is held.
func (f *Forwarder) idlest() *upstream {
	var best *upstream
	for _, u := range f.sessions {
		if u.inflight == 0 && (best == nil || u.idleSince.Before(best.idleSince)) {
			best = u
		}
	}
	return best
}

// release ends one request of u in flight; the last arms its idle timer.
func (f *Forwarder) release(u *upstream) {
	f.mu.Lock()
	defer f.mu.Unlock()
	u.inflight--
	if u.inflight > 0 || f.sessions[u.live] != u {
		return
	}
	u.idleSince = time.Now()
	since := u.idleSince
	if u.timer != nil {
		u.timer.Stop()
	}
	u.timer = time.AfterFunc(f.idle, func() { f.expire(u, since) })
}

// expire closes u when it has stayed idle since since.
func (f *Forwarder) expire(u *upstream, since time.Time) {
	f.mu.Lock()
	if f.sessions[u.live] != u || u.inflight > 0 || !u.idleSince.Equal(since) {
		f.mu.Unlock()
		return
	}
	delete(f.sessions, u.live)
	f.closing.Add(1)
	f.mu.Unlock()
	defer f.closing.Done()
	f.log.Debug().Str("session", u.name).Dur("idle", f.idle).Msg("an idle upstream connection closed")
	u.close()
}
