package engine

import (
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/engine/session"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transformer"
	"github.com/replayctl/replayctl/transport"
	"github.com/replayctl/replayctl/validator"
)

// Order says what a client message waits for before it is sent (see
// session.Order).
type Order = session.Order

// The orders of DESIGN.md.
const (
	OrderCausal     = session.OrderCausal
	OrderSequential = session.OrderSequential
	OrderNone       = session.OrderNone
	OrderRandom     = session.OrderRandom
)

// ParseOrder reads an --order value.
func ParseOrder(s string) (Order, error) {
	switch o := Order(s); o {
	case OrderCausal, OrderSequential, OrderNone, OrderRandom:
		return o, nil
	case "":
		return OrderCausal, nil
	}
	return "", fmt.Errorf("order %q: want causal, sequential, none or random", s)
}

// OnError says what a replay does at a failed or unanswered message.
type OnError string

// The --on-error policies of a run (debug pauses, through its controller).
const (
	OnErrorContinue OnError = "continue" // report it and go on (the default)
	OnErrorStop     OnError = "stop"     // end the replay there
)

// Config is everything a replay needs. The zero value of every optional
// field is a sensible default.
type Config struct {
	// Tape is the path of the tape to replay (any supported format).
	Tape string
	// Source, when not nil, is read instead of the file at Tape: e.g. a
	// tape held in memory (tape.Bytes).
	Source      tape.Source
	TapeOptions []tape.Option
	// Speed is the pacing strategy; the zero value is realtime.
	Speed scheduler.Speed
	// Dialer connects to the target; it is required. The built-in mock,
	// which answers from the tape itself, is mock.FromSource (what package
	// replay passes by default).
	Dialer transport.Dialer
	// Target names the target in reports ("mock", a URL, a command line).
	Target string
	// Filter chooses the part of the tape replayed.
	Filter Filter
	// Chaos injects seeded faults (nil: none); see package chaos.
	Chaos *chaos.Plan
	// Rules transform client messages before they are sent (nil: none).
	Rules *transformer.Rules
	// RestoreEnv holds the values put back, at send time, where a client
	// message has an env marker of a redaction ([redacted:env:NAME], see
	// tape.Redactor), by NAME. A marker of a name not here is sent as it
	// is, with a warning. The values are secrets: add them to Redactor.
	RestoreEnv map[string]string
	// Validator judges the answers; nil means exact comparison, ignoring
	// the Ignore paths.
	Validator *validator.Validator
	// Ignore lists paths the default validator does not compare.
	Ignore []string
	Order  Order
	// OrderSeed seeds OrderRandom: the same seed, the same order.
	OrderSeed int64
	// MaxInflight bounds the requests sent and not yet answered, per
	// session; 0 means 1000.
	MaxInflight int
	// Timeout bounds the wait for each answer; 0 means 30s.
	Timeout time.Duration
	// AskWait bounds how long a session holds its later messages for a
	// request the recorded server made and the live one has not made yet
	// (Timeout bounds it too), and how long a live server request made
	// while the session is held waits for the tape reader to bring the
	// recorded one; 0 means 1s, a negative one does not wait.
	AskWait time.Duration
	// ValidateNotifications compares the server's notifications with the
	// recorded ones (by method, in order, per session) once a session's
	// tape is done; otherwise they are only counted.
	ValidateNotifications bool
	// OnError is what happens at a failed or unanswered message.
	OnError OnError
	// Spin is how long before a message's due time its session stops
	// sleeping on a timer and yields in a loop (timers can fire up to a
	// millisecond late); 0 means scheduler.DefaultSpin (1ms), negative
	// means never. Spinning keeps a core busy for up to Spin before every
	// paced message (all the time when they are due less than Spin
	// apart); sessions spin only while no more are connected than
	// processors.
	Spin time.Duration
	// GCHeadroom is how much garbage a paced replay, or a fast one (one
	// session or a load of Sessions), may make between two collections, in
	// bytes, while it runs: the collector's pace is set so that the next
	// collection comes after that much more heap than the last one left
	// live (or sooner, by GOGC, once the live heap is larger). 0 means
	// DefaultGCHeadroom (64 MiB), negative means the collector's own pace
	// (GOGC). It applies to the whole process while such replays run
	// (see holdCollections and holdFastCollections).
	GCHeadroom int64
	// MaxRetries bounds the retries of a message the target asked to have
	// again (HTTP 408, 429, 5xx); 0 means 3, negative means none.
	MaxRetries int
	// RetryDelay is the first wait before a retry (doubling after); 0
	// means 100ms.
	RetryDelay time.Duration
	// TimelineLimit bounds the timeline kept for the report; 0 means the
	// report's default.
	TimelineLimit int
	// ReportOptions are options of the run's report collector, after
	// TimelineLimit's: report.IncludeHandshake, report.WithMethodLimit.
	ReportOptions []report.Option
	// Sessions is how many virtual copies of each recorded session run,
	// each on its own connection with its own ids ("s1#1", "s1#2", …);
	// 0 or 1 means the tape as recorded.
	Sessions int
	// Ramp spreads the copies' starts evenly over this wall-clock time;
	// 0 starts them together, at their recorded times. Speeds that pace
	// by count (fast, fixed, rps) interleave the copies instead.
	Ramp time.Duration
	// Shard replays only a deterministic share of the sessions (see
	// Shard); the zero Shard replays them all.
	Shard Shard
	// StartAt, when not zero, is the common start of the shards of one run
	// (a coordinator gives it): no session starts before it, the run's
	// clock (speeds that pace by recorded time) is anchored to it, and the
	// report starts at it. Zero: the replay starts when Run is called.
	StartAt time.Time
	// Step, in stepped mode, releases one message per value received.
	Step   <-chan struct{}
	Logger zerolog.Logger
	// Redactor hides the values the user marked secret in every result
	// (its error, differences and messages) before anyone sees it: the
	// collector, the hooks, a controller. Nil hides none. Credentials
	// the tape or the server carry under a sensitive name (tape.Sensitive)
	// are masked in any case (report.Redact).
	Redactor *tape.Redactor
	// Hooks are called at fixed points of the replay; see Hooks.
	Hooks Hooks
	// Events are the consumers of the replay's event stream (package
	// event); none: no events are made.
	Events []event.Consumer
}

func (c *Config) withDefaults() error {
	if c.Source == nil {
		if c.Tape == "" {
			return fmt.Errorf("engine: no tape given")
		}
		c.Source = tape.File(c.Tape)
	}
	if c.Dialer == nil {
		return fmt.Errorf("engine: no target: Config.Dialer is nil; for the built-in mock give mock.FromSource(the tape's source)")
	}
	if err := c.Speed.Validate(); err != nil {
		return err
	}
	switch c.OnError {
	case "":
		c.OnError = OnErrorContinue
	case OnErrorContinue, OnErrorStop:
	default:
		return fmt.Errorf("on-error %q: want continue or stop (pause: use replayctl debug)", c.OnError)
	}
	if c.Order == "" {
		c.Order = OrderCausal
	}
	if _, err := ParseOrder(string(c.Order)); err != nil {
		return err
	}
	if c.Sessions < 0 || c.Ramp < 0 {
		return fmt.Errorf("engine: sessions %d and ramp %s must not be negative", c.Sessions, c.Ramp)
	}
	if err := c.Shard.Validate(); err != nil {
		return err
	}
	if c.MaxInflight <= 0 {
		c.MaxInflight = 1000
	}
	switch {
	case c.Spin == 0:
		c.Spin = scheduler.DefaultSpin
	case c.Spin < 0:
		c.Spin = 0
	}
	switch {
	case c.GCHeadroom == 0:
		c.GCHeadroom = DefaultGCHeadroom
	case c.GCHeadroom < 0:
		c.GCHeadroom = 0
	}
	switch {
	case c.MaxRetries == 0:
		c.MaxRetries = 3
	case c.MaxRetries < 0:
		c.MaxRetries = 0
	}
	if c.Timeout <= 0 {
		c.Timeout = 30 * time.Second
	}
	switch {
	case c.AskWait == 0:
		c.AskWait = time.Second
	case c.AskWait < 0:
		c.AskWait = 0
	}
	return nil
}
