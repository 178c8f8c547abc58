package report

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/replayctl/replayctl/internal/english"
	"github.com/replayctl/replayctl/scheduler"
)

// Meta is what the engine knows about the run as a whole.
type Meta struct {
	Tape string
	// Sessions is how many sessions started; SessionsAsked, when the
	// replay stopped before they all did, how many it was to run (the
	// tape's sessions times the copies of each), 0 when not known.
	Sessions      int
	SessionsAsked int
	// TotalMessages is the number of messages on the tape (or in the
	// replayed window), a shard's too (it reads the whole tape); 0 means
	// "use the number of results".
	TotalMessages int64
	// Skipped counts messages left out before the replay (filters, window)
	// that never became a Result; skipped results are added to it.
	Skipped int64
	Target  string
	// Speed is the replay's speed, nil when not known; the paced ones
	// (realtime, Nx, fixed:, rps:) fill the report's load section.
	Speed    *scheduler.Speed
	Seed     *int64 // chaos seed, nil without chaos
	Shard    *Shard // the shard replayed, nil for a whole run
	Warnings []string
	Server   ServerTraffic
}

// ServerTraffic counts what the live server sent of its own accord.
type ServerTraffic struct {
	Notifications int64 `json:"notifications"`
	// Requests answered with the client's recorded answers, and refused
	// (with a JSON-RPC error) because the tape had none.
	RequestsAnswered int64 `json:"requests_answered"`
	RequestsRefused  int64 `json:"requests_refused"`
}

// Report is the report of a replay. Its JSON field names are a contract
// (DESIGN.md, "Report (JSON)"); fields beyond it are extras.
type Report struct {
	Summary         Summary         `json:"summary"`
	Performance     Performance     `json:"performance"`
	Load            Load            `json:"load"`
	Validation      Validation      `json:"validation"`
	Chaos           Chaos           `json:"chaos"`
	Errors          []ErrorEntry    `json:"errors"`
	ErrorsOmitted   int64           `json:"errors_omitted"`
	Timeline        []TimelineEntry `json:"timeline"`
	TimelineOmitted int64           `json:"timeline_omitted"`
	// PerSession breaks the totals down by session (by name, at most
	// DefaultSessionLimit; the rest are counted in SessionsOmitted).
	PerSession      []SessionSummary `json:"per_session"`
	SessionsOmitted int              `json:"sessions_omitted"`
	// PerMethod breaks the results down by method, PerName by the tool,
	// prompt or resource a request names (at most DefaultMethodLimit of
	// each, or WithMethodLimit's; the results of the rest are counted in
	// PerMethodOmitted and PerNameOmitted). Thresholds take them as
	// filters: p99{method:tools/call}<200ms.
	PerMethod        []MethodSummary `json:"per_method"`
	PerMethodOmitted int64           `json:"per_method_omitted"`
	PerName          []MethodSummary `json:"per_name"`
	PerNameOmitted   int64           `json:"per_name_omitted"`
	// Handshake is the handshake apart: by default its latency is not in
	// Performance's.
	Handshake Handshake `json:"handshake"`
	// Thresholds are the results of the run's thresholds, set by
	// [Report.ApplyThresholds]; empty when there were none.
	Thresholds []ThresholdResult `json:"thresholds"`
	// Histograms keeps the performance distributions without loss, so
	// that reports merge exactly ([Merge]).
	Histograms Histograms `json:"histograms"`
	// History ties the run to the run store it was kept in (run
	// --history); nil when it was not kept.
	History *HistoryLink `json:"history,omitempty"`
	// Coordination is how the shards of a coordinated run started and
	// ended (replayctl coordinate); nil for any other run.
	Coordination *Coordination `json:"coordination,omitempty"`

	source string // the file [Read] read it from, for errors
}

// Summary is the report's "summary" section.
type Summary struct {
	// RunID names this replay: a UUID made once per replay (per
	// Collector), different from every other run's.
	RunID  string `json:"run_id"`
	Tape   string `json:"tape"`
	Target string `json:"target,omitempty"`
	// Config is the config file the replay read, when it read one.
	Config string `json:"config,omitempty"`
	// Speed is written as the command line takes it ("10x", "fast",
	// "rps:500"), and left out when not known.
	Speed    *scheduler.Speed `json:"speed,omitempty"`
	Sessions int              `json:"sessions"`
	// SessionsAsked is how many sessions a replay stopped early was to
	// run, when it is known (Sessions is how many started); 0 otherwise.
	SessionsAsked int     `json:"sessions_asked,omitempty"`
	TotalMessages int64   `json:"total_messages"`
	Sent          int64   `json:"sent"`
	Received      int64   `json:"received"`
	Skipped       int64   `json:"skipped"`
	DurationMS    float64 `json:"duration_ms"`
	// StartedAt and FinishedAt are when the replay started and ended
	// (timeline times count from StartedAt).
	StartedAt   time.Time `json:"started_at,omitzero"`
	FinishedAt  time.Time `json:"finished_at,omitzero"`
	SuccessRate float64   `json:"success_rate"`
	Passed      bool      `json:"passed"` // same as Report.Passed
	// Aborted says why the replay stopped before the end of the tape
	// (the target failed, a bad line, an interrupt); a cut-short replay
	// never passes.
	Aborted string `json:"aborted,omitempty"`
	// Stopped is why the replay stopped before the end of the tape, when
	// it did (see Report.Conclude).
	Stopped StopKind `json:"stopped,omitempty"`
	// NothingChecked says why a replay that judged no answer does not
	// pass (see Report.Unchecked): nothing failed, and nothing was
	// checked either — a tape with no MCP message among them.
	NothingChecked string `json:"nothing_checked,omitempty"`
	// Shard is the share of the run this replay was (replayctl run
	// --shard I/N), nil for a whole run.
	Shard *Shard `json:"shard,omitempty"`
	// Shards is what a merge of shards covered, nil when it merged none.
	Shards   *MergedShards `json:"shards,omitempty"`
	Warnings []string      `json:"warnings,omitempty"`
	// Server is what the live server sent of its own accord.
	Server ServerTraffic `json:"server_initiated"`
}

// Performance is the report's "performance" section.
type Performance struct {
	LatencyMS             Stats `json:"latency_ms"`
	LatencyFromIntendedMS Stats `json:"latency_from_intended_ms"`
	ScheduleLagMS         Stats `json:"schedule_lag_ms"`
	// HeldMS is the time client messages waited past their due time for
	// causal order or the in-flight limit (see [Result.Held]).
	HeldMS         Stats   `json:"held_ms"`
	ThroughputPerS float64 `json:"throughput_per_s"`
	ErrorRate      float64 `json:"error_rate"`
	Requests       int64   `json:"requests"` // requests sent
	Answered       int64   `json:"answered"` // requests answered in time
	Errors         int64   `json:"errors"`   // results with verdict error
	Timeouts       int64   `json:"timeouts"` // results with verdict timeout
	// LatencyHistogram is the latency distribution in buckets of a 1-2-5
	// series (count of latencies up to le_ms and above the previous
	// bucket's), from the first bucket with a value to the last.
	LatencyHistogram []HistogramBucket `json:"latency_histogram"`
}

// Validation is the report's "validation" section. Checked = Passed +
// Failed; Warnings counts passed checks a rule downgraded to a warning.
type Validation struct {
	Checked         int64     `json:"checked"`
	Passed          int64     `json:"passed"`
	Failed          int64     `json:"failed"`
	Warnings        int64     `json:"warnings"`
	Failures        []Failure `json:"failures"`
	FailuresOmitted int64     `json:"failures_omitted"`
}

// Failure is one failed validation, kept in detail.
type Failure struct {
	Seq         int64        `json:"seq"`
	Session     string       `json:"session"`
	Method      string       `json:"method"`
	Differences []Difference `json:"differences"`
}

// Chaos is the report's "chaos" section.
type Chaos struct {
	Seed          *int64  `json:"seed"`
	Injected      int64   `json:"injected"`
	Faults        []Fault `json:"faults"`
	FaultsOmitted int64   `json:"faults_omitted"`
	// Survival is the verdict per session of a chaos replay: did the
	// server stay up and keep answering correctly after the faults.
	Survival []Survival `json:"survival,omitempty"`
}

// Survival is one session's chaos verdict.
type Survival struct {
	Session  string   `json:"session"`
	Survived bool     `json:"survived"`
	Faults   int      `json:"faults"`
	BrokenBy *Fault   `json:"broken_by,omitempty"` // the first fault after which it was down or wrong
	Notes    []string `json:"notes,omitempty"`
}

// ErrorEntry is one error or timeout, kept in detail.
type ErrorEntry struct {
	Seq     int64  `json:"seq"`
	Session string `json:"session"`
	Method  string `json:"method,omitempty"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// TimelineEntry is a result in JSON: the one wire shape of a [Result],
// written by the report's timeline (one entry per replayed message), the
// control socket's step results and status ("last"), and the debugger.
// Times are milliseconds since the start of the replay; null when not
// applicable (not sent, no answer) or not known. Kind, Error and
// Differences are left out of the report's timeline (its failures and
// errors lists hold them) and absent when empty.
type TimelineEntry struct {
	Seq         int64        `json:"seq"`
	Session     string       `json:"session"`
	Method      string       `json:"method"`
	Dir         string       `json:"dir"`
	Kind        string       `json:"kind,omitempty"`
	DueMS       *float64     `json:"due_ms"`
	SentMS      *float64     `json:"sent_ms"`
	AnsweredMS  *float64     `json:"answered_ms"`
	LatencyMS   *float64     `json:"latency_ms"`
	Verdict     Verdict      `json:"verdict"`
	Error       string       `json:"error,omitempty"`
	Differences []Difference `json:"differences,omitempty"`
}

// Entry is r in its wire shape, its times counted from start (the
// replay's); with a zero start the times are null, the latency is still
// given.
func (r Result) Entry(start time.Time) TimelineEntry {
	return r.entryIn(start, new([4]float64))
}

// entryIn is Entry with its times kept in ms (one allocation for an
// entry's four, or one for a whole timeline's: Collector.Report).
func (r Result) entryIn(start time.Time, ms *[4]float64) TimelineEntry {
	e := TimelineEntry{
		Seq: r.Seq, Session: r.Session, Method: r.Method, Dir: r.Dir, Kind: r.Kind,
		Verdict: r.Verdict, Error: r.Err, Differences: r.Differences,
	}
	if !start.IsZero() {
		e.DueMS, e.SentMS, e.AnsweredMS = sinceMS(start, r.Due, &ms[0]), sinceMS(start, r.Sent, &ms[1]), sinceMS(start, r.Answered, &ms[2])
	}
	if !r.Sent.IsZero() && !r.Answered.IsZero() {
		ms[3] = durToMS(r.Answered.Sub(r.Sent))
		e.LatencyMS = &ms[3]
	}
	return e
}

// Report builds the report of what was collected so far. It does not
// change the collector and may be called again after more results.
func (c *Collector) Report(meta Meta) Report {
	start, finish := c.span()
	duration := finish.Sub(start)
	if duration < 0 {
		duration = 0
	}
	total := meta.TotalMessages
	if total == 0 {
		total = c.results
	}

	r := Report{
		Summary: Summary{
			RunID:         c.runID,
			Tape:          meta.Tape,
			Target:        meta.Target,
			Speed:         meta.Speed,
			Sessions:      meta.Sessions,
			SessionsAsked: meta.SessionsAsked,
			TotalMessages: total,
			Sent:          c.sent,
			Received:      c.received,
			Skipped:       meta.Skipped + c.skipped,
			DurationMS:    durToMS(duration),
			StartedAt:     start,
			FinishedAt:    finish,
			SuccessRate:   ratio(c.passed, c.passed+c.failed+c.errored+c.timedOut, 1),
			Warnings:      keptTexts(meta.Warnings),
			Server:        meta.Server,
			Shard:         meta.Shard,
		},
		Performance: Performance{
			LatencyMS:             c.latency.stats(),
			LatencyFromIntendedMS: c.intended.stats(),
			ScheduleLagMS:         c.lag.stats(),
			HeldMS:                c.held.stats(),
			ErrorRate:             errorRate(c.errored+c.timedOut, c.requestsSent),
			Requests:              c.requestsSent,
			Answered:              c.requestsAnswered,
			Errors:                c.errored,
			Timeouts:              c.timedOut,
			LatencyHistogram:      c.latency.buckets(),
		},
		Validation: Validation{
			Checked:         c.passed + c.failed,
			Passed:          c.passed,
			Failed:          c.failed,
			Warnings:        c.warned,
			Failures:        make([]Failure, len(c.failures)),
			FailuresOmitted: c.failuresOmitted,
		},
		Chaos: Chaos{
			Seed:          meta.Seed,
			Injected:      c.faults,
			Faults:        append([]Fault{}, c.faultList...),
			FaultsOmitted: c.faultsOmitted,
		},
		Errors:          append([]ErrorEntry{}, c.errs...),
		ErrorsOmitted:   c.errsOmitted,
		Timeline:        make([]TimelineEntry, c.timeline.len()),
		TimelineOmitted: c.timelineOmitted,
		PerSession:      c.perSession(),
		SessionsOmitted: len(c.sessionsOmitted),
		Thresholds:      []ThresholdResult{},
		Histograms:      c.histograms(),

		PerMethod:        summaries(c.methods),
		PerMethodOmitted: c.methodsOmitted,
		PerName:          summaries(c.names),
		PerNameOmitted:   c.namesOmitted,
		Handshake:        c.handshake(),
	}
	r.Load = c.load(meta.Speed, meta.Sessions, r.Performance.ScheduleLagMS, r.Performance.HeldMS)
	if duration > 0 {
		r.Performance.ThroughputPerS = float64(c.requestsAnswered) / duration.Seconds()
	}
	for i, f := range c.failures {
		r.Validation.Failures[i] = failureForReport(f)
	}
	ms := make([][4]float64, c.timeline.len()) // the entries' times: one allocation, not four an entry
	c.timeline.each(func(i int, it *timelineItem) {
		r.Timeline[i] = Result{
			Seq: it.seq, Session: it.session, Method: it.method, Dir: it.dir, Kind: it.kind, Verdict: it.verdict,
			Due: it.due, Sent: it.sent, Answered: it.answered,
		}.entryIn(start, &ms[i])
	})
	r.Summary.NothingChecked = r.Unchecked()
	r.Summary.Passed = r.Passed()
	return r
}

// Passed reports whether the replay passed: no validation failed, there
// was no error or timeout, no threshold failed, and some answer was
// checked (see Unchecked).
func (r Report) Passed() bool {
	if r.Summary.Aborted != "" || r.Unchecked() != "" || r.Incomplete() != "" {
		return false
	}
	for _, t := range r.Thresholds {
		if !t.Passed {
			return false
		}
	}
	for _, s := range r.Chaos.Survival {
		if !s.Survived {
			return false
		}
	}
	return r.Validation.Failed == 0 && r.Performance.Errors == 0 && r.Performance.Timeouts == 0 && len(r.Errors) == 0
}

// Unchecked says why a replay checked nothing, or "" when it checked
// something: its tape holds no MCP message (a HAR of a web page, an
// empty cassette), or what it sent had no answer to check (notifications
// only), or requests went out and not one answer was judged against the
// recording (the recorded answers were not JSON-RPC, or not there, or
// every answer was left out). Such a run is not a pass. A replay cut
// short is left to Summary.Aborted.
func (r Report) Unchecked() string {
	switch {
	case r.Validation.Checked > 0 || r.Summary.Aborted != "":
		return ""
	case r.Summary.Shard != nil && r.Summary.Shard.Empty:
		return "" // a shard with no session: nothing to check, and it says so
	case r.Summary.TotalMessages == 0:
		return fmt.Sprintf("tape %s holds no MCP message to replay (is it the right file? see the warnings for what was skipped)", r.Summary.Tape)
	case r.Performance.Requests == 0:
		return fmt.Sprintf("tape %s: %s sent, none a request: no answer to check against the recording", r.Summary.Tape, english.Count(r.Summary.Sent, "message"))
	}
	return fmt.Sprintf("%s sent and no answer checked against the recording of tape %s (see the warnings and the timeline for why)", english.Count(r.Performance.Requests, "request"), r.Summary.Tape)
}

// span is the replay's start and finish: as given, or else the earliest
// and latest times seen.
func (c *Collector) span() (start, finish time.Time) {
	start, finish = c.start, c.finish
	if start.IsZero() {
		start = c.first
	}
	if finish.IsZero() {
		finish = c.last
	}
	return start, finish
}

// failureForReport copies f, turning bytes that are not JSON into a JSON
// string so the report always encodes.
func failureForReport(f Failure) Failure {
	diffs := make([]Difference, len(f.Differences))
	for i, d := range f.Differences {
		d.Expected = validJSON(d.Expected)
		d.Actual = validJSON(d.Actual)
		diffs[i] = d
	}
	f.Differences = diffs
	return f
}

func validJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil // absent
	}
	if json.Valid(raw) {
		return raw
	}
	b, _ := json.Marshal(string(raw)) // a string always encodes
	return b
}

// sinceMS is t in ms since start, kept in *ms; nil for a zero t.
func sinceMS(start, t time.Time, ms *float64) *float64 {
	if t.IsZero() {
		return nil
	}
	*ms = durToMS(t.Sub(start))
	return ms
}

// ratio is n/d, or ifZero when d is 0.
func ratio(n, d int64, ifZero float64) float64 {
	if d == 0 {
		return ifZero
	}
	return float64(n) / float64(d)
}

func errorRate(errs, requests int64) float64 {
	if requests == 0 {
		if errs > 0 {
			return 1
		}
		return 0
	}
	return min(ratio(errs, requests, 0), 1)
}

// Abort records that the replay stopped early, and why: the report then
// does not pass, and says so.
func (r *Report) Abort(why string) {
	r.Summary.Aborted = why
	r.Summary.Passed = false
}
