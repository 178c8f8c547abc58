package engine

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/tape"
)

// slice is a source over messages in memory.
type slice struct {
	msgs []tape.Message
	next int
}

func (s *slice) Next() (tape.Message, error) {
	if s.next == len(s.msgs) {
		return tape.Message{}, io.EOF
	}
	s.next++
	return s.msgs[s.next-1], nil
}

func (s *slice) SeekSeq(int64) error { return errors.New("no seek") }

// interleaved is sessions sessions of perSession messages each, the
// sessions' messages interleaved as a load replay's are.
func interleaved(sessions, perSession int) []tape.Message {
	var msgs []tape.Message
	seq := int64(0)
	for k := range perSession {
		for s := range sessions {
			seq++
			msgs = append(msgs, tape.Message{Seq: seq, Session: fmt.Sprintf("s1#%d", s+1), TUS: int64(k)})
		}
	}
	return msgs
}

// TestShardsPartitionTheRun: for any count, every message of the run goes
// to exactly one shard, each session whole to one shard, and the shards'
// session counts differ by at most one; an empty shard says so.
func TestShardsPartitionTheRun(t *testing.T) {
	all := interleaved(50, 3)
	for _, n := range []int{1, 2, 3, 4, 7, 50, 64} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			got := map[int64]int{}    // seq → times given
			owner := map[string]int{} // session → shard
			var least, most int
			for i := range n {
				sh := newSharded(&slice{msgs: all}, Shard{Index: i, Count: n})
				sessions := map[string]bool{}
				for {
					m, err := sh.Next()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					got[m.Seq]++
					if o, ok := owner[m.Session]; ok && o != i {
						t.Fatalf("session %s in shards %d and %d", m.Session, o, i)
					}
					owner[m.Session] = i
					sessions[m.Session] = true
				}
				if sh.read != int64(len(all)) {
					t.Errorf("shard %d read %d messages, want all %d", i, sh.read, len(all))
				}
				if i == 0 || len(sessions) < least {
					least = len(sessions)
				}
				most = max(most, len(sessions))
				meta, note := sh.shardMeta(false, false)
				if meta.Empty != (len(sessions) == 0) || (note != "") != meta.Empty {
					t.Errorf("shard %d/%d with %d sessions: empty %t, note %q", i, n, len(sessions), meta.Empty, note)
				}
			}
			for _, m := range all {
				if got[m.Seq] != 1 {
					t.Fatalf("seq %d given %d times, want once", m.Seq, got[m.Seq])
				}
			}
			if most-least > 1 {
				t.Errorf("shards hold %d to %d sessions, want at most one apart", least, most)
			}
		})
	}
}

// TestShardMetaStopped: a shard cut short is never empty — it did not
// read the tape to its end — and its note says it was stopped: before
// its start (whatever it had read), or before it came to a session of
// its own. Only a shard that read the whole tape and found none of its
// sessions is empty.
func TestShardMetaStopped(t *testing.T) {
	all := interleaved(4, 2) // s1#1 … s1#4; shard 1/2 holds s1#2 and s1#4
	for _, tc := range []struct {
		name                 string
		read                 int // messages of the tape read (all: to its end)
		index, count         int
		stopped, beforeStart bool
		empty                bool
		note                 string // in the note; "" for none
	}{
		{"before the start, nothing read", 0, 1, 2, true, true, false, "shard 1/2 was stopped before its start: it replayed none of its sessions"},
		{"before the start, its sessions read", len(all), 1, 2, true, true, false, "shard 1/2 was stopped before its start"},
		{"cut short before its sessions", 1, 1, 2, true, false, false, "shard 1/2 was stopped before it came to a session of its own (after 1 of the run's sessions)"},
		{"cut short in its sessions", 3, 1, 2, true, false, false, ""},
		{"whole run, its sessions", len(all), 1, 2, false, false, false, ""},
		{"whole run, no session of its own", len(all), 4, 5, false, false, true, "shard 4/5 has no session to replay"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The source ends where the shard stopped reading.
			sh := newSharded(&slice{msgs: all[:tc.read]}, Shard{Index: tc.index, Count: tc.count})
			for {
				if _, err := sh.Next(); err != nil {
					break
				}
			}
			meta, note := sh.shardMeta(tc.stopped, tc.beforeStart)
			if meta.Empty != tc.empty {
				t.Errorf("empty: got %t, want %t", meta.Empty, tc.empty)
			}
			if (tc.note == "") != (note == "") || !strings.Contains(note, tc.note) {
				t.Errorf("note: got %q, want %q", note, tc.note)
			}
		})
	}
}

// TestShardPace: the speeds that pace by count divide their rate so that
// the shards' rates add up to the run's; the others are kept.
func TestShardPace(t *testing.T) {
	for _, tc := range []struct {
		speed scheduler.Speed
		n     int
		want  scheduler.Speed
	}{
		{scheduler.Speed{Mode: scheduler.Rate, RPS: 1000}, 4, scheduler.Speed{Mode: scheduler.Rate, RPS: 250}},
		{scheduler.Speed{Mode: scheduler.Rate, RPS: 10}, 3, scheduler.Speed{Mode: scheduler.Rate, RPS: 10.0 / 3}},
		{scheduler.Speed{Mode: scheduler.Fixed, Interval: 10 * time.Millisecond}, 7, scheduler.Speed{Mode: scheduler.Fixed, Interval: 70 * time.Millisecond}},
		{scheduler.Speed{Mode: scheduler.Rate, RPS: 500}, 1, scheduler.Speed{Mode: scheduler.Rate, RPS: 500}},
		{scheduler.Speed{Mode: scheduler.Scaled, Factor: 10}, 4, scheduler.Speed{Mode: scheduler.Scaled, Factor: 10}},
		{scheduler.Speed{Mode: scheduler.Fast}, 4, scheduler.Speed{Mode: scheduler.Fast}},
	} {
		if got := (Shard{Count: tc.n}).Pace(tc.speed); got != tc.want {
			t.Errorf("Pace(%s) of %d shards = %s, want %s", tc.speed, tc.n, got, tc.want)
		}
	}
	var sum float64
	for i := range 3 {
		sum += Shard{Index: i, Count: 3}.Pace(scheduler.Speed{Mode: scheduler.Rate, RPS: 10}).RPS
	}
	if sum < 10-1e-9 || sum > 10+1e-9 {
		t.Errorf("3 shards of rps:10 add up to %v/s, want 10/s", sum)
	}
}

// TestShardValidate refuses an index outside 0..count-1.
func TestShardValidate(t *testing.T) {
	for _, tc := range []struct {
		s  Shard
		ok bool
	}{
		{Shard{}, true}, {Shard{0, 1}, true}, {Shard{3, 4}, true},
		{Shard{4, 4}, false}, {Shard{-1, 4}, false}, {Shard{1, 0}, false}, {Shard{0, -2}, false},
	} {
		if err := tc.s.Validate(); (err == nil) != tc.ok {
			t.Errorf("Shard%+v.Validate() = %v, want ok %t", tc.s, err, tc.ok)
		}
	}
}
