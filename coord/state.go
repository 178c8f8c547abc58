package coord

import (
	"fmt"
	"time"
)

// phase is where a shard is in the run.
type phase int

const (
	missing    phase = iota // never registered
	registered              // registered, waiting for the start or replaying
	done                    // its final report is in
	dead                    // lost: no heartbeat, or its process ended without a report
)

func (p phase) String() string {
	return [...]string{"missing", "registered", "done", "dead"}[p]
}

// shard is what the coordinator knows of one index.
type shard struct {
	phase     phase
	attempt   string // the process registered for the index
	attempts  int
	polls     int       // long polls open: the shard is there
	heard     time.Time // last call from it, or end of its last poll
	firstSent time.Time
	intervals int
	bytes     int64
	seq       int    // last interval counted
	why       string // dead: why
}

// admit is the rule for a registration of index i by attempt, given the
// shard's state and whether the run has started (the barrier was met).
// It returns what to tell the process and whether it takes the index:
//
//   - an index whose report is in: stop (it is done);
//   - the process registered for the index, calling again (it lost its
//     connection): resume, unless it was named lost meanwhile: stop;
//   - another process (a retried pod) before the start: run; it takes
//     the place of the earlier one, which never started replaying;
//   - another process after the start: stop. Replaying the share again
//     would send its sessions a second time, or off the common start;
//     the index stays with the earlier process, or is named lost.
func admit(s shard, attempt string, started bool, i, n int) (Action, string, bool) {
	switch {
	case s.phase == done:
		return Stop, fmt.Sprintf("shard %d/%d has already delivered its report", i, n), false
	case s.attempt == attempt && s.phase == dead:
		return Stop, fmt.Sprintf("shard %d/%d was named lost (%s); its sessions are not in the report", i, n, s.why), false
	case s.attempt == attempt:
		return Resume, "", false
	case !started:
		return Run, "", true
	}
	return Stop, fmt.Sprintf("shard %d/%d: the run started without this process; replaying the shard again would send its sessions twice or off the common start", i, n), false
}

// lost reports whether a registered shard is lost at now: it has no poll
// open and has not been heard of for longer than heartbeat.
func lost(s shard, now time.Time, heartbeat time.Duration) bool {
	return s.phase == registered && s.polls == 0 && now.Sub(s.heard) > heartbeat
}
