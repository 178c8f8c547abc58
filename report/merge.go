package report

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/replayctl/replayctl/scheduler"
)

// Errors of [Read] and [Merge].
var (
	// ErrBadReport is wrapped when a report cannot be read or merged as
	// it is: not JSON, a field of the wrong type, no histograms section
	// (an older replayctl wrote it), another histograms version or
	// configuration, a corrupt histogram.
	ErrBadReport = errors.New("report: bad report")
	// ErrDifferentTapes is wrapped when the reports replayed different
	// tapes and [AllowDifferentTapes] was not given.
	ErrDifferentTapes = errors.New("report: the reports replayed different tapes")
	// ErrSameRun is wrapped when two whole runs' reports share a run_id:
	// the same run given twice (the same report, or a copy of its file),
	// whose every result would count twice. (Shards of one run share its
	// run_id; a shard given twice is an ErrBadReport.)
	ErrSameRun = errors.New("report: the same run given twice")
)

// MergeOption configures [Merge].
type MergeOption func(*mergeConfig)

type mergeConfig struct {
	allowTapes   bool
	allowPartial bool
	thresholds   []Threshold
}

// AllowPartial accepts a merge of shards that lacks some of the run's:
// the merged report is judged on the shards it has, and
// summary.shards.partial says so. Without it such a merge does not pass
// ([Report.Incomplete]): a CI job whose shard upload failed must not pass
// on the rest.
func AllowPartial() MergeOption { return func(c *mergeConfig) { c.allowPartial = true } }

// AllowDifferentTapes lets [Merge] combine reports of different tapes.
// Without it, Merge refuses them: percentiles over two workloads answer no
// question a single run asks, and a report of the wrong tape slipped into
// a merge is a mistake more often than not.
func AllowDifferentTapes() MergeOption { return func(c *mergeConfig) { c.allowTapes = true } }

// MergeThresholds judges ts on the merged figures, besides the thresholds
// the reports carry.
func MergeThresholds(ts ...Threshold) MergeOption {
	return func(c *mergeConfig) { c.thresholds = append(c.thresholds, ts...) }
}

// Merge combines the reports of replays — shards of one run, or runs of
// one tape — into the report of them all, as if one collector had seen
// every result: counts add up (but for the messages on the tape, which
// each shard and each run counts whole: the merge counts them once); the histograms of the "histograms" section
// are added bucket by bucket, so the merged percentiles are exactly those
// of one histogram fed every sample; rates and the load section are
// recomputed over the merged span (the earliest start to the latest
// finish); the detailed lists (failures, errors, faults, timeline,
// sessions) are appended in the order of the reports, within the limits a
// single report keeps (DefaultFailureLimit and the others), the rest
// counted as omitted. The thresholds the reports carry (by expression,
// each once) and those of [MergeThresholds] are judged on the merged
// figures. The merged run id is the reports' own when they all share one,
// else a fresh one. summary.aborted lists the reasons of the reports that
// were cut short, each named, and summary.stopped is the first such
// report's; a merge of them does not pass.
//
// Merge does not change the reports. It returns an error wrapping
// [ErrBadReport] for a report it cannot merge (no histograms section,
// another version or configuration, a corrupt histogram), naming the
// report ([Read]'s path, else "report N") and the field, one wrapping
// [ErrSameRun] for two whole runs of one run_id (the same run given
// twice), naming both, and one wrapping [ErrDifferentTapes] for reports
// of different tapes unless [AllowDifferentTapes] is given.
func Merge(reports []*Report, opts ...MergeOption) (*Report, error) {
	var cfg mergeConfig
	for _, o := range opts {
		o(&cfg)
	}
	if len(reports) == 0 {
		return nil, errorf(ErrBadReport, "no report to merge")
	}
	parts := make([]*Collector, len(reports))
	for i, r := range reports {
		if r == nil {
			return nil, errorf(ErrBadReport, "report %d is nil", i+1)
		}
		c, err := r.collector()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.name(i), err)
		}
		parts[i] = c
	}
	shards, missing, err := mergedShards(reports)
	if err != nil {
		return nil, err
	}
	meta, err := mergedMeta(reports, cfg)
	if err != nil {
		return nil, err
	}
	if err := sameRunTwice(reports); err != nil {
		return nil, err
	}
	if missing != "" {
		meta.Warnings = append(meta.Warnings, missing)
	}
	var copts []Option
	for i, r := range reports {
		if r.Handshake.Included != reports[0].Handshake.Included {
			return nil, errorf(ErrBadReport, "%s counts the handshake in its latency (handshake.included %t) and %s does not; replay them alike, all with --include-handshake or none",
				reports[0].name(0), reports[0].Handshake.Included, r.name(i))
		}
	}
	if reports[0].Handshake.Included {
		copts = append(copts, IncludeHandshake())
	}
	merged := NewCollector(append(copts, WithRunID(mergedRunID(reports)))...)
	for _, p := range parts {
		if err := merged.Merge(p); err != nil {
			return nil, err
		}
	}
	out := merged.Report(meta)
	out.Timeline, out.TimelineOmitted = mergeTimelines(reports, out.Summary.StartedAt)
	if shards != nil && len(shards.Missing) > 0 {
		shards.Partial = cfg.allowPartial
	}
	out.Summary.Shards = shards
	out.SessionsOmitted = len(merged.sessionsOmitted)
	for _, r := range reports {
		out.SessionsOmitted += r.SessionsOmitted
		out.Chaos.Survival = append(out.Chaos.Survival, r.Chaos.Survival...)
		if out.Summary.Stopped == "" {
			out.Summary.Stopped = r.Summary.Stopped
		}
	}
	if why := mergedAborts(reports); why != "" {
		out.Abort(why)
	}
	out.Load = out.Load.cutShort(out.Summary.Stopped)
	ts, err := mergedThresholds(reports, cfg.thresholds)
	if err != nil {
		return nil, err
	}
	out.ApplyThresholds(ts)
	return &out, nil
}

// mergedAborts says why the reports that stopped early stopped, each
// reason once, in the order of the reports, after the reports it stopped:
// "shards 0/4, 1/4: interrupted; report b.json: the target died" (the
// shards a coordinator stopped all give its one long reason).
func mergedAborts(reports []*Report) string {
	var whys []string
	who := map[string][]int{} // a reason → the reports it stopped
	for i, r := range reports {
		why := r.Summary.Aborted
		if why == "" {
			continue
		}
		if _, seen := who[why]; !seen {
			whys = append(whys, why)
		}
		who[why] = append(who[why], i)
	}
	parts := make([]string, 0, len(whys))
	for _, why := range whys {
		parts = append(parts, reportsNamed(reports, who[why])+": "+why)
	}
	return strings.Join(parts, "; ")
}

// reportsNamed names the reports at idx together: "shards 0/4, 1/4" when
// they are all shards known by their index alone, else each by name.
func reportsNamed(reports []*Report, idx []int) string {
	names := make([]string, len(idx))
	shards := len(idx) > 1
	for k, i := range idx {
		r := reports[i]
		names[k] = r.name(i)
		if sh := r.Summary.Shard; sh != nil && r.source == "" {
			names[k] = fmt.Sprintf("%d/%d", sh.Index, sh.Count)
		} else {
			shards = false
		}
	}
	if shards {
		return "shards " + strings.Join(names, ", ")
	}
	for k, i := range idx {
		names[k] = reports[i].name(i)
	}
	return strings.Join(names, ", ")
}

// sameRunTwice returns an error wrapping ErrSameRun when two whole runs'
// reports of one tape share a run_id. Every replay has a run_id of its
// own, which its shards share: a whole run met twice (the same report, a
// copy of its file) would count each result twice. (A shard twice:
// mergedShards.)
func sameRunTwice(reports []*Report) error {
	type run struct{ id, tape string }
	runs := map[run]int{} // a whole run → its report
	for i, r := range reports {
		id := run{r.Summary.RunID, r.Summary.Tape}
		if id.id == "" || r.Summary.Shard != nil {
			continue
		}
		if j, dup := runs[id]; dup {
			return errorf(ErrSameRun, "%s and %s are the same run (run_id %s): give each run once", reports[j].name(j), r.name(i), id.id)
		}
		runs[id] = i
	}
	return nil
}

// name is how errors name the i-th report: its file and its shard
// ("report a.json (shard 0/4)"), its shard alone when it was not read
// from a file, or its place.
func (r *Report) name(i int) string {
	sh := r.Summary.Shard
	switch {
	case sh != nil && r.source != "":
		return fmt.Sprintf("report %s (shard %d/%d)", r.source, sh.Index, sh.Count)
	case sh != nil:
		return fmt.Sprintf("shard %d/%d", sh.Index, sh.Count)
	}
	return r.file(i)
}

// file is how errors that say the shard themselves name the i-th report:
// its file, or its place.
func (r *Report) file(i int) string {
	if r.source != "" {
		return "report " + r.source
	}
	return fmt.Sprintf("report %d", i+1)
}

// collector rebuilds the collector r was made from, as far as a merge
// needs it: the timeline, the sessions omitted and the chaos survival are
// merged apart.
func (r *Report) collector() (*Collector, error) {
	h := r.Histograms
	switch {
	case h.Version == 0:
		return nil, errorf(ErrBadReport, "it has no histograms section (an older replayctl wrote it, or it is not a replay report); replay again with this replayctl to get a report that merges")
	case h.Version != HistogramsVersion:
		return nil, errorf(ErrBadReport, "histograms.version %d; this replayctl merges version %d only (use the replayctl that wrote the reports)", h.Version, HistogramsVersion)
	case h.Encoding != HistogramEncoding:
		return nil, errorf(ErrBadReport, "histograms.encoding %q; want %q", h.Encoding, HistogramEncoding)
	case h.Config != histConfig:
		return nil, errorf(ErrBadReport, "histograms.config is %+v; every report must have %+v so that buckets add up", h.Config, histConfig)
	}
	opts := []Option{WithRunID(r.Summary.RunID), WithTimelineLimit(0)}
	if r.Handshake.Included {
		opts = append(opts, IncludeHandshake())
	}
	c := NewCollector(append(opts,
		WithFailureLimit(len(r.Validation.Failures)),
		WithErrorLimit(len(r.Errors)),
		WithFaultLimit(len(r.Chaos.Faults)))...)
	for _, d := range []struct {
		field string
		into  *hist
		from  EncodedHistogram
	}{
		{"latency", &c.latency, h.Latency},
		{"latency_from_intended", &c.intended, h.LatencyFromIntended},
		{"schedule_lag", &c.lag, h.ScheduleLag},
		{"held", &c.held, h.Held},
	} {
		got, err := d.from.decode()
		if err != nil {
			return nil, errorf(ErrBadReport, "histograms.%s: %w", d.field, err)
		}
		*d.into = got
	}
	var err error
	if c.reqDue, err = h.RequestsDue.span(); err != nil {
		return nil, errorf(ErrBadReport, "histograms.requests_due: %v", err)
	}
	if c.reqSent, err = h.RequestsSent.span(); err != nil {
		return nil, errorf(ErrBadReport, "histograms.requests_sent: %v", err)
	}
	if c.msgDue, err = h.MessagesDue.span(); err != nil {
		return nil, errorf(ErrBadReport, "histograms.messages_due: %v", err)
	}
	if c.msgSent, err = h.MessagesSent.span(); err != nil {
		return nil, errorf(ErrBadReport, "histograms.messages_sent: %v", err)
	}
	c.late = h.Late
	c.start, c.finish = r.Summary.StartedAt, r.Summary.FinishedAt
	c.first, c.last = c.start, c.finish

	c.sent, c.received = r.Summary.Sent, r.Summary.Received
	c.requestsSent, c.requestsAnswered = r.Performance.Requests, r.Performance.Answered
	c.passed, c.warned, c.failed = r.Validation.Passed, r.Validation.Warnings, r.Validation.Failed
	c.errored, c.timedOut = r.Performance.Errors, r.Performance.Timeouts
	c.faults = r.Chaos.Injected

	c.failures, c.failuresOmitted = slices.Clone(r.Validation.Failures), r.Validation.FailuresOmitted
	c.errs, c.errsOmitted = slices.Clone(r.Errors), r.ErrorsOmitted
	c.faultList, c.faultsOmitted = slices.Clone(r.Chaos.Faults), r.Chaos.FaultsOmitted
	c.timelineOmitted = 0 // merged apart: see mergeTimelines
	c.sessionLimit = len(r.PerSession)
	for _, s := range r.PerSession {
		if _, dup := c.sessions[s.Session]; dup {
			return nil, errorf(ErrBadReport, "per_session lists session %q twice", s.Session)
		}
		c.sessions[s.Session] = &sessionStats{
			SessionSummary: s,
			latencyN:       s.LatencyCount,
			latencySumUS:   int64(math.Round(s.LatencyAvgMS * 1000 * float64(s.LatencyCount))),
		}
	}
	if err := c.groupsOf(r); err != nil {
		return nil, err
	}
	return c, nil
}

// groupsOf rebuilds the breakdown by method and by name of r into c: the
// lines of per_method and per_name, and their histograms.
func (c *Collector) groupsOf(r *Report) error {
	c.methodsOmitted, c.namesOmitted = r.PerMethodOmitted, r.PerNameOmitted
	c.methodLimit = max(len(r.PerMethod), len(r.PerName))
	for _, part := range []struct {
		field string
		lines []MethodSummary
		hists []GroupHistogram
		into  map[groupKey]*group
	}{
		{"per_method", r.PerMethod, r.Histograms.PerMethod, c.methods},
		{"per_name", r.PerName, r.Histograms.PerName, c.names},
	} {
		for _, s := range part.lines {
			k := groupKey{s.Method, s.Name}
			if _, dup := part.into[k]; dup {
				return errorf(ErrBadReport, "%s lists %s twice", part.field, k)
			}
			part.into[k] = &group{MethodSummary: s}
			if part.field == "per_method" && !s.Handshake {
				c.methodGroups++
			}
		}
		for i, h := range part.hists {
			k := groupKey{h.Method, h.Name}
			g, ok := part.into[k]
			switch {
			case !ok:
				return errorf(ErrBadReport, "histograms.%s[%d] is of %s, which %s does not list", part.field, i, k, part.field)
			case g.latency != nil:
				return errorf(ErrBadReport, "histograms.%s[%d]: a second histogram of %s", part.field, i, k)
			}
			got, err := h.Latency.decode()
			if err != nil {
				return errorf(ErrBadReport, "histograms.%s[%d] (%s): %w", part.field, i, k, err)
			}
			if got.count != g.Answered {
				return errorf(ErrBadReport, "histograms.%s[%d] holds %d latencies and %s says %s answered %d", part.field, i, got.count, part.field, k, g.Answered)
			}
			g.latency = &got
		}
		for _, k := range sortedKeys(part.into) {
			if g := part.into[k]; g.latency == nil && g.Answered > 0 {
				return errorf(ErrBadReport, "%s: %s answered %d requests and histograms.%s has no histogram of it", part.field, k, g.Answered, part.field)
			}
		}
	}
	return nil
}

func (k groupKey) String() string {
	if k.name == "" {
		return fmt.Sprintf("method %q", k.method)
	}
	return fmt.Sprintf("%s %q", k.method, k.name)
}

// mergedMeta is what the reports say about their runs, combined: sums,
// and what they share.
func mergedMeta(reports []*Report, cfg mergeConfig) (Meta, error) {
	var m Meta
	var tapes, targets, speeds, warnings []string
	seedsAgree := true
	onTape := map[string]int64{} // tape → its messages
	for i, r := range reports {
		s := r.Summary
		if !slices.Contains(tapes, s.Tape) {
			if len(tapes) > 0 && !cfg.allowTapes {
				return Meta{}, errorf(ErrDifferentTapes, "%s replayed %q and %s replayed %q; merge the reports of one tape (its shards, or runs of it), or allow it with --allow-different-tapes",
					reports[0].name(0), tapes[0], r.name(i), s.Tape)
			}
			tapes = append(tapes, s.Tape)
		}
		if s.Target != "" && !slices.Contains(targets, s.Target) {
			targets = append(targets, s.Target)
		}
		if !slices.Contains(speeds, speedText(s.Speed)) {
			speeds = append(speeds, speedText(s.Speed))
		}
		for _, w := range s.Warnings {
			if !slices.Contains(warnings, w) {
				warnings = append(warnings, w)
			}
		}
		if !sameSeed(r.Chaos.Seed, reports[0].Chaos.Seed) {
			seedsAgree = false
		}
		m.Sessions += s.Sessions
		m.SessionsAsked += max(s.SessionsAsked, s.Sessions) // a whole run's asked are its sessions
		// Each run, and each shard, reads the whole tape: its count once.
		onTape[s.Tape] = max(onTape[s.Tape], s.TotalMessages)
		m.Skipped += s.Skipped
		m.Server.Notifications += s.Server.Notifications
		m.Server.RequestsAnswered += s.Server.RequestsAnswered
		m.Server.RequestsRefused += s.Server.RequestsRefused
	}
	for _, n := range onTape {
		m.TotalMessages += n
	}
	if m.SessionsAsked <= m.Sessions { // every session asked started
		m.SessionsAsked = 0
	}
	m.Tape = strings.Join(tapes, ", ")
	m.Target = strings.Join(targets, ", ")
	if len(speeds) == 1 {
		if s := reports[0].Summary.Speed; s != nil {
			v := *s
			m.Speed = &v
		}
	} else {
		warnings = append(warnings, fmt.Sprintf("merged reports of different speeds (%s): the load section does not apply", strings.Join(speeds, ", ")))
	}
	if seedsAgree {
		m.Seed = reports[0].Chaos.Seed
	} else {
		warnings = append(warnings, "merged reports of different chaos seeds: chaos.seed is left out")
	}
	if len(tapes) > 1 {
		warnings = append(warnings, fmt.Sprintf("merged reports of %d different tapes", len(tapes)))
	}
	m.Warnings = warnings
	return m, nil
}

func sameSeed(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// mergedRunID is the run id the reports share, or a fresh one.
func mergedRunID(reports []*Report) string {
	id := reports[0].Summary.RunID
	for _, r := range reports[1:] {
		if r.Summary.RunID != id {
			return uuid.NewString()
		}
	}
	if id == "" {
		return uuid.NewString()
	}
	return id
}

// mergeTimelines appends the reports' timelines, in order, with their times
// counted from start, up to DefaultTimelineLimit entries; the omitted count
// adds the reports' own.
func mergeTimelines(reports []*Report, start time.Time) ([]TimelineEntry, int64) {
	out := []TimelineEntry{}
	var omitted int64
	for _, r := range reports {
		omitted += r.TimelineOmitted
		shift := 0.0
		if !r.Summary.StartedAt.IsZero() && !start.IsZero() {
			shift = durToMS(r.Summary.StartedAt.Sub(start))
		}
		for _, e := range r.Timeline {
			if len(out) >= DefaultTimelineLimit {
				omitted++
				continue
			}
			e.DueMS, e.SentMS, e.AnsweredMS = shifted(e.DueMS, shift), shifted(e.SentMS, shift), shifted(e.AnsweredMS, shift)
			out = append(out, e)
		}
	}
	return out, omitted
}

// shifted is ms plus shift, rounded to the microsecond; nil stays nil.
func shifted(ms *float64, shift float64) *float64 {
	if ms == nil {
		return nil
	}
	v := math.Round((*ms+shift)*1000) / 1000
	return &v
}

// mergedThresholds are the thresholds the reports carry, each expression
// once, then extra.
func mergedThresholds(reports []*Report, extra []Threshold) ([]Threshold, error) {
	var ts []Threshold
	seen := map[string]bool{}
	add := func(t Threshold) {
		if !seen[t.Expr] {
			seen[t.Expr] = true
			ts = append(ts, t)
		}
	}
	for i, r := range reports {
		for j, res := range r.Thresholds {
			t, err := ParseThreshold(res.Expr)
			if err != nil {
				return nil, errorf(ErrBadReport, "%s: thresholds[%d].expr: %w", r.name(i), j, err)
			}
			add(t)
		}
	}
	for _, t := range extra {
		add(t)
	}
	return ts, nil
}

// speedText is a report's speed as written, "" when not known.
func speedText(s *scheduler.Speed) string {
	if s == nil {
		return ""
	}
	return s.String()
}
