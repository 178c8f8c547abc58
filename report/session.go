package report

import (
	"slices"
	"strings"
)

// DefaultSessionLimit bounds the sessions broken down in a report; the
// rest are counted in sessions_omitted (totals stay exact).
const DefaultSessionLimit = 1000

// WithSessionLimit breaks at most n sessions down in per_session (default
// DefaultSessionLimit); the rest are counted in sessions_omitted. n <= 0
// breaks none down: for a report of totals only, such as the interval
// reports a coordinated shard streams.
func WithSessionLimit(n int) Option { return func(c *Collector) { c.sessionLimit = max(n, 0) } }

// SessionSummary is one session's line of the report's per_session list.
type SessionSummary struct {
	Session      string  `json:"session"`
	Sent         int64   `json:"sent"`
	Received     int64   `json:"received"`
	Passed       int64   `json:"passed"`
	Failed       int64   `json:"failed"`
	Errors       int64   `json:"errors"`
	Timeouts     int64   `json:"timeouts"`
	LatencyAvgMS float64 `json:"latency_avg_ms"`
	LatencyMaxMS float64 `json:"latency_max_ms"`
	// LatencyCount is the number of latencies LatencyAvgMS averages.
	LatencyCount int64 `json:"latency_count"`
}

// sessionStats is what the collector keeps per session: counts and the
// latency sum and maximum, not a histogram (a load replay may have
// thousands of sessions; the merged histograms are in the totals).
type sessionStats struct {
	SessionSummary
	latencySumUS, latencyN int64
}

func (c *Collector) addSession(r *Result, sent, answered bool) {
	s, ok := c.sessions[r.Session]
	if !ok {
		if len(c.sessions) >= c.sessionLimit {
			c.sessionsOmitted[r.Session] = struct{}{}
			return
		}
		s = &sessionStats{SessionSummary: SessionSummary{Session: r.Session}}
		c.sessions[r.Session] = s
	}
	if sent {
		s.Sent++
	}
	if answered {
		s.Received++
		if r.Kind == KindRequest && r.Verdict != Timeout && !r.Sent.IsZero() {
			us := r.Answered.Sub(r.Sent).Microseconds()
			s.latencySumUS += us
			s.latencyN++
			s.LatencyMaxMS = max(s.LatencyMaxMS, float64(us)/1000)
		}
	}
	switch r.Verdict {
	case Passed, Warned:
		s.Passed++
	case Failed:
		s.Failed++
	case Error:
		s.Errors++
	case Timeout:
		s.Timeouts++
	}
}

func (c *Collector) mergeSessions(o *Collector) {
	for name, os := range o.sessions {
		s, ok := c.sessions[name]
		if !ok {
			if len(c.sessions) >= c.sessionLimit {
				c.sessionsOmitted[name] = struct{}{}
				continue
			}
			cp := *os
			c.sessions[name] = &cp
			continue
		}
		s.Sent += os.Sent
		s.Received += os.Received
		s.Passed += os.Passed
		s.Failed += os.Failed
		s.Errors += os.Errors
		s.Timeouts += os.Timeouts
		s.latencySumUS += os.latencySumUS
		s.latencyN += os.latencyN
		s.LatencyMaxMS = max(s.LatencyMaxMS, os.LatencyMaxMS)
	}
	for name := range o.sessionsOmitted {
		if _, ok := c.sessions[name]; !ok {
			c.sessionsOmitted[name] = struct{}{}
		}
	}
}

// perSession lists the sessions by name, "s2" before "s10".
func (c *Collector) perSession() []SessionSummary {
	out := make([]SessionSummary, 0, len(c.sessions))
	for _, s := range c.sessions {
		sum := s.SessionSummary
		sum.LatencyCount = s.latencyN
		if s.latencyN > 0 {
			sum.LatencyAvgMS = float64(s.latencySumUS) / float64(s.latencyN) / 1000
		}
		out = append(out, sum)
	}
	slices.SortFunc(out, func(a, b SessionSummary) int { return naturalCompare(a.Session, b.Session) })
	return out
}

// naturalCompare orders strings with their digit runs compared as numbers.
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) - len(nb)
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
