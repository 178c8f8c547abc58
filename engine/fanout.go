package engine

import (
	"container/heap"
	"errors"
	"io"
	"strconv"
	"time"

	"github.com/replayctl/replayctl/tape"
)

// source is what the loader reads: one tape, or several virtual copies of
// it (fanout).
type source interface {
	Next() (tape.Message, error)
	SeekSeq(seq int64) error
}

// fanout reads a tape once and gives each message once per virtual copy
// of its session: copy k of session s is named "s#k" (k from 1) and starts
// (k-1)·ramp/n later. Messages come out in due order across copies. It
// keeps only the window of the tape between the slowest and the fastest
// copy: about ramp's worth of messages, one message when ramp is 0.
type fanout struct {
	r       source
	n       int
	shiftUS []int64
	window  []tape.Message // window[0] is the tape's message number base
	at      []int          // at[i]: how many copies have window[i] next
	base    int            // how many messages were dropped before window[0]
	eof     bool
	started bool
	cursors copies // per copy: the next message index, ordered by due time
	names   map[string][]string
	// looked counts what trim looked at, over the whole read: a
	// message's cost at many copies, as a count (tests).
	looked int
}

func newFanout(r source, n int, ramp time.Duration) *fanout {
	f := &fanout{r: r, n: n, shiftUS: make([]int64, n), names: make(map[string][]string)}
	for k := range n {
		f.shiftUS[k] = ramp.Microseconds() * int64(k) / int64(n)
		f.cursors = append(f.cursors, &cursor{k: k})
	}
	return f
}

type cursor struct {
	k    int
	next int   // absolute index of the copy's next message
	due  int64 // its t_us plus the copy's shift; valid once loaded
}

// copies is a min-heap of cursors by due time, then copy number.
type copies []*cursor

func (c copies) Len() int { return len(c) }
func (c copies) Less(i, j int) bool {
	if c[i].due != c[j].due {
		return c[i].due < c[j].due
	}
	return c[i].k < c[j].k
}
func (c copies) Swap(i, j int) { c[i], c[j] = c[j], c[i] }
func (c *copies) Push(x any)   { *c = append(*c, x.(*cursor)) }
func (c *copies) Pop() any {
	old := *c
	x := old[len(old)-1]
	*c = old[:len(old)-1]
	return x
}

// load makes sure message index i is in the window; false at the end.
func (f *fanout) load(i int) (bool, error) {
	for !f.eof && i >= f.base+len(f.window) {
		m, err := f.r.Next()
		if errors.Is(err, io.EOF) {
			f.eof = true
			break
		}
		if err != nil {
			return false, err
		}
		f.window = append(f.window, m)
		f.at = append(f.at, 0)
	}
	return i < f.base+len(f.window), nil
}

func (f *fanout) Next() (tape.Message, error) {
	if !f.started {
		f.started = true
		if err := f.start(); err != nil {
			return tape.Message{}, err
		}
	}
	if len(f.cursors) == 0 {
		return tape.Message{}, io.EOF
	}
	c := f.cursors[0]
	m := f.window[c.next-f.base]
	m.Session = f.name(m.Session, c.k)
	m.TUS += f.shiftUS[c.k]
	f.at[c.next-f.base]--
	c.next++
	ok, err := f.load(c.next)
	if err != nil {
		return tape.Message{}, err
	}
	if ok {
		f.at[c.next-f.base]++
		c.due = f.window[c.next-f.base].TUS + f.shiftUS[c.k]
		heap.Fix(&f.cursors, 0)
	} else {
		heap.Pop(&f.cursors)
	}
	f.trim()
	return m, nil
}

// start places every copy at the tape's first message.
func (f *fanout) start() error {
	ok, err := f.load(0)
	if err != nil || !ok {
		f.cursors = nil
		return err
	}
	for _, c := range f.cursors {
		c.due = f.window[0].TUS + f.shiftUS[c.k]
	}
	f.at[0] = len(f.cursors)
	heap.Init(&f.cursors)
	return nil
}

// trim drops the messages every copy has passed: those before the first
// one some copy has next. It looks at the counts, not at every copy, so a
// message costs the same at any number of copies.
func (f *fanout) trim() {
	drop := 0
	for drop < len(f.at) && f.at[drop] == 0 {
		drop++
	}
	f.looked += drop + 1
	if drop > 0 {
		clear(f.window[:drop])
		f.window = f.window[drop:]
		f.at = f.at[drop:]
		f.base += drop
	}
}

// name is the virtual session name of copy k, made once.
func (f *fanout) name(session string, k int) string {
	names, ok := f.names[session]
	if !ok {
		names = make([]string, f.n)
		for i := range names {
			names[i] = session + "#" + strconv.Itoa(i+1)
		}
		f.names[session] = names
	}
	return names[k]
}

// SeekSeq is not possible across virtual copies.
func (f *fanout) SeekSeq(int64) error {
	return errors.New("seek is not supported with several virtual sessions")
}
