package report

import "time"

// Figures are the durations the report counts of one result: its schedule
// lag and held time (HasLag, HasHeld: a client message sent) and its
// latency (HasLatency: a request answered, not timed out). The collector
// counts these; the event stream carries them.
type Figures struct {
	Lag, Held, Latency          time.Duration
	HasLag, HasHeld, HasLatency bool
}

// Figures are the durations of r the collector adds to its histograms.
func (r *Result) Figures() Figures { return r.figures() }

// figures is Figures without a copy of r (320 bytes) per call: the
// collector's, for every result.
func (r *Result) figures() Figures {
	var f Figures
	if r.Sent.IsZero() || r.Dir == DirS2C {
		return f
	}
	f.HasLag, f.Lag = true, r.Lag
	if f.Lag == 0 && !r.Due.IsZero() {
		f.Lag = r.Sent.Sub(r.Due)
		if r.Held > 0 {
			f.Lag = max(f.Lag-r.Held, 0)
		}
	}
	f.HasHeld, f.Held = !r.Due.IsZero(), r.Held
	if r.Kind == KindRequest && !r.Answered.IsZero() && r.Verdict != Timeout {
		f.HasLatency, f.Latency = true, r.Answered.Sub(r.Sent)
	}
	return f
}

// DurationStats summarises durations as a report does (the same
// histogram): e.g. to recompute a report's figures from an event stream.
func DurationStats(ds []time.Duration) Stats {
	h := newHist()
	for _, d := range ds {
		h.record(d)
	}
	return h.stats()
}
