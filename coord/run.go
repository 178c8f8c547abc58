package coord

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/replayctl/replayctl/report"
)

// ErrNoReport is returned by [Server.Run] when no shard delivered a
// report: there is nothing to merge.
var ErrNoReport = errors.New("coord: no shard delivered a report")

// endOnly are the metrics judged at the end only: a rate or a duration of
// the whole run means nothing for its first seconds.
var endOnly = map[string]bool{
	"throughput": true, "duration": true, "load_delivered": true,
	"achieved_rate": true, "intended_rate": true, "achieved_ratio": true,
}

// judgeLive judges the thresholds on the merged interval reports and
// returns why every shard must stop ("" when none fails). Metrics of the
// whole run (endOnly) and those with no data yet wait for the end. Call
// with mu held.
func (s *Server) judgeLive() string {
	var ts []report.Threshold
	for _, t := range s.allThresholds() {
		if !endOnly[t.Metric] {
			ts = append(ts, t)
		}
	}
	if len(ts) == 0 || s.live == nil {
		return ""
	}
	rep := s.live.Report(report.Meta{})
	for _, res := range rep.Evaluate(ts) {
		if !res.Passed && res.Actual != nil {
			return fmt.Sprintf("threshold %s failed on the merged data of the shards (%s) with --abort-on-fail", res.Expr, res.Value)
		}
	}
	return ""
}

// Run watches the run until every shard has delivered its report or been
// named lost, then returns the merged report (report.Merge, thresholds
// judged on the merged data) with its coordination section. It names lost
// a shard unheard of for the heartbeat, and fails the run when not every
// shard registers within the register timeout. ctx ends the wait: Run
// then returns what it has. It returns [ErrNoReport] when no shard
// delivered one.
func (s *Server) Run(ctx context.Context) (*report.Report, error) {
	tick := time.NewTicker(max(s.heartbeat/8, 10*time.Millisecond))
	defer tick.Stop()
	registerBy := time.NewTimer(s.registerTimeout)
	defer registerBy.Stop()
	for {
		s.mu.Lock()
		over := s.over()
		changed := s.changed
		s.mu.Unlock()
		if over {
			break
		}
		select {
		case <-changed:
		case now := <-tick.C:
			s.mu.Lock()
			for i, sh := range s.shards {
				switch {
				case !lost(sh, now, s.heartbeat):
				case s.start.IsZero():
					// Lost before the start: the index is free again
					// for a retried process; the barrier waits for it.
					s.shards[i].phase, s.shards[i].attempt = missing, ""
					s.log.Warn().Int("shard", i).Msg("coordinator: a registered shard was lost before the start; waiting for a new process")
				default:
					s.markDead(i, fmt.Sprintf("no heartbeat for %s: its process or its connection was lost", s.heartbeat))
				}
			}
			s.mu.Unlock()
		case <-registerBy.C:
			s.mu.Lock()
			if s.start.IsZero() {
				var miss []string
				for i, sh := range s.shards {
					if sh.phase == missing {
						miss = append(miss, fmt.Sprintf("%d/%d", i, s.count))
					}
				}
				s.stopAll(fmt.Sprintf("shards %s did not register within %s (--register-timeout)", strings.Join(miss, ", "), s.registerTimeout), report.StopFailure)
			}
			s.mu.Unlock()
		case <-ctx.Done():
			s.mu.Lock()
			for i := range s.shards {
				s.markDead(i, "the coordinator stopped waiting for it")
			}
			s.mu.Unlock()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.merged()
}

// over reports whether the run has ended: every shard is done or lost,
// or the run was stopped before it started. Call with mu held.
func (s *Server) over() bool {
	if s.start.IsZero() && s.stopped != "" {
		return true
	}
	for _, sh := range s.shards {
		if sh.phase == registered || sh.phase == missing {
			return false
		}
	}
	return true
}

// merged is the run's report; call with mu held once the run is over.
func (s *Server) merged() (*report.Report, error) {
	var finals []*report.Report
	for i := range s.count {
		if r := s.finals[i]; r != nil {
			finals = append(finals, r)
		}
	}
	var lostOnes []string
	for i, sh := range s.shards {
		switch sh.phase {
		case dead:
			lostOnes = append(lostOnes, fmt.Sprintf("shard %d/%d %s", i, s.count, sh.why))
		case missing:
			lostOnes = append(lostOnes, fmt.Sprintf("shard %d/%d never registered", i, s.count))
		}
	}
	if len(finals) == 0 {
		why := strings.Join(lostOnes, "; ")
		if s.stopped != "" {
			why = s.stopped
		}
		return nil, fmt.Errorf("%w: %s", ErrNoReport, why)
	}
	rep, err := report.Merge(finals, report.MergeThresholds(s.thresholds...))
	if err != nil {
		return nil, fmt.Errorf("coord: merge the shards' reports: %w", err)
	}
	if len(lostOnes) > 0 {
		rep.Abort(strings.Join(lostOnes, "; ") + ": its sessions are not in this report")
	}
	c := &report.Coordination{Start: s.start, Stopped: s.stopped, Dead: lostOnes}
	for i, sh := range s.shards {
		cs := report.CoordinatedShard{Index: i, State: sh.phase.String(), Attempts: sh.attempts, Intervals: sh.intervals, IntervalBytes: sh.bytes}
		if !sh.firstSent.IsZero() && !s.start.IsZero() {
			ms := float64(sh.firstSent.Sub(s.start).Microseconds()) / 1000
			cs.FirstSentMS = &ms
		}
		c.Shards = append(c.Shards, cs)
	}
	c.Skew()
	rep.Coordination = c
	return rep, nil
}

// Final is the report shard i delivered, nil when it delivered none; call
// after Run.
func (s *Server) Final(i int) *report.Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.finals[i]
}

// Live is the merged report of the interval reports received so far
// (without the final reports' details), nil before the first.
func (s *Server) Live() *report.Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live == nil {
		return nil
	}
	r := s.live.Report(report.Meta{})
	r.ApplyThresholds(s.allThresholds())
	return &r
}

// indexes lists i of s's shards in phase p, for tests.
func (s *Server) indexes(p phase) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []int
	for i, sh := range s.shards {
		if sh.phase == p {
			out = append(out, i)
		}
	}
	return slices.Clip(out)
}
