package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/replayctl/replayctl/internal/english"
)

// Coordination is the report's "coordination" section: how the shards of
// a run a coordinator started together (replayctl coordinate) began and
// ended. It is nil for a run without a coordinator.
type Coordination struct {
	// Start is the common start every shard anchored its clock to.
	Start time.Time `json:"start"`
	// Shards lists every shard of the run, by index.
	Shards []CoordinatedShard `json:"shards"`
	// SkewMS is the measured start skew: the latest shard's first
	// request after the earliest one's, in milliseconds; nil when fewer
	// than two shards sent one.
	SkewMS *float64 `json:"skew_ms"`
	// Dead names the shards lost during the run ("shard 2/4: no
	// heartbeat for 10s"); their sessions are not in the report.
	Dead []string `json:"dead,omitempty"`
	// Stopped says why the coordinator stopped every shard (a threshold
	// failed on the merged data, with --abort-on-fail), "" when it did
	// not.
	Stopped string `json:"stopped,omitempty"`
}

// CoordinatedShard is one shard of a coordinated run.
type CoordinatedShard struct {
	Index int `json:"index"`
	// State is how the shard ended: "done" (its report is merged),
	// "dead" (lost: its sessions are not in the report) or "missing"
	// (it never registered).
	State string `json:"state"`
	// Attempts counts the processes that registered for the index (a
	// retried pod is a second attempt).
	Attempts int `json:"attempts"`
	// FirstSentMS is when the shard sent its first request, in
	// milliseconds after the common start (negative: before it); nil
	// when it sent none.
	FirstSentMS *float64 `json:"first_sent_ms"`
	// Intervals and IntervalBytes count the interval reports the shard
	// streamed, and their bytes on the wire.
	Intervals     int   `json:"intervals"`
	IntervalBytes int64 `json:"interval_bytes"`
}

// Skew computes SkewMS from the shards' first requests.
func (c *Coordination) Skew() {
	var lo, hi float64
	n := 0
	for _, s := range c.Shards {
		if s.FirstSentMS == nil {
			continue
		}
		v := *s.FirstSentMS
		if n == 0 || v < lo {
			lo = v
		}
		if n == 0 || v > hi {
			hi = v
		}
		n++
	}
	c.SkewMS = nil
	if n >= 2 {
		d := hi - lo
		c.SkewMS = &d
	}
}

// text is the section's line of the text summary: "coordinated: 4
// shards, first requests 0.3 to 1.9ms after the common start (skew
// 1.6ms)", then the dead shards and why every shard was stopped.
func (c *Coordination) text() string {
	var lo, hi float64
	n := 0
	for _, s := range c.Shards {
		if s.FirstSentMS == nil {
			continue
		}
		if v := *s.FirstSentMS; n == 0 || v < lo {
			lo = v
		}
		if v := *s.FirstSentMS; n == 0 || v > hi {
			hi = v
		}
		n++
	}
	line := fmt.Sprintf("Coordinated: %s", english.Count(int64(len(c.Shards)), "shard"))
	if n > 0 {
		line += fmt.Sprintf(", first requests %s to %s after the common start", FormatMS(lo), FormatMS(hi))
	}
	if c.SkewMS != nil {
		line += fmt.Sprintf(" (start skew %s)", FormatMS(*c.SkewMS))
	}
	if len(c.Dead) > 0 {
		line += "; lost: " + strings.Join(c.Dead, "; ")
	}
	if c.Stopped != "" {
		line += "; stopped every shard: " + c.Stopped
	}
	return clean(line) + "\n"
}

// MergeReport adds what r counts to c, as [Collector.Merge] adds another
// collector: r's histograms section, counts, detailed lists and
// breakdowns. It is how a coordinator sums the interval reports its
// shards stream. It returns an error wrapping [ErrBadReport] for a report
// it cannot merge (no histograms section, another version, a corrupt
// histogram), and changes nothing then.
func (c *Collector) MergeReport(r *Report) error {
	if r == nil {
		return errorf(ErrBadReport, "the report is nil")
	}
	o, err := r.collector()
	if err != nil {
		return err
	}
	return c.Merge(o)
}
