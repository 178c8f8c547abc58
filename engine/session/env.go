package session

// What an actor is given (Env), what it reports to (Sink), and what its
// owner may ask of it while it runs.

import (
	"context"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
	"github.com/replayctl/replayctl/validator"
)

// Env is what every session of a replay shares, in the manner of net/http's
// conn.server: set up once before the first session starts and never
// changed; actors only read it. Its funcs and pointers are to values that
// are safe to use from any goroutine.
type Env struct {
	Dialer transport.Dialer
	// Timeout bounds every dial, every write and the wait for each answer.
	Timeout     time.Duration
	MaxInflight int // requests sent and not answered, per session
	// AskWait bounds how long the session holds its later messages for a
	// request the recorded server made that the live one has not made yet
	// (receiver.await), and how long a request the live server makes
	// while the session is held waits for the tape reader to bring the
	// recorded one (receiver.ask); 0: neither waits.
	AskWait time.Duration
	// Spin is how long before a due time the actor stops sleeping on a
	// timer and yields in a loop (see spinFor); 0: never.
	Spin time.Duration
	// MaxRetries bounds the retries of a message the target asked to have
	// again (HTTP 408, 429, 5xx); 0: none. RetryDelay is the first wait.
	MaxRetries int
	RetryDelay time.Duration
	Order      Order
	OrderSeed  int64       // seeds OrderRandom
	Chaos      *chaos.Plan // nil: no faults
	// ValidateNotifications: compare the server's notifications with the
	// recorded ones once a session is settled.
	ValidateNotifications bool
	// Validator, when not nil, has rules that send a request again when
	// its answer fails them (on_failure: retry).
	Validator *validator.Validator
	Redactor  *tape.Redactor // hides secrets in what events say
	Log       zerolog.Logger
	Events    *event.Stream // nil: no events
	// Timing is what sessions share of the pacing: the tickets of the
	// speeds that pace by count, and replay time (pauses, gate holds).
	Timing *scheduler.Shared
	// Speed is the current speed (it changes with Actor.SetSpeed).
	Speed func() scheduler.Speed
	// Epoch is the current epoch: an item of an older one is stale (a
	// seek went past it) and is dropped.
	Epoch func() uint64
	// Live is how many sessions are connected (see Connected): the actor
	// spins before due times only while there are no more than processors.
	Live func() int64
	// Gate, when not nil, is passed by every recorded client message once
	// it is due (a controller's, or stepped).
	Gate Gate
	// SessionEnds: report the session's end as an Outcome (SessionEnd).
	SessionEnds bool
	// Controlled: a controller runs the replay; a cancelled run is not an
	// interruption to report (a debugger's run always ends so).
	Controlled bool
}

// stale reports whether it belongs to an epoch before the current one.
func (env *Env) stale(it *Item) bool { return it.Epoch < env.Epoch() }

// Sink is what an actor reports to. Its methods are called from the
// actor's goroutine; they must not block, except Outcome, which waits
// until the outcome is taken or ctx is done.
type Sink interface {
	// Outcome hands a replayed message's outcome on (to be judged).
	Outcome(ctx context.Context, o *Outcome) error
	// Release takes n items off the count of items read ahead and not
	// yet replayed (n < 0 adds them): the actor has taken, or holds, them.
	Release(n int)
	// Count counts one thing that happened (Counter).
	Count(c Counter)
	// Sent says that a recorded client message has left the actor: on
	// the wire, or dropped.
	Sent(it *Item)
	// End counts the session at the end of the tape in epoch; true for
	// the last one, which passes the end on.
	End(epoch uint64) bool
	// Ended says that the actor has returned.
	Ended(a *Actor)
}

// BatchSink is a Sink that also takes outcomes in batches: the actor then
// keeps its outcomes until it is about to wait and hands them on in one
// call (see Actor.emit). Outcomes waits until the batch is taken or ctx
// is done; the slice is the sink's from then on.
type BatchSink interface {
	Sink
	Outcomes(ctx context.Context, batch []*Outcome) error
}

// Counter names what Sink.Count counts.
type Counter int

// The counters.
const (
	Connected          Counter = iota // the session is connected
	Disconnected                      // a connected session has ended
	ServerNotification                // a notification from the server
	ServerRequest                     // a request from the server, answered from the tape
	ServerRefused                     // a request from the server the tape had no answer to
)

// Gate is what a recorded client message passes, once due, before it is
// sent. Pass blocks while the gate is closed; the actor calls it on a
// goroutine of its own and goes on reading answers meanwhile.
type Gate interface {
	Pass(ctx context.Context, it *Item) Admission
}

// Admission is a gate's answer for a message.
type Admission struct {
	Pass bool // false: the message is stale (a seek went past it): drop it
	// HeldFrom and HeldUntil say when the gate held the message closed;
	// replay time stood still meanwhile.
	HeldFrom, HeldUntil time.Time
	// Replace, when not nil, is sent instead of the message, with its id.
	Replace []byte
	// Err ends the session (and the replay): the gate has stopped.
	Err error
}

// Name is the session's name.
func (x *Actor) Name() string { return x.ss.name }

// Put gives the actor the session's next item; false when the actor has
// returned. It never blocks.
func (x *Actor) Put(it *Item) bool { return x.mb.put(it) }

// Close tells the actor that no more items will come.
func (x *Actor) Close() { x.mb.close() }

// SetSpeed changes the session's pace at now (the replay's speed has
// changed to s). It never blocks: the actor takes it up on its goroutine.
func (x *Actor) SetSpeed(s scheduler.Speed, now time.Time) {
	x.mb.ask(actorReq{fn: func(ctx context.Context, x *Actor) error {
		x.setSpeed(s, now)
		return x.drain(ctx, x.ss)
	}, done: make(chan error, 1)})
}

// Rewind makes the session's connection, if it can (the mock), answer as
// recorded from seq on, after a seek. It returns when done, ErrEnded when
// the actor returned before it took the request, or an error saying the
// session has ended.
func (x *Actor) Rewind(ctx context.Context, seq int64) error {
	return x.ask(ctx, func(_ context.Context, x *Actor) error { return x.rewind(seq) })
}

// Inject sends it (a message not from the tape) on the session's
// connection, as if the client had sent it; its answer is reported as an
// Outcome. It returns once the message is on the wire.
func (x *Actor) Inject(ctx context.Context, it *Item) error {
	it.Rec.Session = x.ss.name
	return x.ask(ctx, func(ctx context.Context, x *Actor) error { return x.tx.process(ctx, x.ss, it) })
}

// ErrEnded is the error of a request an actor had not taken when it
// returned.
var ErrEnded = errActorGone

// ask runs fn on the actor's goroutine and returns its error, an error
// when the actor has ended, or ctx.Err().
func (x *Actor) ask(ctx context.Context, fn func(context.Context, *Actor) error) error {
	req := actorReq{fn: fn, done: make(chan error, 1)}
	if !x.mb.ask(req) {
		return fmt.Errorf("session %s has ended", x.ss.name)
	}
	select {
	case err := <-req.done:
		return err
	case <-x.done:
		select {
		case err := <-req.done:
			return err
		default:
			return fmt.Errorf("session %s has ended", x.ss.name)
		}
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ErrTarget is wrapped by errors that come from the target: it could not
// be reached, or it died.
var ErrTarget = transport.ErrTarget
