package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"github.com/replayctl/replayctl/controller"
	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/engine/session"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/transport"
	"github.com/replayctl/replayctl/validator"
)

// Engine replays one tape against one target. It is used once: New, then
// Run.
type Engine struct {
	cfg    Config
	log    zerolog.Logger
	dialer transport.Dialer

	// epoch is bumped by a seek; stages drop items of older epochs.
	epoch atomic.Uint64
	// seeks, when not nil, keeps the loader alive at the end of the tape
	// so that a controller can send it back; Run's ctx then ends it.
	seeks chan seekReq
	// holdLoad, when not nil (tests only: set between New and Run), is
	// given what the loader reads and returns what it reads instead: a
	// test holds the loader at a message of its choosing until a
	// condition it needs (the target read the tape through, the run was
	// stopped) is met, where it would otherwise race the loader.
	holdLoad func(ctx context.Context, src source) source

	counters struct {
		loaded         atomic.Int64
		sessions       atomic.Int64
		serverNotes    atomic.Int64
		serverRequests atomic.Int64
		serverRefused  atomic.Int64
		filtered       atomic.Int64 // left out by the Filter
		// loadedAll says the loader met the end of what it reads: loaded
		// and sessions are then the whole tape's (see tapeCount).
		loadedAll atomic.Bool
	}
	v        *validator.Validator // set by Run before the stages start
	retries  bool                 // v has a rule that retries on failure
	finished time.Time            // set by validate when it has judged everything
	judgedAt time.Time            // validate's: when it took the outcomes it judges
	results  []report.Result      // validate's: the judged events' results yet to give (judgedEvent)
	judged   []event.Event        // validate's: the judged events of a receive, to emit (emitJudged)
	names    mcp.Names            // validate's: the names of what requests act on (judge)
	notes    []string             // warnings found by validate, for the report
	survival survival             // chaos: owned by validate until Run reads it
	// Recorded messages that are not JSON-RPC: owned by load until Run
	// reads them.
	loadNotes []string
	invalid   int
	// Env markers sent as they are (restore): owned by transform until
	// Run reads them.
	restoreNotes  []string
	restoreWarned map[string]bool

	// With a controller attached (Attach):
	ctl  *controller.Controller
	look lookup

	// The session actors and what they share (see route.go). The
	// registry's lock, which the router takes for every item it routes,
	// has cache lines of its own (the padding): the fields that were
	// beside it (ctl) are read for every request by the session's actor
	// and by validate, each on its own core, and a line written on one
	// core is fetched anew by the others after each write.
	_          cacheLinePad
	actors     registry
	_          cacheLinePad
	ends       ends
	actorsLive atomic.Int64 // actors running, for the pacing's spin
	// timing is what the sessions share of the pacing: the tickets of the
	// speeds that pace by count (fixed, rps), each session taking the
	// next when it falls due, and replay time, which a controller's pause
	// or gate stops for all (see actor.due).
	timing *scheduler.Shared
	// speedNow is the speed set last by SetSpeed (nil: cfg.Speed), for
	// sessions that start after the change.
	speedNow atomic.Pointer[scheduler.Speed]
	// stopRun ends the stages with a cause (validate, OnErrorStop).
	stopRun context.CancelCauseFunc
	// ev is the run's event stream (nil: no consumers); see events.go.
	ev *event.Stream
	// env is what every session's actor shares, set by Run before the
	// stages start (sessions.go).
	env *session.Env
}

// cacheLinePad keeps what is written often by one stage off the cache
// lines of what the others read (see Engine.actors).
type cacheLinePad [64]byte

// speed is the current speed.
func (e *Engine) speed() scheduler.Speed {
	if s := e.speedNow.Load(); s != nil {
		return *s
	}
	return e.cfg.Speed
}

// New checks cfg and returns an engine ready to Run.
func New(cfg Config) (*Engine, error) {
	if err := cfg.withDefaults(); err != nil {
		return nil, err
	}
	e := &Engine{
		cfg:    cfg,
		log:    cfg.Logger,
		dialer: cfg.Dialer,
		timing: scheduler.NewShared(cfg.Shard.Pace(cfg.Speed)),
	}
	return e, nil
}

// StartAt sets Config.StartAt, the common start of a sharded run; call
// before Run.
func (e *Engine) StartAt(t time.Time) { e.cfg.StartAt = t }

// OnResult sets Hooks.OnResult: a function called with each result the
// report counts, as it is judged, from the validate stage's goroutine; it
// must not block. Call before Run.
func (e *Engine) OnResult(f func(report.Result)) { e.cfg.Hooks.OnResult = f }

func (e *Engine) publish(r report.Result) {
	if e.cfg.Hooks.OnVerdict != nil {
		v := r
		v.Out, v.Answer, v.Recorded = nil, nil, nil
		e.cfg.Hooks.OnVerdict(v)
	}
	if e.cfg.Hooks.OnResult != nil {
		e.cfg.Hooks.OnResult(r)
	}
}

// SetSpeed changes the pacing of a running replay; each session's next
// message is due by the new speed. It never blocks: each session's actor
// takes the change up on its own goroutine.
func (e *Engine) SetSpeed(s scheduler.Speed) {
	now := time.Now()
	e.speedNow.Store(&s)
	e.timing.SetSpeed(s, now)
	for _, a := range e.actors.all() {
		a.SetSpeed(s, now)
	}
}

// Run replays the tape and returns the report. It returns when the tape
// has been replayed and every answer judged, or when ctx is done. The
// report is filled in either case; the error says why the replay stopped
// early: a bad tape (*tape.Error), the target (wrapping ErrTarget), or ctx.
func (e *Engine) Run(ctx context.Context) (report.Report, error) {
	// Held from before the tape is opened: a target that reads the tape
	// (the mock) reads ahead on its own goroutine from the open on, and
	// at the user's GOGC that read started a collection before the hold
	// when Run waited for a processor (TestHoldBeforeTapeRead).
	if e.cfg.Speed.Paced() {
		defer holdCollections(e.cfg.Speed, e.cfg.GCHeadroom)()
	} else {
		defer holdFastCollections(e.cfg.GCHeadroom)()
	}
	r, err := e.openTape()
	if err != nil {
		return report.Report{}, err
	}
	defer r.Close()
	defer e.closeLookup()
	v := e.cfg.Validator
	if v == nil {
		if v, err = validator.New(validator.WithIgnore(e.cfg.Ignore...)); err != nil {
			return report.Report{}, fmt.Errorf("ignore paths: %w", err)
		}
	}
	e.v, e.retries = v, v.Retries()
	// The histograms of a replay of one tool (the handshake's, the
	// method's, the tool's) are made now, not in the collector's first
	// chunk of results, while the sessions are due.
	copts := []report.Option{report.WithGroupHistograms(3)}
	if e.cfg.TimelineLimit > 0 {
		copts = append(copts, report.WithTimelineLimit(e.cfg.TimelineLimit))
	}
	col := report.NewCollector(append(copts, e.cfg.ReportOptions...)...)

	// Buffers let the loader read ahead in batches (fewer goroutine
	// hand-offs per message); nothing is paced before the sessions (each
	// paces its own messages), and a seek drops the items by epoch. The
	// router's queue limit bounds how far the loader reads ahead.
	loaded := make(chan *Item, 256)
	transformed := make(chan *Item, 256)
	// Judging never holds up sending: answers queue for validate.
	executed := make(chan outcomes, 256)
	rctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	e.stopRun = stop
	g, gctx := errgroup.WithContext(rctx)
	if t, ok := r.(*taken); ok {
		// The run stopped: the loader may wait for the target's read of
		// the tape (the next batch); stopping the read ends that wait.
		defer context.AfterFunc(gctx, func() { t.Close() })()
	}
	collectBeforeSchedule(e.cfg.Speed)
	if e.cfg.Speed.Paced() {
		// The report's first chunk of results comes while calls are due:
		// its histograms' and timeline's pages are mapped now
		// (Collector.Prefault), under the hold and after the forced
		// collection (before it, the timeline's first block started one
		// more at the heap's start-up goal: TestGCDuringPacedSchedule
		// under -race, 8 of 11 runs, when the hold came after the open).
		col.Prefault()
	}
	start := time.Now()
	if !e.cfg.StartAt.IsZero() {
		start = e.cfg.StartAt
	}
	col.Start(start)
	defer e.startEvents(ctx, start, col)() // col is the stream's until endEvents
	var src source = r
	if e.cfg.Sessions > 1 {
		if e.ctl != nil {
			return report.Report{}, fmt.Errorf("engine: a controlled replay (debug) runs each recorded session once: want 1 session")
		}
		// The ramp is wall-clock time; the fan-out shifts recorded time.
		ramp := e.cfg.Ramp
		if e.cfg.Speed.Mode == scheduler.Scaled {
			ramp = time.Duration(float64(ramp) * e.cfg.Speed.Factor)
		}
		src = newFanout(r, e.cfg.Sessions, ramp)
	}
	var shard *sharded
	if e.cfg.Shard.Sharded() {
		if e.ctl != nil {
			return report.Report{}, fmt.Errorf("engine: a controlled replay (debug) cannot be sharded")
		}
		shard = newSharded(src, e.cfg.Shard)
		src = shard
	}
	if e.holdLoad != nil {
		src = e.holdLoad(gctx, src)
	}
	e.env = e.sessionEnv()
	g.Go(func() error { return e.load(gctx, src, loaded) })
	g.Go(func() error { return e.transform(gctx, loaded, transformed) })
	if e.ctl != nil {
		g.Go(func() error { return e.followPauses(gctx) })
	}
	// One value, sent once: the scan need not wait for the router.
	lasts := make(chan lastSeqs, 1)
	rt := e.router()
	if shard != nil {
		rt.firstTUS = shard.firstTUS
	}
	if e.ctl == nil { // a seek may send any session back: none ends early
		g.Go(func() error { return e.findLasts(gctx, lasts) })
	}
	g.Go(func() error { return rt.route(gctx, g, transformed, &sink{e: e, rt: rt, out: executed}, lasts) })
	g.Go(func() error { return e.validate(gctx, executed, v) })
	err = g.Wait()
	if errors.Is(err, context.Canceled) && ctx.Err() == nil {
		// A stage that saw the run stopped returned first: the reason is
		// the cause the run was stopped with.
		if cause := context.Cause(rctx); cause != nil && !errors.Is(cause, context.Canceled) {
			err = cause
		}
	}
	finished := e.finished
	if finished.IsZero() { // cut short: the report ends now
		finished = time.Now()
	}
	streamNotes := e.endEvents(err) // the collector has every verdict now
	col.Finish(finished)

	warnings := append(append(append(append(r.Warnings(), e.loadNotes...), e.restoreNotes...), e.notes...), streamNotes...)
	if e.invalid > 20 {
		warnings = append(warnings, fmt.Sprintf("… and %d more recorded messages that are not valid JSON-RPC", e.invalid-20))
	}
	// Stopped before the common start: nothing replayed, whatever was read.
	beforeStart := err != nil && finished.Before(e.cfg.StartAt)
	shardMeta, shardNote := shard.shardMeta(err != nil, beforeStart)
	if shardNote != "" {
		warnings = append(warnings, shardNote)
	}
	totalMessages := e.counters.loaded.Load() / int64(max(e.cfg.Sessions, 1)) // the tape's own, not its copies'
	if shard != nil {                                                         // the tape's own too: a shard reads every message of it
		totalMessages = shard.read / int64(max(e.cfg.Sessions, 1))
	}
	sessions, sessionsAsked := int(e.counters.sessions.Load()), 0
	if err != nil { // stopped early: the loader's counts are of what it read
		sessions = col.Dialled() // those it began to read may not have started
		if n, recorded, ok := e.tapeCount(r, shard); ok {
			totalMessages = n
			if shard == nil { // a shard's share of the sessions is its own
				sessionsAsked = recorded * max(e.cfg.Sessions, 1)
			}
		}
	}
	var seed *int64
	if e.cfg.Chaos != nil {
		s := e.cfg.Chaos.Seed()
		seed = &s
	}
	speed := e.cfg.Speed // the report's, apart from the engine's
	rep := col.Report(report.Meta{
		Seed:          seed,
		Tape:          e.cfg.Source.Name(),
		Sessions:      sessions,
		SessionsAsked: sessionsAsked,
		TotalMessages: totalMessages,
		Shard:         shardMeta,
		Target:        e.cfg.Target,
		Speed:         &speed,
		Skipped:       e.counters.filtered.Load(),
		Warnings:      warnings,
		Server: report.ServerTraffic{
			Notifications:    e.counters.serverNotes.Load(),
			RequestsAnswered: e.counters.serverRequests.Load(),
			RequestsRefused:  e.counters.serverRefused.Load(),
		},
	})
	if e.cfg.Chaos != nil {
		rep.Chaos.Survival = e.survival.verdicts()
		// In tape order, whatever order the answers came in.
		slices.SortFunc(rep.Chaos.Faults, func(a, b report.Fault) int {
			if c := strings.Compare(a.Session, b.Session); c != 0 {
				return c
			}
			return cmp.Compare(a.Seq, b.Seq)
		})
	}
	return rep, err
}

// collectBeforeSchedule runs a garbage collection, and waits for it, before
// the schedule of a replay at a speed that paces its messages starts: the
// garbage of the start-up (flags, config, the target's set-up) is then not
// marked while the first messages are due. With one processor (a client
// pinned to a core) the collection that came a few milliseconds in had the
// replay's goroutines assist its marking for milliseconds, which held the
// answers and so the messages waiting for them (BENCHMARKS.md, issue 24,
// third round). It costs one collection (a few milliseconds of CPU in the
// CLI) before the run's start; fast and stepped replays skip it.
func collectBeforeSchedule(s scheduler.Speed) {
	if s.Paced() {
		runtime.GC()
		gcHold.repace() // for the live heap it left, not the finalizer's later
	}
}
