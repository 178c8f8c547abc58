package mock

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/replayctl/replayctl/tape"
)

// growLines is a tape of n requests and their answers, in sessions
// (one after the other when sequential, else taking turns).
func growLines(n int, sessions []string, sequential bool) []line {
	var lines []line
	for i := range n {
		s := sessions[i%len(sessions)]
		if sequential {
			s = sessions[i*len(sessions)/n]
		}
		lines = append(lines,
			line{s, tape.C2S, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"n":%d}}`, i, i)},
			line{s, tape.S2C, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"n":%d}}`, i, i)})
	}
	return lines
}

// TestEntriesGrowToTheEstimate: a builder that knows how much of the
// tape is read grows a session's entries to about their final count: a
// tape of one session ends within 5% of its entries, and the index
// keeps them without a copy; on the way it allocates no more than
// doubling did (2.3 times its entries, then a copy at the end).
func TestEntriesGrowToTheEstimate(t *testing.T) {
	const n = 50_000
	lines := growLines(n, []string{"s1"}, false)
	i := 0
	b := &builder{lazy: true, read: func() float64 { return float64(i) / float64(len(lines)) }}
	allocated, last := 0, 0
	for ; i < len(lines); i++ {
		l := lines[i]
		b.add(tape.Message{Seq: int64(i), Session: l.session, Dir: l.dir, Msg: []byte(l.msg)})
		if c := cap(b.sessions["s1"].entries); c != last {
			allocated, last = allocated+c, c
		}
	}
	if allocated > n*5/2 {
		t.Errorf("the entries grew through %d allocated for %d (want at most 2.5 times)", allocated, n)
	}
	if c := cap(b.sessions["s1"].entries); c > n+n/20+1 {
		t.Errorf("the entries' capacity at the end is %d for %d (want within 5%%)", c, n)
	}
	got := b.index()
	if es := got.sessions["s1"]; len(es) != n || &es[0] != &b.sessions["s1"].entries[0] {
		t.Errorf("the index has %d entries, copied (%v): want the builder's %d", len(es), &es[0] != &b.sessions["s1"].entries[0], n)
	}
}

// TestEntriesGrowWhateverTheEstimate: the index is the same whatever
// the builder is told of how much of the tape is read (right, too low,
// too high, nothing), for one session, sessions taking turns and
// sessions one after the other.
func TestEntriesGrowWhateverTheEstimate(t *testing.T) {
	for _, tc := range []struct {
		name       string
		sessions   []string
		sequential bool
	}{
		{"one", []string{"s1"}, false},
		{"turns", []string{"s1", "s2", "s3"}, false},
		{"sequential", []string{"s1", "s2", "s3", "s4"}, true},
	} {
		lines := growLines(12_000, tc.sessions, tc.sequential)
		plain := indexOf(lines)
		for _, est := range []struct {
			name string
			read func(i int) float64
		}{
			{"right", func(i int) float64 { return float64(i) / float64(len(lines)) }},
			{"low", func(int) float64 { return 0.0001 }},
			{"high", func(int) float64 { return 0.9999 }},
			{"none", func(int) float64 { return 0 }},
		} {
			i := 0
			b := &builder{read: func() float64 { return est.read(i) }}
			for ; i < len(lines); i++ {
				l := lines[i]
				b.add(tape.Message{Seq: int64(i), Session: l.session, Dir: l.dir, Msg: []byte(l.msg)})
			}
			got := b.index()
			for _, s := range tc.sessions {
				if g, w := show(got, got.sessions[s]), show(plain, plain.sessions[s]); !reflect.DeepEqual(g, w) {
					t.Errorf("%s, estimate %s, session %s: the index differs from a plain builder's", tc.name, est.name, s)
				}
			}
		}
	}
}
