package replay

import (
	"maps"
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/config"
	"github.com/replayctl/replayctl/contract"
	"github.com/replayctl/replayctl/controller"
	"github.com/replayctl/replayctl/engine"
	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/internal/knobs"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/validator"
)

// Option sets one knob of a replay. Options are checked by New (and Run):
// a bad value is an *OptionError naming the option.
type Option func(*settings)

// settings is what the options set; set records which were given, so
// that a config file fills in only the others. The defaults of the knobs
// are the knobs table's (package knobs), as the CLI's flags are.
type settings struct {
	target      Target
	speed       speedSetting
	sessions    int
	ramp        time.Duration
	shard       engine.Shard
	startAt     time.Time
	order       string
	timeout     time.Duration
	askWait     time.Duration
	maxInflight int
	spin        time.Duration
	gcHeadroom  int64
	maxLine     int
	maxMessage  int
	maxDoc      int
	timeline    int
	methodLimit int
	handshake   bool
	onError     string
	maxRetries  int
	retryDelay  time.Duration
	validNotes  bool
	validation  string
	ignore      []string
	configPath  string
	configFile  *config.File
	chaos       string
	seed        int64
	chaosFrom   string
	chaosFaults *fixedFaults // ChaosFaults
	thresholds  []string
	logger      zerolog.Logger
	beforeSend  []func(*Message) bool
	onResult    []func(report.Result)
	onStep      []func(report.Result)
	onFault     []func(report.Fault)
	sessionEnd  []func(SessionEnd)
	events      []event.Consumer
	step        <-chan struct{}
	controlled  bool
	control     []controller.Option // Control's, for the controller New makes
	set         map[string]bool
	fromFile    map[string]bool // options the config file may have set

	// rerecord is the tape Rerecord writes ("": none), with its
	// redaction's options.
	rerecord       string
	rerecordRedact []tape.RedactOption
	contract       *contract.Contract // Contract; nil: none

	// startFirst: New dials a stdio target's first connection before it
	// reads the tape (StartTargetFirst)
	startFirst bool
}

func defaults() *settings {
	return &settings{
		target:      Mock(),
		speed:       speedText(knobs.Get("speed").Text()),
		sessions:    knobs.Get("sessions").Int(),
		order:       knobs.Get("order").Text(),
		timeout:     knobs.Get("timeout").Duration(),
		askWait:     knobs.Get("ask-wait").Duration(),
		maxInflight: knobs.Get("max-inflight").Int(),
		spin:        knobs.Get("spin").Duration(),
		gcHeadroom:  int64(knobs.Get("gc-headroom").Default.(knobs.Size)),
		maxLine:     int(knobs.Get("max-line").Default.(knobs.Size)),
		maxDoc:      int(knobs.Get("max-document").Default.(knobs.Size)),
		maxMessage:  int(knobs.Get("max-message").Default.(knobs.Size)),
		timeline:    knobs.Get("timeline-limit").Int(),
		methodLimit: knobs.Get("method-limit").Int(),
		onError:     knobs.Get("on-error").Text(),
		maxRetries:  knobs.Get("max-retries").Int(),
		logger:      zerolog.Nop(),
		set:         map[string]bool{},
		fromFile:    map[string]bool{},
	}
}

// given records that the option name was set by the caller.
func (s *settings) given(name string) { s.set[name] = true }

// Against replays against t; the default is Mock(), the tape answering
// itself.
func Against(t Target) Option { return func(s *settings) { s.target = t; s.given("Against") } }

// Sessions runs n virtual copies of each recorded session, each on its own
// connection with its own ids ("s1#1", "s1#2", …): a load replay. The
// default is 1, the tape as recorded.
func Sessions(n int) Option { return func(s *settings) { s.sessions = n; s.given("Sessions") } }

// Ramp spreads the virtual sessions' starts evenly over d (at realtime and
// Nx speeds); 0 starts them together, at their recorded times.
func Ramp(d time.Duration) Option { return func(s *settings) { s.ramp = d; s.given("Ramp") } }

// Shard replays shard i of n (i from 0 to n-1): of the run's sessions
// (virtual copies included) in the order they first appear, those whose
// place mod n is i. The n shards together replay exactly the whole run —
// the same sessions, names, ids and, for the same Seed, chaos faults —
// and differ by at most one session; the speeds that pace by count
// (fixed:, rps:) divide their rate by n, so the shards' rates add up to
// the run's. A shard with no session passes, its report marked empty.
// The report records the shard; report.Merge combines the shards'
// reports. The default is the whole run.
func Shard(i, n int) Option {
	return func(s *settings) { s.shard = engine.Shard{Index: i, Count: n}; s.given("Shard") }
}

// StartAt is the common start of the shards of one run, as a
// coordinator gives it: no session starts before t, the run's clock
// (realtime, Nx) is anchored to it — the tape's first message is due at
// t, in every shard — and the report starts at it. The default (the zero
// time) starts the replay when Run is called.
func StartAt(t time.Time) Option {
	return func(s *settings) { s.startAt = t; s.given("StartAt") }
}

// Order says what a client message waits for before it is sent: Causal
// (the default: the answers recorded before it), Sequential (every
// answer), Unordered ("none"), or Shuffled ("random": causal, each run of
// client messages in a seeded random order; see Seed). A text a person
// wrote is read by ParseOrdering; a value outside these is an
// *OptionError of New.
func Order(order Ordering) Option {
	return func(s *settings) { s.order = string(order); s.given("Order") }
}

// Timeout bounds every exchange with the target: each answer (then the
// request is cancelled), each write, the dial and the handshake. The
// default is 30s.
func Timeout(d time.Duration) Option { return func(s *settings) { s.timeout = d; s.given("Timeout") } }

// AskWait is how long a session holds the messages recorded after the
// client's answer to a server request (roots/list, sampling/createMessage,
// elicitation/create) while the live server has not made that request
// yet; the default is 1s, and Timeout bounds it too. Once it has passed
// the session goes on: a request the live server makes later is still
// answered with the recorded answer, and one it never makes is reported
// as not asked, not as an error (a server may ask or not: a server that
// sends its request on a stream not open yet loses it, as the TypeScript
// SDK's does under load). It also bounds how long a request the live
// server makes while its session is held waits for the replay to read
// the recorded one, when that is further on in the tape than the replay
// has read. 0 does not wait at all.
func AskWait(d time.Duration) Option { return func(s *settings) { s.askWait = d; s.given("AskWait") } }

// MaxInflight bounds the requests in flight per session (default 1000).
func MaxInflight(n int) Option {
	return func(s *settings) { s.maxInflight = n; s.given("MaxInflight") }
}

// Spin is how long before a message's due time its session stops
// sleeping on a timer and yields in a loop (default
// scheduler.DefaultSpin, 1ms; 0: never). Go's timers can fire up to a
// millisecond late; the spin sends within microseconds of the due time,
// at the cost of a busy core for up to d before every paced message (all
// the time when messages are due less than d apart). Sessions spin only
// while no more are connected than processors. A d above
// scheduler.MaxSpin (1s) is an *OptionError.
func Spin(d time.Duration) Option { return func(s *settings) { s.spin = d; s.given("Spin") } }

// GCHeadroom is how much garbage, in bytes, a paced replay (realtime,
// Nx, fixed, rps), or a fast one (one session or a load), may
// make between two runs of Go's collector while it runs (default
// 64 MiB): GOGC is raised for the process while the replay runs, so that
// the next collection comes that much after the live heap, and set back
// at its end. A collection's marking takes the replay's goroutines for
// assists, which holds answers, and the calls waiting for them, for
// milliseconds on one core; at fast, collecting at GOGC's pace took
// ≈ 1/6 of a load's instructions, and of a single session's against
// the built-in mock. 0 leaves the collector's pace to GOGC; a negative n is an
// *OptionError.
func GCHeadroom(n int64) Option { return func(s *settings) { s.gcHeadroom = n; s.given("GCHeadroom") } }

// MaxLine is the longest tape line accepted, in bytes (default 8 MiB).
func MaxLine(n int) Option { return func(s *settings) { s.maxLine = n; s.given("MaxLine") } }

// MaxDocument is the longest JSON document on one line (an Agent VCR
// cassette) accepted as a tape, in bytes (default 64 MiB,
// tape.DefaultMaxDocument); such a document is not held to MaxLine.
func MaxDocument(n int) Option { return func(s *settings) { s.maxDoc = n; s.given("MaxDocument") } }

// MaxMessage is the longest message the target may send, in bytes
// (default transport.DefaultMaxMessage, 16 MiB): a stdout line, an HTTP
// body after decompression, an SSE event. The transport reads no further
// than the limit: a longer message ends the replay as a failed target (an
// error wrapping transport.ErrTarget and a *transport.TooLargeError).
func MaxMessage(n int) Option { return func(s *settings) { s.maxMessage = n; s.given("MaxMessage") } }

// TimelineLimit bounds the messages kept in the report's timeline
// (default, and what 0 means: report.DefaultTimelineLimit).
func TimelineLimit(n int) Option {
	return func(s *settings) { s.timeline = n; s.given("TimelineLimit") }
}

// MethodLimit bounds the methods, and apart from them the tools, prompts
// and resources, the report breaks its figures down by (default
// report.DefaultMethodLimit, 100, each); the results of the rest are
// counted in per_method_omitted and per_name_omitted. 0 breaks down
// none but the handshake.
func MethodLimit(n int) Option {
	return func(s *settings) { s.methodLimit = n; s.given("MethodLimit") }
}

// IncludeHandshake counts the handshake's latency (initialize,
// server/discover), which waits for the target to start, in the report's
// headline latency and so in its latency thresholds. Without it, it is
// reported apart, in the handshake section and per method.
func IncludeHandshake() Option {
	return func(s *settings) { s.handshake = true; s.given("IncludeHandshake") }
}

// OnError says what happens at a failed or unanswered message: Continue
// (the default: report it and go on), Stop (end the replay there), or
// Retry (retry what the target asked to have again, up to MaxRetries,
// then go on); Pause only in a controlled replay (Control), which takes
// Pause or Continue only. A text a person wrote
// is read by ParseErrorPolicy; a value outside these is an *OptionError
// of New.
func OnError(policy ErrorPolicy) Option {
	return func(s *settings) { s.onError = string(policy); s.given("OnError") }
}

// MaxRetries bounds the retries of a message the target asked to have
// again (HTTP 408, 429, 5xx; Retry-After is honoured); default 3, 0 none.
func MaxRetries(n int) Option {
	return func(s *settings) { s.maxRetries = n; s.given("MaxRetries") }
}

// RetryDelay is the first wait before a retry, doubling after (default
// 100ms).
func RetryDelay(d time.Duration) Option {
	return func(s *settings) { s.retryDelay = d; s.given("RetryDelay") }
}

// ValidateNotifications compares the server's notifications with the
// recorded ones (by method, in order, per session); without it they are
// only counted.
func ValidateNotifications() Option {
	return func(s *settings) { s.validNotes = true; s.given("ValidateNotifications") }
}

// Validation sets the default validation mode: validator.Exact (the
// default), Structural, Partial or Schema (see package validator;
// Contract is the Contract option's; ParseValidation reads the text). It is the mode of every answer no validation rule of
// the config matches, as the config's validation.mode is, and overrides
// that; the rules keep their own modes.
func Validation(mode validator.Mode) Option {
	return func(s *settings) { s.validation = string(mode); s.given("Validation") }
}

// Ignore adds paths the validator does not compare, e.g.
// "result.content[*].annotations" or "**.timestamp".
func Ignore(paths ...string) Option {
	return func(s *settings) { s.ignore = append(s.ignore, paths...); s.given("Ignore") }
}

// ConfigFile reads a YAML replay config (see `replayctl config example`):
// transformations, validation rules, filters, chaos, thresholds. Options
// given to the replay override the file's values.
func ConfigFile(path string) Option {
	return func(s *settings) { s.configPath = path; s.given("ConfigFile") }
}

// Config uses a config already parsed (config.Parse, config.Load), as
// ConfigFile does.
func Config(file *config.File) Option {
	return func(s *settings) { s.configFile = file; s.given("Config") }
}

// Chaos injects seeded faults: "kind=probability,…", e.g.
// "malformed=0.05,timeout=0.02" (the kinds of package chaos).
func Chaos(spec string) Option { return func(s *settings) { s.chaos = spec; s.given("Chaos") } }

// Seed seeds the chaos faults and the random order: the same seed gives
// the same faults and order. Without it one is picked at random
// (Replay.ChaosSeed says which).
func Seed(seed int64) Option { return func(s *settings) { s.seed = seed; s.given("Seed") } }

// ChaosFrom replays exactly the faults listed in an earlier run's JSON
// report, with that run's seed (Replay.ChaosSeed, the report's
// chaos.seed). A report that left faults out (faults_omitted) is refused,
// and so is one with faults in sessions this replay does not have (a run
// with Sessions(3) places them in s1#1…s1#3: give the same Sessions),
// except in a Shard; one of another tape (by file name) is warned about
// in the report, as its faults are placed by session and seq.
func ChaosFrom(reportPath string) Option {
	return func(s *settings) { s.chaosFrom = reportPath; s.given("ChaosFrom") }
}

// Thresholds adds conditions the run must meet, k6-style: "p99<200ms",
// "error_rate<1%", "validation_failed==0", "throughput>500". A failed one
// fails the report.
func Thresholds(exprs ...string) Option {
	return func(s *settings) { s.thresholds = append(s.thresholds, exprs...); s.given("Thresholds") }
}

// Logger receives the replay's logs (default: none).
func Logger(l zerolog.Logger) Option { return func(s *settings) { s.logger = l } }

// Steps, at WithSpeed(Stepped()), releases one message per value received.
func Steps(ch <-chan struct{}) Option { return func(s *settings) { s.step = ch } }

// Control makes the replay a controlled one: New makes a controller
// (package controller) and attaches it to the replay's engine, and
// Replay.Controller hands it out, to be run beside Replay.Run (package
// debug does both). A controlled replay steps and pauses at the
// controller's word: its speed is fast unless given, a config's stepped
// speed becomes fast, and a config's stop or retry strategy is left to the
// controller (OnErrorPolicy is then "pause"). The controller logs through
// the replay's Logger, starts at its speed, pauses or goes on at an error
// as OnErrorPolicy says, and hides its secrets; opts come after those.
func Control(opts ...controller.Option) Option {
	return func(s *settings) { s.controlled = true; s.control = append(s.control, opts...) }
}

// Message is a client message as BeforeSend sees it.
type Message struct {
	Seq     int64  // its seq on the tape
	Session string // its session: the recorded one, or a virtual copy's ("s1#3")
	Kind    string // "request" or "notification"
	Method  string
	ID      string // the recorded request id as JSON ("7", "\"a\""), or ""
	// Raw is the JSON to send: change it (or set new bytes) to send
	// something else. A request's id is replaced after the hook, as with
	// every request.
	Raw []byte
}

// BeforeSend calls f with each message the client sent of its own accord
// (requests and notifications, not answers to the server), in tape order,
// after the config's transformations and before the message is paced and
// sent. f may change m.Raw (the request id is replaced after it) or return
// false to drop the message. f is called from one goroutine.
//
// Every hook option adds a hook: several are called in the order given
// (a dropped message goes to no later BeforeSend).
func BeforeSend(f func(m *Message) bool) Option {
	return func(s *settings) { s.beforeSend = append(s.beforeSend, f) }
}

// OnResult calls f with each result the report counts, as it is judged:
// not only the checked answers but every message replayed — a client
// notification sent with nothing to check (verdict sent), a server
// notification, a skipped message (verdict skipped), a request that got
// no answer — one per entry of the report's timeline; look at r.Verdict
// for the ones you want. It is called from one goroutine, the validate
// stage's, with the bytes sent and received (Out, Answer, Recorded); f
// must not block for long. To watch a replay without ever slowing it,
// read its event stream (OnEvent, Events) instead.
func OnResult(f func(report.Result)) Option {
	return func(s *settings) { s.onResult = append(s.onResult, f) }
}

// OnStep is OnResult for a stepped replay (Stepped speed, given here or
// by the config file): f sees each result, with its bytes, after the
// OnResult hooks; a replay at another speed never calls it. A replay
// whose results no hook shows with their bytes does not mask them for
// display, which costs as much as judging them.
func OnStep(f func(report.Result)) Option {
	return func(s *settings) { s.onStep = append(s.onStep, f) }
}

// OnFault calls f with each injected chaos fault as its message is judged,
// from the goroutine of OnResult.
func OnFault(f func(report.Fault)) Option {
	return func(s *settings) { s.onFault = append(s.onFault, f) }
}

// SessionEnd is what OnSessionEnd tells of a finished session.
type SessionEnd struct {
	// Session is the session's name (a virtual copy's: "s1#3").
	Session string
	// Results counts the session's judged messages; Failed those that
	// failed, errored or timed out.
	Results, Failed int
	// Err is nil when the session replayed its part of the tape, else why
	// it stopped early.
	Err error
}

// OnSessionEnd calls f once per session (each virtual copy too) when it
// has finished, after all its results, from the goroutine of OnResult.
func OnSessionEnd(f func(SessionEnd)) Option {
	return func(s *settings) { s.sessionEnd = append(s.sessionEnd, f) }
}

// OnEvent calls f with each event of the replay's event stream (package
// event: a session dialled, a message due, sent, held, answered, judged,
// a fault, a retry, a reconnect, a session's and the run's end), in the
// order they were emitted, from a goroutine of its own. It sees every
// event: while f is slower than the replay its buffer fills, and then the
// replay waits for it (the report says so). The last event is
// event.RunEnded, before Run returns.
func OnEvent(f func(event.Event)) Option {
	return Events(event.Consumer{Name: "OnEvent", Handle: func(batch []event.Event) error {
		for _, e := range batch {
			f(e)
		}
		return nil
	}})
}

// Events adds consumers of the replay's event stream: lossless ones (the
// replay waits for a full buffer) or live ones (Live: the oldest event is
// dropped, counted, and the replay never waits); see package event.
func Events(c ...event.Consumer) Option {
	return func(s *settings) { s.events = append(s.events, c...) }
}

// Defaults applies opts as defaults: a config file's values and options
// given outside Defaults override them. replaytest uses it to replay fast
// unless told otherwise.
func Defaults(opts ...Option) Option {
	return func(s *settings) {
		before := maps.Clone(s.set)
		for _, o := range opts {
			o(s)
		}
		s.set = before
	}
}

// Contract checks every live answer against c, a contract drawn from
// recordings (contract.Draw, replayctl contract): the validation mode
// becomes contract, whatever Validation or the config say. An answer to
// tools/call, resources/read or prompts/get fails where its result is not
// what the contract's output schema allows (a type, a member every sample
// had, an enum, a format), or when what it called is not in the contract;
// every answer is also held to what MCP requires of it (as mode schema).
// The recorded answers are not compared.
func Contract(c *contract.Contract) Option {
	return func(s *settings) { s.contract = c; s.given("Contract") }
}
