package engine

// What the engine gives the session actors (package session), and what
// it does with what they report.

import (
	"context"

	"github.com/replayctl/replayctl/engine/session"
)

// sessionEnv is what every session's actor shares: the engine's settings
// and the shared pacing, read only.
func (e *Engine) sessionEnv() *session.Env {
	env := &session.Env{
		Dialer:                e.dialer,
		Timeout:               e.cfg.Timeout,
		AskWait:               min(e.cfg.AskWait, e.cfg.Timeout),
		MaxInflight:           e.cfg.MaxInflight,
		Spin:                  e.cfg.Spin,
		MaxRetries:            e.cfg.MaxRetries,
		RetryDelay:            e.cfg.RetryDelay,
		Order:                 e.cfg.Order,
		OrderSeed:             e.cfg.OrderSeed,
		Chaos:                 e.cfg.Chaos,
		ValidateNotifications: e.cfg.ValidateNotifications,
		Redactor:              e.cfg.Redactor,
		Log:                   e.log,
		Events:                e.ev,
		Timing:                e.timing,
		Speed:                 e.speed,
		Epoch:                 e.epoch.Load,
		Live:                  e.actorsLive.Load,
		Gate:                  gateOf(e.ctl, &e.cfg),
		SessionEnds:           e.cfg.Hooks.OnSessionEnd != nil,
		Controlled:            e.ctl != nil,
	}
	if e.retries {
		env.Validator = e.v
	}
	return env
}

// sink is what the actors report to (session.Sink): outcomes go to
// validate on out, one alone or an actor's batch in one send; the rest is
// the engine's bookkeeping.
type sink struct {
	e   *Engine
	rt  *router
	out chan<- outcomes
}

var _ session.BatchSink = (*sink)(nil)

func (s *sink) Outcome(ctx context.Context, o *outcome) error {
	return send(ctx, s.out, outcomes{one: o})
}

func (s *sink) Outcomes(ctx context.Context, b []*outcome) error {
	return send(ctx, s.out, outcomes{many: b})
}

// outcomes is what validate takes in one receive: one outcome (one), or
// a session's batch of them in order (many).
type outcomes struct {
	one  *outcome
	many []*outcome
}

func (s *sink) Release(n int) { s.rt.release(n) }

func (s *sink) Count(c session.Counter) {
	e := s.e
	switch c {
	case session.Connected:
		e.actorsLive.Add(1) // from now on it replays: see queueLimit
	case session.Disconnected:
		e.actorsLive.Add(-1)
	case session.ServerNotification:
		e.counters.serverNotes.Add(1)
	case session.ServerRequest:
		e.counters.serverRequests.Add(1)
	case session.ServerRefused:
		e.counters.serverRefused.Add(1)
	}
}

func (s *sink) Sent(it *Item) { s.e.sentOrDropped(it) }

func (s *sink) End(epoch uint64) bool { return s.e.ends.reached(epoch) }

func (s *sink) Ended(a *session.Actor) { s.e.actors.remove(a) }

// router makes the route stage of a run.
func (e *Engine) router() *router {
	return &router{
		env: e.env, sessions: e.cfg.Sessions, speed: e.cfg.Speed, startAt: e.cfg.StartAt,
		actors: &e.actors, ends: &e.ends, live: &e.actorsLive,
		stale: e.stale, sent: e.sentOrDropped,
		// One wake-up is enough: the router looks at the count again.
		room: make(chan struct{}, 1),
	}
}

// sentOrDropped tells a controller that a client message it let through
// is on the wire, or will never be.
func (e *Engine) sentOrDropped(it *Item) {
	if e.ctl != nil && it.Paced() && !it.Injected {
		e.ctl.Sent(it.Rec.Seq)
	}
}
