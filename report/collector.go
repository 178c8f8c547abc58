package report

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/replayctl/replayctl/mcp"
)

// Default limits of what a [Collector] keeps in detail.
const (
	DefaultTimelineLimit = 10000
	DefaultFailureLimit  = 1000
	DefaultErrorLimit    = 1000
	DefaultFaultLimit    = 1000
)

// Errors returned by [Collector.Merge].
var (
	// ErrMergeNil is returned when merging a nil collector.
	ErrMergeNil = errors.New("report: cannot merge a nil collector")
	// ErrMergeSelf is returned when merging a collector into itself, which
	// would count everything twice.
	ErrMergeSelf = errors.New("report: cannot merge a collector into itself")
	// ErrMergeHandshake is returned when one collector counts the
	// handshake in its latency ([IncludeHandshake]) and the other does
	// not: the merged figures would mean neither.
	ErrMergeHandshake = errors.New("report: cannot merge a collector that counts the handshake in its latency with one that does not")
)

// Option configures a [Collector].
type Option func(*Collector)

// WithTimelineLimit keeps at most n timeline entries (the first n results;
// default 10000). The report counts the rest in timeline_omitted. n <= 0
// keeps none.
func WithTimelineLimit(n int) Option { return func(c *Collector) { c.timelineLimit = max(n, 0) } }

// WithFailureLimit keeps at most n validation failures in detail (default
// 1000); counts stay exact. n <= 0 keeps none.
func WithFailureLimit(n int) Option { return func(c *Collector) { c.failureLimit = max(n, 0) } }

// WithErrorLimit keeps at most n errors and timeouts in detail (default
// 1000); counts stay exact. n <= 0 keeps none.
func WithErrorLimit(n int) Option { return func(c *Collector) { c.errorLimit = max(n, 0) } }

// WithFaultLimit keeps at most n injected faults in detail (default 1000);
// the count stays exact. n <= 0 keeps none.
func WithFaultLimit(n int) Option { return func(c *Collector) { c.faultLimit = max(n, 0) } }

// WithGroupHistograms makes n latency histograms now for the breakdown
// by method and by name to take, the first n groups that count an
// answer. A histogram is 184 KiB of counts; made when its group's first
// answer is counted, three of them (the handshake's, a method's, a
// tool's) were most of the first chunk of results the report's collector
// took in a replay, 0.3 ms (BENCHMARKS.md, issue 24, ninth round). The
// engine's collector makes them before the replay starts.
func WithGroupHistograms(n int) Option {
	return func(c *Collector) {
		for range n {
			h := newHist()
			c.spareHists = append(c.spareHists, &h)
		}
	}
}

// WithRunID sets the run id of the report (summary.run_id) instead of a
// fresh one: for a collector that is a part of a run whose id is known.
func WithRunID(id string) Option { return func(c *Collector) { c.runID = id } }

// Collector aggregates the results of a replay.
//
// A Collector is owned by one goroutine (the engine's validate/report
// stage) and is not safe for concurrent use. Workers that run in parallel
// each own a Collector; one goroutine merges them when they are done.
type Collector struct {
	runID                                               string // made once per collector: one per replay
	timelineLimit, failureLimit, errorLimit, faultLimit int

	start, finish time.Time // as given by Start and Finish
	first, last   time.Time // earliest and latest time seen in results

	results          int64
	sent, received   int64
	skipped          int64
	requestsSent     int64
	requestsAnswered int64
	passed, warned   int64
	failed           int64
	errored          int64
	timedOut         int64
	faults           int64

	latency, intended, lag, held hist
	late                         int64    // client messages sent more than LateAfter late (lag)
	reqDue, reqSent              timeSpan // client requests sent after the handshake: their due and send times
	msgDue, msgSent              timeSpan // client requests and notifications sent, the handshake's too

	dialled map[string]struct{} // sessions whose connection opened (AddDialled)

	timeline        timelineBlocks
	timelineOmitted int64
	failures        []Failure
	failuresOmitted int64
	errs            []ErrorEntry
	errsOmitted     int64
	faultList       []Fault
	faultsOmitted   int64

	sessionLimit    int
	sessions        map[string]*sessionStats
	sessionsOmitted map[string]struct{}

	// The breakdown by method and by name (method.go): at most
	// methodLimit of each, the handshake's methods besides; methodGroups
	// counts the other methods'.
	includeHandshake             bool
	methodLimit, methodGroups    int
	methods, names               map[groupKey]*group
	methodsOmitted, namesOmitted int64
	spareHists                   []*hist // WithGroupHistograms's, not yet taken
}

// timelineItem is a timeline entry before its times are made relative to
// the start, which may not be known yet when it is added.
type timelineItem struct {
	seq                 int64
	session, method     string
	dir, kind           string
	verdict             Verdict
	due, sent, answered time.Time
}

// NewCollector returns an empty collector, with a fresh run id (a random
// UUID) unless WithRunID gives one.
func NewCollector(opts ...Option) *Collector {
	c := &Collector{
		runID:           uuid.NewString(),
		timelineLimit:   DefaultTimelineLimit,
		failureLimit:    DefaultFailureLimit,
		errorLimit:      DefaultErrorLimit,
		faultLimit:      DefaultFaultLimit,
		latency:         newHist(),
		intended:        newHist(),
		lag:             newHist(),
		held:            newHist(),
		sessionLimit:    DefaultSessionLimit,
		sessions:        make(map[string]*sessionStats),
		sessionsOmitted: make(map[string]struct{}),
		methodLimit:     DefaultMethodLimit,
		methods:         make(map[groupKey]*group),
		names:           make(map[groupKey]*group),
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Start records when the replay started; timeline times are relative to
// it. Without Start, the earliest time seen in a result is used.
func (c *Collector) Start(t time.Time) { c.start = t }

// Finish records when the replay ended. Without Finish, the latest time
// seen in a result is used.
func (c *Collector) Finish(t time.Time) { c.finish = t }

// AddDialled counts session as started: its connection opened (once
// for each session, however often it reconnects).
func (c *Collector) AddDialled(session string) {
	if c.dialled == nil {
		c.dialled = make(map[string]struct{})
	}
	c.dialled[session] = struct{}{}
}

// Dialled is how many sessions AddDialled counted.
func (c *Collector) Dialled() int { return len(c.dialled) }

// Add counts one result. It does not allocate for a passing result once the
// timeline is full.
func (c *Collector) Add(r Result) { c.AddResult(&r) }

// AddResult is Add without a copy of r (320 bytes). It does not keep r.
func (c *Collector) AddResult(r *Result) { c.AddFigured(r, r.figures()) }

// AddFigured is AddResult with r's figures (Result.Figures) taken
// already: the engine's judged events carry them, and its collector
// counts each result so.
func (c *Collector) AddFigured(r *Result, f Figures) {
	c.results++
	c.see(r.Due)
	c.see(r.Sent)
	c.see(r.Answered)

	sent := !r.Sent.IsZero() && r.Dir != DirS2C
	answered := !r.Answered.IsZero()
	isRequest := r.Kind == KindRequest && sent
	if sent && (r.Kind == KindRequest || r.Kind == KindNotification) {
		// At fixed: and rps: each takes a ticket: the rates are theirs.
		c.msgSent.add(r.Sent)
		if !r.Due.IsZero() {
			c.msgDue.add(r.Due)
		}
	}
	if sent {
		c.sent++
		c.lag.record(f.Lag)
		if f.Lag > LateAfter {
			c.late++
		}
		if f.HasHeld {
			c.held.record(f.Held)
		}
	}
	if answered {
		c.received++
	}
	if r.Session != "" && r.Seq >= 0 {
		c.addSession(r, sent, answered)
	}
	c.addGroups(r, sent, isRequest, f)
	if isRequest {
		c.requestsSent++
		// The rates are those of the schedule: the handshake, which waits
		// for the target to start and anchors each session's clock, is
		// not part of it.
		if !mcp.IsHandshake(r.Method) {
			c.reqSent.add(r.Sent)
			if !r.Due.IsZero() {
				c.reqDue.add(r.Due)
			}
		}
		// The handshake's latency is the target's start-up: reported
		// apart (method.go), in the headline only when asked.
		if f.HasLatency {
			c.requestsAnswered++
		}
		if f.HasLatency && (c.includeHandshake || !mcp.IsHandshake(r.Method)) {
			c.latency.record(f.Latency)
			due := r.Due
			if due.IsZero() {
				due = r.Sent
			}
			c.intended.record(r.Answered.Sub(due))
		}
	}

	switch r.Verdict {
	case Passed:
		c.passed++
	case Warned:
		c.passed++
		c.warned++
	case Failed:
		c.failed++
		c.addFailure(*r)
	case Skipped:
		c.skipped++
	case Sent:
	case Timeout:
		c.timedOut++
		c.addError(*r, "timeout", r.Err)
	case Error:
		c.errored++
		c.addError(*r, "error", r.Err)
	default:
		c.errored++
		c.addError(*r, "unknown_verdict", fmt.Sprintf("the engine gave verdict %q, which the report does not know", r.Verdict))
	}

	if c.timeline.len() < c.timelineLimit {
		c.timeline.add(timelineItem{
			seq: r.Seq, session: r.Session, method: r.Method, dir: r.Dir, kind: r.Kind,
			verdict: r.Verdict, due: r.Due, sent: r.Sent, answered: r.Answered,
		}, c.timelineLimit)
	} else {
		c.timelineOmitted++
	}
}

// AddFault counts one injected chaos fault.
func (c *Collector) AddFault(f Fault) {
	c.faults++
	if len(c.faultList) < c.faultLimit {
		c.faultList = append(c.faultList, f)
	} else {
		c.faultsOmitted++
	}
}

func (c *Collector) see(t time.Time) {
	if t.IsZero() {
		return
	}
	if c.first.IsZero() || t.Before(c.first) {
		c.first = t
	}
	if t.After(c.last) {
		c.last = t
	}
}

func (c *Collector) addFailure(r Result) {
	if len(c.failures) >= c.failureLimit {
		c.failuresOmitted++
		return
	}
	c.failures = append(c.failures, Failure{Seq: r.Seq, Session: r.Session, Method: r.Method, Differences: BoundDifferences(r.Differences)})
}

func (c *Collector) addError(r Result, defaultKind, msg string) {
	if len(c.errs) >= c.errorLimit {
		c.errsOmitted++
		return
	}
	kind := r.ErrKind
	if kind == "" {
		kind = defaultKind
	}
	c.errs = append(c.errs, ErrorEntry{Seq: r.Seq, Session: r.Session, Method: r.Method, Kind: kind, Message: keptText(msg)})
}

// Merge adds everything o collected to c, as if o's results had been added
// to c after c's own: counts and histograms add up, start is the earlier,
// finish the later, and the detailed lists are appended within c's limits.
// c keeps its run id.
// o is not changed. Merge returns [ErrMergeNil] or [ErrMergeSelf] and
// changes nothing when o is nil or c itself, and [ErrMergeHandshake] when
// one of them counts the handshake in its latency ([IncludeHandshake])
// and the other does not.
func (c *Collector) Merge(o *Collector) error {
	switch o {
	case nil:
		return ErrMergeNil
	case c:
		return ErrMergeSelf
	}
	if c.includeHandshake != o.includeHandshake {
		return ErrMergeHandshake
	}
	c.start = earlier(c.start, o.start)
	c.finish = later(c.finish, o.finish)
	c.first = earlier(c.first, o.first)
	c.last = later(c.last, o.last)

	c.results += o.results
	c.sent += o.sent
	c.received += o.received
	c.skipped += o.skipped
	c.requestsSent += o.requestsSent
	c.requestsAnswered += o.requestsAnswered
	c.passed += o.passed
	c.warned += o.warned
	c.failed += o.failed
	c.errored += o.errored
	c.timedOut += o.timedOut
	c.faults += o.faults

	c.latency.merge(&o.latency)
	c.intended.merge(&o.intended)
	c.lag.merge(&o.lag)
	c.held.merge(&o.held)
	c.late += o.late
	c.reqDue.merge(o.reqDue)
	c.reqSent.merge(o.reqSent)
	c.msgDue.merge(o.msgDue)
	c.msgSent.merge(o.msgSent)

	c.timelineOmitted = c.timeline.appendCapped(&o.timeline, c.timelineLimit, c.timelineOmitted+o.timelineOmitted)
	c.failures, c.failuresOmitted = appendCapped(c.failures, o.failures, c.failureLimit, c.failuresOmitted+o.failuresOmitted)
	c.errs, c.errsOmitted = appendCapped(c.errs, o.errs, c.errorLimit, c.errsOmitted+o.errsOmitted)
	c.faultList, c.faultsOmitted = appendCapped(c.faultList, o.faultList, c.faultLimit, c.faultsOmitted+o.faultsOmitted)
	c.mergeSessions(o)
	c.mergeGroups(o)
	return nil
}

// appendCapped appends from to dst up to limit entries and returns the
// omitted count increased by what did not fit.
func appendCapped[T any](dst, from []T, limit int, omitted int64) ([]T, int64) {
	room := max(limit-len(dst), 0)
	n := min(room, len(from))
	dst = append(dst, from[:n]...)
	return dst, omitted + int64(len(from)-n)
}

func earlier(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Prefault maps the memory of the collector's histograms (its own and
// WithGroupHistograms's) now, before the first results: each is 184 KiB
// of counts the kernel maps a page at a time at its first write, and
// those first writes came in the first chunk of results the engine's
// collector took, while a paced replay's calls were due: on a virtual
// machine tens of microseconds a page, 0.3-0.6 ms in all, and the call
// due then waited for it (BENCHMARKS.md, issue 24, tenth round). It
// costs the pages every histogram would map for its first values and
// those it would never use (46 each), at once. A histogram that has
// taken a value is left as it is. The timeline's first block is made
// now too, and its pages mapped (timelineBlocks.prefault).
func (c *Collector) Prefault() {
	for _, h := range []*hist{&c.latency, &c.intended, &c.lag, &c.held} {
		h.prefault()
	}
	for _, h := range c.spareHists {
		h.prefault()
	}
	c.timeline.prefault(c.timelineLimit)
}
