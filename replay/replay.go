package replay

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/config"
	"github.com/replayctl/replayctl/controller"
	"github.com/replayctl/replayctl/engine"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transformer"
	"github.com/replayctl/replayctl/transport"
	"github.com/replayctl/replayctl/validator"
)

// MaxSessions bounds Sessions: each virtual session has a connection.
const MaxSessions = config.MaxSessions

// Run replays the tape at path with the options and returns its report.
// See Replay.Run for what the report and the error say. A path that is not
// a regular file (a pipe) is read into memory first (tape.Load).
func Run(ctx context.Context, path string, opts ...Option) (*report.Report, error) {
	src, err := tape.Load(path)
	if err != nil {
		return nil, err
	}
	return RunSource(ctx, src, opts...)
}

// RunSource replays the tape src, e.g. one held in memory (tape.Bytes).
func RunSource(ctx context.Context, src tape.Source, opts ...Option) (*report.Report, error) {
	r, err := New(src, opts...)
	if err != nil {
		return nil, err
	}
	return r.Run(ctx)
}

// Replay is a replay checked and ready to run: New, then Run, once.
type Replay struct {
	e          *engine.Engine
	target     Target
	thresholds []report.Threshold
	secrets    []string
	redactor   *tape.Redactor // of secrets
	chaosSeed  *int64
	seedRandom bool
	warnings   []string // for the report, beside the engine's
	orderSeed  *int64
	orderRand  bool
	speed      scheduler.Speed
	onError    string
	timeout    time.Duration
	sessions   int
	ramp       time.Duration
	config     string // the config file read, for the report
	rerecord   *rerecorder
	ctl        *controller.Controller // Control's; nil otherwise
	early      *earlyDialer           // StartTargetFirst's; nil otherwise
}

// New checks the options (and the config they name) and prepares the
// replay of src. Every error is about the input: an *OptionError, a
// *ConfigError, a *config.Error (with the YAML line) or a *tape.Error.
func New(src tape.Source, opts ...Option) (_ *Replay, err error) {
	// The run reads its tape several times (the environment to restore,
	// each session's last seq, the replay, the mock's index): an imported
	// format is decoded once, at the first.
	if _, ok := src.(*tape.Shared); !ok {
		src = tape.Share(src)
	}
	s := defaults()
	for _, o := range opts {
		o(s)
	}
	s.controlDefaults()
	file, path, err := s.loadConfig()
	if err != nil {
		return nil, err
	}
	cfg, err := s.engineConfig(src)
	if err != nil {
		return nil, s.blameFile(err, path)
	}
	r := &Replay{target: s.target, speed: cfg.Speed, onError: s.onError, timeout: cfg.Timeout, sessions: max(cfg.Sessions, 1), ramp: cfg.Ramp, config: path}
	if _, stdio := cfg.Dialer.(transport.Stdio); stdio && s.startFirst {
		// The server starts while the tape is read, below.
		r.early = dialEarly(cfg.Dialer)
		cfg.Dialer = r.early
		defer func() {
			if err != nil {
				r.early.kill()
			}
		}()
	}
	if r.thresholds, err = parseThresholds(s.thresholds); err != nil {
		return nil, err
	}
	var vopts []validator.Option
	if s.contract != nil {
		vopts = append(vopts, validator.WithContract(s.contract))
	}
	if file != nil {
		if r.secrets, err = applyConfig(&cfg, s.withValidation(file), path, s.ignore, vopts...); err != nil {
			return nil, err
		}
	} else if s.validation != "" || s.contract != nil {
		if cfg.Validator, err = validatorRules(config.Validation{Mode: s.validation}, s.ignore, vopts...); err != nil {
			return nil, bad("Validation", s.validation, err)
		}
	}
	r.secrets = append(r.secrets, s.target.secrets()...)
	restore, err := restoreEnv(src, cfg.TapeOptions)
	if err != nil {
		return nil, err
	}
	cfg.RestoreEnv = restore
	// A line the reader refuses is refused now, before anything is sent,
	// not midway: against the mock of the tape too, whose index streams
	// the tape beside the replay.
	if err := tape.CheckLines(src, cfg.TapeOptions...); err != nil {
		return nil, err
	}
	for _, v := range restore {
		r.secrets = append(r.secrets, v)
	}
	r.redactor = tape.RedactorOf(r.secrets)
	cfg.Redactor = r.redactor
	for _, w := range shortSecretWarnings(cfg.Rules, restore, s.target.secrets()) {
		r.warnings = append(r.warnings, w)
		s.logger.Warn().Msg(w)
	}
	var random bool
	var warning string
	if cfg.Chaos, random, warning, err = s.chaosPlan(file, path, src.Name()); err != nil {
		return nil, err
	}
	if warning != "" {
		r.warnings = append(r.warnings, warning)
		s.logger.Warn().Msg(warning)
	}
	if s.chaosFrom != "" && !cfg.Shard.Sharded() {
		if err := checkChaosSessions(s.chaosFrom, src, cfg.TapeOptions, cfg.Sessions); err != nil {
			return nil, err
		}
	}
	if cfg.Chaos != nil {
		seed := cfg.Chaos.Seed()
		r.chaosSeed, r.seedRandom = &seed, random
	}
	if cfg.Order == engine.OrderRandom { // seeded: the same seed, the same order
		switch {
		case s.set["Seed"]:
			cfg.OrderSeed = s.seed
		case cfg.Chaos != nil:
			cfg.OrderSeed = cfg.Chaos.Seed()
		default:
			cfg.OrderSeed, r.orderRand = chaos.RandomSeed(), true
		}
		r.orderSeed = &cfg.OrderSeed
	}
	s.wireHooks(&cfg)
	cfg.Events = s.events
	if s.set["Rerecord"] {
		if r.rerecord, err = s.newRerecorder(src, cfg.TapeOptions); err != nil {
			return nil, err
		}
		cfg.Dialer = r.rerecord.dialer(cfg.Dialer)
	}
	if r.e, err = engine.New(cfg); err != nil {
		return nil, err
	}
	if s.controlled {
		r.ctl = r.control(s)
	}
	return r, nil
}

// withValidation is file with the Validation option's mode as its
// validation.mode: when the option was given, or given as a default
// (Defaults) and the file names no mode. The file itself is not changed.
func (s *settings) withValidation(file *config.File) *config.File {
	if s.validation == "" || (!s.set["Validation"] && file.Validation.Mode != "") {
		return file
	}
	f := *file
	f.Validation.Mode = s.validation
	return &f
}

// controlDefaults sets a controller's defaults (Controlled): continue
// runs fast, errors pause.
func (s *settings) controlDefaults() {
	if !s.controlled {
		return
	}
	if !s.set["Speed"] {
		s.speed = speedText("fast")
	}
	if !s.set["OnError"] {
		s.onError = "pause"
	}
}

// speedSetting is the speed in force, as it was given: a person's text
// (SpeedText, the knobs table's default), parsed by check; or a value
// (WithSpeed's, the config file's as the config package read it), with
// its text for errors.
type speedSetting struct {
	text  string
	value *scheduler.Speed // nil: text, not parsed yet
}

func speedText(text string) speedSetting { return speedSetting{text: text} }

func speedValue(v scheduler.Speed, text string) speedSetting {
	return speedSetting{text: text, value: &v}
}

// parse is the speed to replay at: the value given, or the text parsed.
func (sp speedSetting) parse() (scheduler.Speed, error) {
	if sp.value != nil {
		return *sp.value, sp.value.Validate()
	}
	return scheduler.Parse(sp.text)
}

// checked is what check makes of the settings for the engine.
type checked struct {
	speed      scheduler.Speed
	order      engine.Order
	onError    engine.OnError
	maxRetries int // the engine's: -1 none
}

// check checks the option values, config file's included, as the engine
// will take them: everything but the target, the tape and Steps. A bad
// value is an *OptionError.
func (s *settings) check() (checked, error) {
	speed, err := s.speed.parse()
	if err != nil {
		return checked{}, bad("Speed", s.speed.text, err)
	}
	if s.controlled && speed.Mode == scheduler.Stepped {
		return checked{}, bad("Speed", s.speed.text, errors.New("a controlled replay steps by itself: choose fast, realtime, Nx, fixed:D or rps:N"))
	}
	order, err := engine.ParseOrder(s.order)
	if err != nil {
		return checked{}, bad("Order", s.order, err)
	}
	onError := engine.OnError(s.onError)
	maxRetries := s.maxRetries
	switch s.onError {
	case "continue", "stop":
	case "retry": // what the target asks to have again is retried; then go on
		onError, maxRetries = engine.OnErrorContinue, max(maxRetries, 1)
	case "pause":
		if !s.controlled {
			return checked{}, bad("OnError", s.onError, errors.New("pause needs someone to resume: use it in a controlled replay (replayctl debug), or choose continue or stop"))
		}
		onError = engine.OnErrorContinue
	default:
		return checked{}, bad("OnError", s.onError, errors.New("want continue, stop or retry"))
	}
	if s.controlled && s.onError != "pause" && s.onError != "continue" {
		return checked{}, bad("OnError", s.onError, errors.New("a controlled replay pauses or goes on at an error: choose pause or continue"))
	}
	switch {
	case s.timeout <= 0:
		return checked{}, bad("Timeout", s.timeout, errors.New("want a positive duration, e.g. 30s"))
	case s.askWait < 0:
		return checked{}, bad("AskWait", s.askWait, errors.New("want 0 (no wait) or a positive duration, e.g. 1s"))
	case s.maxLine <= 0:
		return checked{}, bad("MaxLine", s.maxLine, errors.New("want a positive number of bytes"))
	case s.maxDoc <= 0:
		return checked{}, bad("MaxDocument", s.maxDoc, errors.New("want a positive number of bytes"))
	case s.maxMessage <= 0:
		return checked{}, bad("MaxMessage", s.maxMessage, errors.New("want a positive number of bytes, e.g. 16<<20"))
	case s.timeline < 0:
		return checked{}, bad("TimelineLimit", s.timeline, errors.New("want 0 or more"))
	case s.methodLimit < 0:
		return checked{}, bad("MethodLimit", s.methodLimit, errors.New("want 0 or more"))
	case s.sessions < 1 || s.sessions > MaxSessions:
		return checked{}, bad("Sessions", s.sessions, fmt.Errorf("want 1 to %d virtual sessions", MaxSessions))
	case s.ramp < 0:
		return checked{}, bad("Ramp", s.ramp, errors.New("want 0 or more"))
	case s.shard.Validate() != nil || (s.set["Shard"] && s.shard.Count < 1):
		return checked{}, bad("Shard", s.shard.String(), errors.New("want shard i of n with n ≥ 1 and i from 0 to n-1, e.g. Shard(0, 4) … Shard(3, 4)"))
	case s.controlled && s.shard.Sharded():
		return checked{}, bad("Shard", s.shard.String(), errors.New("a controlled replay is not sharded"))
	case s.spin < 0:
		return checked{}, bad("Spin", s.spin, errors.New("want 0 (never spin) or more, e.g. 1ms"))
	case s.spin > scheduler.MaxSpin:
		return checked{}, bad("Spin", s.spin, fmt.Errorf("want at most %s (e.g. 1ms): a session keeps a core busy that long before each message", scheduler.MaxSpin))
	case s.gcHeadroom < 0:
		return checked{}, bad("GCHeadroom", s.gcHeadroom, errors.New("want 0 (Go's own pace) or more, e.g. 64MiB"))
	case s.maxInflight < 1:
		return checked{}, bad("MaxInflight", s.maxInflight, errors.New("want 1 or more"))
	case s.maxRetries < 0:
		return checked{}, bad("MaxRetries", s.maxRetries, errors.New("want 0 or more retries (0: none)"))
	case s.retryDelay < 0:
		return checked{}, bad("RetryDelay", s.retryDelay, errors.New("want 0 or more"))
	case s.controlled && s.sessions > 1:
		return checked{}, bad("Sessions", s.sessions, errors.New("a controlled replay runs each recorded session once"))
	}
	if s.validation != "" {
		if _, err := validator.ParseMode(s.validation); err != nil {
			return checked{}, bad("Validation", s.validation, errors.New("want exact, structural, partial or schema"))
		}
	}
	if _, err := validator.New(validator.WithIgnore(s.ignore...)); err != nil {
		return checked{}, bad("Ignore", strings.Join(s.ignore, ", "), err)
	}
	if maxRetries == 0 {
		maxRetries = -1 // the engine's "none"; its 0 means the default
	}
	return checked{speed: speed, order: order, onError: onError, maxRetries: maxRetries}, nil
}

// engineConfig checks the options and turns them into the engine's
// config, the target's dialer included.
func (s *settings) engineConfig(src tape.Source) (engine.Config, error) {
	c, err := s.check()
	if err != nil {
		return engine.Config{}, err
	}
	if c.speed.Mode == scheduler.Stepped && s.step == nil {
		return engine.Config{}, bad("Speed", s.speed.text, errors.New("stepped needs Steps: a channel that releases each message"))
	}
	tapeOpts := []tape.Option{tape.WithMaxLine(s.maxLine), tape.WithMaxDocument(s.maxDoc)}
	dialer, err := s.target.dialer(s, src, tapeOpts)
	if err != nil {
		return engine.Config{}, err
	}
	return engine.Config{
		Source:                src,
		TapeOptions:           tapeOpts,
		Speed:                 c.speed,
		Dialer:                dialer,
		Target:                s.target.String(),
		Ignore:                s.ignore,
		Order:                 c.order,
		MaxInflight:           s.maxInflight,
		Spin:                  engineSpin(s.spin),
		GCHeadroom:            engineGCHeadroom(s.gcHeadroom),
		Timeout:               s.timeout,
		AskWait:               engineAskWait(s.askWait),
		ValidateNotifications: s.validNotes,
		OnError:               c.onError,
		MaxRetries:            c.maxRetries,
		RetryDelay:            s.retryDelay,
		TimelineLimit:         s.timeline,
		ReportOptions:         s.reportOptions(),
		Sessions:              s.sessions,
		Ramp:                  s.ramp,
		Shard:                 s.shard,
		StartAt:               s.startAt,
		Step:                  s.step,
		Logger:                s.logger,
	}, nil
}

// reportOptions are the options of the run's report collector.
func (s *settings) reportOptions() []report.Option {
	opts := []report.Option{report.WithMethodLimit(s.methodLimit)}
	if s.handshake {
		opts = append(opts, report.IncludeHandshake())
	}
	return opts
}

// wireHooks sets the engine's hooks from the hook options; OnSessionEnd
// counts each session's results on the way.
func (s *settings) wireHooks(cfg *engine.Config) {
	if before := s.beforeSend; len(before) > 0 {
		cfg.Hooks.BeforeSend = func(em *transformer.Msg) bool {
			m := Message{Seq: em.Seq, Session: em.Session, Kind: em.Kind, Method: em.Method, ID: em.ID, Raw: em.Raw}
			for _, f := range before {
				if !f(&m) {
					return false
				}
			}
			em.Raw = m.Raw
			return true
		}
	}
	if faults := s.onFault; len(faults) > 0 {
		cfg.Hooks.OnFault = func(f report.Fault) {
			for _, h := range faults {
				h(f)
			}
		}
	}
	if len(s.sessionEnd) > 0 {
		// Only the validate goroutine touches counts. The count needs no
		// bytes: none are masked for it (see engine.Hooks.OnVerdict).
		counts := map[string]*SessionEnd{}
		cfg.Hooks.OnVerdict = func(r report.Result) {
			c := counts[r.Session]
			if c == nil {
				c = &SessionEnd{Session: r.Session}
				counts[r.Session] = c
			}
			c.Results++
			if r.Verdict == report.Failed || r.Verdict == report.Error || r.Verdict == report.Timeout {
				c.Failed++
			}
		}
		ends := s.sessionEnd
		cfg.Hooks.OnSessionEnd = func(session string, err error) {
			c := counts[session]
			delete(counts, session)
			if c == nil {
				c = &SessionEnd{Session: session}
			}
			c.Err = err
			for _, h := range ends {
				h(*c)
			}
		}
	}
	results := s.onResult
	if cfg.Speed.Mode == scheduler.Stepped {
		results = append(slices.Clip(results), s.onStep...)
	}
	if len(results) > 0 {
		cfg.Hooks.OnResult = func(r report.Result) {
			for _, h := range results {
				h(r)
			}
		}
	}
}

func parseThresholds(exprs []string) ([]report.Threshold, error) {
	ts := make([]report.Threshold, 0, len(exprs))
	for _, x := range exprs {
		t, err := report.ParseThreshold(x)
		if err != nil {
			return nil, bad("Thresholds", x, err)
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// control makes the controller of a controlled replay and attaches it to
// the engine: the replay's logger, speed, error policy (check has let
// only pause and continue through) and redactor, then Control's options.
func (r *Replay) control(s *settings) *controller.Controller {
	onError := controller.OnErrorPause
	if r.onError == string(Continue) {
		onError = controller.OnErrorContinue
	}
	opts := append([]controller.Option{controller.WithLogger(s.logger), controller.WithSpeed(r.speed),
		controller.WithOnError(onError), controller.WithRedactor(r.redactor)}, s.control...)
	c := controller.New(r.e, opts...)
	r.e.Attach(c)
	return c
}

// Controller is the controller of a replay made with Control, nil for
// another. Run it (Controller.Run) on a goroutine of its own beside Run,
// and Start it: the replay sends nothing until then.
func (r *Replay) Controller() *controller.Controller { return r.ctl }

// StartAt sets the replay's start, the time its sessions' offsets count
// from (by default, when Run starts): the common start a coordinator gives
// shards. Call it before Run.
func (r *Replay) StartAt(t time.Time) { r.e.StartAt(t) }

// Thresholds are the replay's thresholds (the Thresholds option's, else
// the config file's), as its report judges them.
func (r *Replay) Thresholds() []report.Threshold { return slices.Clone(r.thresholds) }

// Secrets are the values the user marked secret: those the config's
// transformations took from the environment (${env.NAME}) and those the
// target's headers did (${NAME}), with the values of the target's
// credential headers (Authorization, X-Api-Key, …) and URL (its password,
// a token parameter). The results and the report of Run have them
// redacted already; hide them in what else you print
// (tape.RedactorOf: every encoding they can take).
func (r *Replay) Secrets() []string { return r.secrets }

// ChaosSeed is the chaos plan's seed, and whether it was picked at random
// (then print it, so that the run can be repeated); ok is false without
// chaos.
func (r *Replay) ChaosSeed() (seed int64, random, ok bool) {
	if r.chaosSeed == nil {
		return 0, false, false
	}
	return *r.chaosSeed, r.seedRandom, true
}

// OrderSeed is the seed of Order("random"), and whether it was picked at
// random; ok is false for other orders.
func (r *Replay) OrderSeed() (seed int64, random, ok bool) {
	if r.orderSeed == nil {
		return 0, false, false
	}
	return *r.orderSeed, r.orderRand, true
}

// Rerecorded is what the Rerecord option wrote, once Run has returned:
// whether the new tape is in place, its messages and what its redaction
// replaced (zero without Rerecord).
func (r *Replay) Rerecorded() (written bool, messages int64, redacted tape.Counts) {
	if r.rerecord == nil {
		return false, 0, tape.Counts{}
	}
	return r.rerecord.written, r.rerecord.tap.Messages(), r.rerecord.redactor.Counts()
}

// Speed is the pacing the replay runs at, options and config resolved.
func (r *Replay) Speed() scheduler.Speed { return r.speed }

// OnErrorPolicy is the on-error policy, options and config resolved:
// continue, stop, retry (or pause, for a controlled replay).
func (r *Replay) OnErrorPolicy() string { return r.onError }

// Timeout is the bound on each exchange with the target, options and
// config resolved.
func (r *Replay) Timeout() time.Duration { return r.timeout }

// Sessions is the number of copies of each recorded session the replay
// runs (Sessions), options and config resolved: 1 replays the tape as
// recorded.
func (r *Replay) Sessions() int { return r.sessions }

// Ramp is the Ramp option, options and config resolved.
func (r *Replay) Ramp() time.Duration { return r.ramp }

// RampUnused says why the Ramp option, options and config resolved, does
// nothing in this replay ("" when it is used or zero): the ramp shifts
// the copies' recorded times, which only realtime and Nx speeds follow,
// and there are copies only with Sessions above 1.
func (r *Replay) RampUnused() string {
	switch {
	case r.ramp <= 0:
		return ""
	case r.speed.Mode != scheduler.Realtime && r.speed.Mode != scheduler.Scaled:
		return fmt.Sprintf("at speed %s, which does not follow recorded times, the sessions start as the pacing sends them; ramp up with realtime or Nx speeds (e.g. 10x)", r.speed)
	case r.sessions <= 1:
		return "with one session: it spreads the starts of --sessions copies"
	}
	return ""
}

// Run replays the tape and returns the report, concluded by the outcome
// policy (Report.Conclude): how the replay ended and its thresholds, so
// that Report.Passed and Report.ExitStatus say whether it passed.
//
// The error is nil when the replay went to the end of the tape, whether
// the target answered as recorded or not (that is in the report).
// Otherwise it says why the replay stopped early — the target failed
// (wrapping engine.ErrTarget), ctx ended, the first failure with
// OnError("stop"), a bad line further down the tape — and the report
// covers what was replayed. When nothing could be replayed (a tape that
// cannot be read) the report is nil.
//
// A controlled replay (Control) runs until its owner ends it: ctx, or
// Controller.Stop. That end is not an interruption: its report is the
// engine's as far as it went, not concluded (package debug judges the
// answers: Report.Passed), and the error is ctx's or the replay's own.
//
// Neither the report nor the error's message shows a secret (Secrets).
func (r *Replay) Run(ctx context.Context) (*report.Report, error) {
	rep, err := r.e.Run(ctx)
	r.Close() // the process started early, if no session took it
	if r.target.isMock() {
		err = tapeNotTarget(err)
	}
	if err != nil && rep.Summary.Tape == "" {
		return nil, r.redact(err) // nothing was replayed
	}
	if r.ctl != nil {
		// The end of ctx is how its owner ends a controlled replay (or
		// Controller.Stop): not an interruption. Its report is the
		// engine's, as far as it went: not concluded.
		return &rep, r.redact(err)
	}
	rep.Summary.Warnings = append(rep.Summary.Warnings, r.warnings...)
	rep.Summary.Config = r.config
	if r.rerecord != nil {
		note, rerr := r.rerecord.finish(err)
		if note != "" {
			rep.Summary.Warnings = append(rep.Summary.Warnings, note)
		}
		if rerr != nil {
			err = rerr
		}
	}
	rep.Conclude(stopOf(ctx, err), r.thresholds)
	report.RedactReport(r.redactor, &rep)
	return &rep, r.redact(err)
}

// Close stops what New started and Run did not use: the server process
// of StartTargetFirst. Run calls it; call it for a Replay that is not
// run. It is idempotent.
func (r *Replay) Close() error {
	if r.early == nil {
		return nil
	}
	return r.early.close()
}

// redact returns err with the secrets hidden from its message; errors.Is
// and errors.As see through it.
func (r *Replay) redact(err error) error {
	if err == nil || r.redactor == nil {
		return err
	}
	return redactedError{err: err, msg: r.redactor.String(err.Error())}
}

type redactedError struct {
	err error
	msg string
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }

// tapeNotTarget is err, or the *tape.Error in it when the built-in mock
// failed as a target because its tape cannot be read (its Dial reads it
// whole): that is bad input, the tape's error, not the target's.
func tapeNotTarget(err error) error {
	var te *tape.Error
	if errors.Is(err, engine.ErrTarget) && errors.As(err, &te) {
		return te
	}
	return err
}

// stopOf classifies why a replay stopped early.
func stopOf(ctx context.Context, err error) report.Stop {
	switch {
	case err == nil:
		return report.Stop{}
	case ctx.Err() != nil:
		return report.Stop{Kind: report.StopInterrupted, Why: "interrupted"}
	case errors.Is(err, engine.ErrTarget):
		return report.Stop{Kind: report.StopTarget, Why: err.Error()}
	case errors.Is(err, engine.ErrStoppedOnError):
		return report.Stop{Kind: report.StopFailure}
	case errors.Is(err, ErrRerecord):
		return report.Stop{Kind: report.StopFailure, Why: err.Error()}
	case errors.Is(err, engine.ErrStepsEnded):
		return report.Stop{Kind: report.StopFailure, Why: err.Error()}
	}
	// A bad line further down the tape (*tape.Error), a rule that cannot
	// be applied to a message: the input.
	return report.Stop{Kind: report.StopBadInput, Why: err.Error()}
}

// engineGCHeadroom is the GCHeadroom option as engine.Config takes it: 0
// there is the default, and Go's own pace is negative.
func engineGCHeadroom(n int64) int64 {
	if n == 0 {
		return -1
	}
	return n
}

// engineSpin is d as engine.Config.Spin takes it: 0 there is the
// default, and never spinning is negative.
func engineSpin(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// engineAskWait is AskWait as engine.Config takes it: 0 there is its
// default, a negative one no wait.
func engineAskWait(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}
