package ui

import (
	"sync"
)

// journal keeps the feed: the events encoded since the last frame
// (pending) and the sealed frames, oldest first, at most max events in
// all. One mutex guards it: the stream's goroutine adds, the ticker
// seals, the viewers read.
type journal struct {
	mu      sync.Mutex // guards everything below
	max     int
	pending []byte // encoded events, comma-separated
	npend   int
	names   []string       // the name table: sessions, methods, tools, reasons, verdicts
	index   map[string]int // its index
	fresh   int            // names[fresh:] are not in a sealed frame yet
	frames  []frame
	kept    int   // events in frames
	next    int64 // the next frame's id (from 1)
	dropped int64 // events of frames dropped for the bound
	events  int64 // events added in all
}

// frame is one SSE message of the feed: its id and its data line.
type frame struct {
	id   int64
	n    int
	data []byte
}

func newJournal(max int) *journal {
	return &journal{max: max, index: map[string]int{}, next: 1}
}

// add encodes batch into the pending frame.
func (j *journal) add(batch []eventT) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for i := range batch {
		if j.npend > 0 {
			j.pending = append(j.pending, ',')
		}
		j.pending = j.encode(j.pending, &batch[i])
		j.npend++
	}
	j.events += int64(len(batch))
}

// addGroup adds a group event to the pending frame: session's message seq
// belongs to group id, of kind (see feed.go).
func (j *journal) addGroup(session string, seq int64, id int, kind string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.npend > 0 {
		j.pending = append(j.pending, ',')
	}
	j.pending = append(j.pending, `["G",0,`...)
	j.pending = appendInt(j.pending, int64(j.name(session)))
	j.pending = append(j.pending, ',')
	j.pending = appendInt(j.pending, seq)
	j.pending = append(j.pending, ',')
	j.pending = appendInt(j.pending, int64(id))
	j.pending = j.appendName(j.pending, kind)
	j.pending = append(j.pending, ']')
	j.npend++
	j.events++
}

// name is s's index in the name table, added when new; -1 for "".
// j.mu is held.
func (j *journal) name(s string) int {
	if s == "" {
		return -1
	}
	if i, ok := j.index[s]; ok {
		return i
	}
	j.names = append(j.names, s)
	j.index[s] = len(j.names) - 1
	return len(j.names) - 1
}

// seal makes the pending events a frame, drops the oldest frames past the
// bound, and reports whether there was anything to seal.
func (j *journal) seal() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.npend == 0 {
		return false
	}
	data := make([]byte, 0, len(j.pending)+64)
	data = append(data, `{"id":`...)
	data = appendInt(data, j.next)
	data = append(data, `,"base":`...)
	data = appendInt(data, int64(j.fresh))
	data = append(data, `,"names":`...)
	data = appendStrings(data, j.names[j.fresh:])
	data = append(data, `,"ev":[`...)
	data = append(data, j.pending...)
	data = append(data, "]}"...)
	j.frames = append(j.frames, frame{id: j.next, n: j.npend, data: data})
	j.kept += j.npend
	j.next++
	j.fresh = len(j.names)
	j.pending, j.npend = j.pending[:0], 0
	for j.kept > j.max && len(j.frames) > 1 {
		j.kept -= j.frames[0].n
		j.dropped += int64(j.frames[0].n)
		j.frames[0] = frame{}
		j.frames = j.frames[1:]
	}
	return true
}

// after returns the frames after id (0: from the start), the name table
// sealed so far, and how many events before the first frame returned
// were dropped and will not be seen (0 when id is within the journal).
func (j *journal) after(id int64) (fs []frame, names []string, lost int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	names = j.names[:j.fresh:j.fresh]
	if len(j.frames) == 0 {
		return nil, names, 0
	}
	first := j.frames[0].id
	if id < first-1 {
		lost = j.dropped
		id = first - 1
	}
	k := int(id - first + 1)
	if k >= len(j.frames) {
		return nil, names, lost
	}
	return j.frames[k:len(j.frames):len(j.frames)], names, lost
}

// last is the id of the last sealed frame (0: none).
func (j *journal) last() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.next - 1
}
