package engine

import (
	"errors"
	"io"
	"time"

	"github.com/replayctl/replayctl/tape"
)

// tapeCounter is a target that may have counted the replayed tape: the
// built-in mock, once its read of the tape has ended (mock.Mock.TapeCount).
type tapeCounter interface {
	TapeCount(src tape.Source) (messages int64, sessions int, ok bool)
}

// tapeCount returns the count of the replayed tape's messages and
// recorded sessions for a run stopped early (r is what it replayed from,
// shard its shard or nil), from what has it already: the loader, when it
// met the tape's end (through the shard, which reads every message, when
// sharded); else the target that read the tape for the replay (taken),
// when its read met the tape's end. Only when neither has it is the tape
// read again (countTape, bounded by tapeCountFor). ok is false when the
// count cannot be had.
func (e *Engine) tapeCount(r replayed, shard *sharded) (messages int64, sessions int, ok bool) {
	copies := int64(max(e.cfg.Sessions, 1)) // the loader counts each copy of a session
	switch {
	case e.ctl != nil: // a seek sends the loader back: its counts are of what it read
	case e.counters.loadedAll.Load() && shard != nil:
		return shard.read / copies, len(shard.order) / int(copies), true
	case e.counters.loadedAll.Load():
		return e.counters.loaded.Load() / copies, int(e.counters.sessions.Load() / copies), true
	}
	if _, ok := r.(*taken); ok {
		if c, ok := e.cfg.Dialer.(tapeCounter); ok {
			if messages, sessions, ok := c.TapeCount(e.cfg.Source); ok {
				return messages, sessions, true
			}
		}
	}
	return e.countTape(tapeCountFor)
}

// tapeCountFor bounds countTape: a run stopped early reports the tape's
// figures only when they can be had about at once.
const tapeCountFor = 2 * time.Second

// countTape reads the replayed tape (its window and filters applied) once
// more, from a fresh reader, and counts its messages and recorded
// sessions: the figures of a run stopped before its loader read the
// tape through are of what it read, not of the tape. ok is false when
// the tape cannot be read again, or not within the time given
// (tapeCountFor).
func (e *Engine) countTape(within time.Duration) (messages int64, sessions int, ok bool) {
	r, err := tape.OpenSource(e.cfg.Source, e.cfg.TapeOptions...)
	if err != nil {
		return 0, 0, false
	}
	defer r.Close()
	deadline := time.Now().Add(within)
	seen := make(map[string]struct{})
	var since int // messages and bytes read since the clock was last read
	for {
		m, err := r.Next()
		if errors.Is(err, io.EOF) {
			return messages, len(seen), true
		}
		if err != nil {
			return 0, 0, false
		}
		messages++
		seen[m.Session] = struct{}{}
		// The clock is read every countCheckEvery messages or bytes,
		// whichever comes first: a thousand large messages (images, files)
		// take seconds to read.
		if since += 1 + len(m.Msg); since >= countCheckEvery {
			since = 0
			if time.Now().After(deadline) {
				return 0, 0, false
			}
		}
	}
}

// countCheckEvery is how much countTape reads between two readings of
// the clock: messages plus bytes.
const countCheckEvery = 64 << 10
