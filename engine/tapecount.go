package engine

import (
	"errors"
	"io"
	"time"

	"github.com/replayctl/replayctl/tape"
)

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
