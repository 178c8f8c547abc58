package engine

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/tape"
)

// Shard is a deterministic share of a replay: of its sessions (virtual
// copies included) in the order they first appear, the k-th goes to shard
// k mod Count. Any Count gives each shard a fair part (they differ by at
// most one session), and the shards 0..Count-1 together replay exactly the
// sessions of the whole run, under the same names, ids and chaos faults
// (a fault is decided by the session's name and the message's seq, which
// sharding does not change). The zero Shard is the whole run.
type Shard struct {
	Index int // from 0
	Count int // 0: not sharded
}

// Sharded reports whether s names a shard (Count 1 included).
func (s Shard) Sharded() bool { return s.Count > 0 }

// Validate checks that Index is in 0..Count-1.
func (s Shard) Validate() error {
	if s.Count < 0 || (s.Count > 0 && (s.Index < 0 || s.Index >= s.Count)) || (s.Count == 0 && s.Index != 0) {
		return fmt.Errorf("engine: shard %d/%d: want an index from 0 to count-1, e.g. 0/4 … 3/4", s.Index, s.Count)
	}
	return nil
}

// String is the shard as the command line takes it: "2/4".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Pace is the speed a shard paces its own messages at: the speeds that
// pace by count divide their rate by Count, so that the shards' rates add
// up to the run's (fixed:D becomes fixed:D×Count, rps:N becomes
// rps:N/Count). Speeds that pace by recorded time are kept: each session
// keeps its own schedule wherever it runs.
func (s Shard) Pace(sp scheduler.Speed) scheduler.Speed {
	if s.Count <= 1 {
		return sp
	}
	switch sp.Mode {
	case scheduler.Fixed:
		sp.Interval *= time.Duration(s.Count)
	case scheduler.Rate:
		sp.RPS /= float64(s.Count)
	}
	return sp
}

// sharded reads every message of a source and gives those of the
// shard's sessions. It is read by the loader only.
type sharded struct {
	src   source
	shard Shard
	order map[string]int // session → its place among the run's sessions
	read  int64          // messages read, of every shard
	mine  int            // sessions of this shard seen
	// first is the recorded time of the run's first message, read by the
	// router (firstTUS); firstSet says it has been read.
	first    atomic.Int64
	firstSet atomic.Bool
}

// firstTUS is the recorded time of the run's first message, of whichever
// shard, once read.
func (s *sharded) firstTUS() (int64, bool) {
	if !s.firstSet.Load() {
		return 0, false
	}
	return s.first.Load(), true
}

func newSharded(src source, s Shard) *sharded {
	return &sharded{src: src, shard: s, order: make(map[string]int)}
}

func (s *sharded) Next() (tape.Message, error) {
	for {
		m, err := s.src.Next()
		if err != nil {
			return m, err
		}
		s.read++
		if !s.firstSet.Load() {
			s.first.Store(m.TUS)
			s.firstSet.Store(true)
		}
		k, ok := s.order[m.Session]
		if !ok {
			k = len(s.order)
			s.order[m.Session] = k
			if k%s.shard.Count == s.shard.Index {
				s.mine++
			}
		}
		if k%s.shard.Count == s.shard.Index {
			return m, nil
		}
	}
}

// SeekSeq is not possible in a shard: a controlled replay is not sharded.
func (s *sharded) SeekSeq(int64) error {
	return errors.New("seek is not supported in a shard")
}

// shardMeta is the report's record of the shard, and a note when it had
// nothing to do or was stopped before it came to a session of its own;
// nil when the run is not sharded. stopped says the run was cut short,
// beforeStart that it was so before the common start (interrupted while
// it waited for it): nothing was replayed then, whatever the shard had
// read. A shard cut short has not read the tape to its end — its reader
// may end early — so it does not know it had no session, and is not
// empty.
func (s *sharded) shardMeta(stopped, beforeStart bool) (*report.Shard, string) {
	if s == nil {
		return nil, ""
	}
	r := &report.Shard{Index: s.shard.Index, Count: s.shard.Count}
	switch {
	case beforeStart:
		return r, fmt.Sprintf("shard %s was stopped before its start: it replayed none of its sessions", s.shard)
	case s.mine > 0:
		return r, ""
	case stopped:
		return r, fmt.Sprintf("shard %s was stopped before it came to a session of its own (after %d of the run's sessions)", s.shard, len(s.order))
	}
	r.Empty = true
	return r, fmt.Sprintf("shard %s has no session to replay: the run has %d session(s) and %d shards; nothing to do", s.shard, len(s.order), s.shard.Count)
}
