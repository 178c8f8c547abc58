package mock

import (
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/replayctl/replayctl/tape"
)

// TestPublishWhileAdding: a staged builder adds messages without a lock
// while readers, under the lock it publishes with, read what it
// published (as a streamed read's connections do); every entry they see
// has its own answer and notifications, an entry's answer once seen
// stays, the entries only grow, and the index made at the end is the
// one a builder that never published makes. Run it under -race: the
// builder's writes and the readers' reads must not overlap.
func TestPublishWhileAdding(t *testing.T) {
	sessions := []string{"s1", "s2", "s3"}
	var lines []line
	for i := range 2000 {
		s := sessions[i%3]
		id := i / 3
		lines = append(lines, line{s, tape.C2S, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"m%d","params":{"n":%d}}`, id, i%5, i)})
		if i%4 == 0 {
			lines = append(lines, line{s, tape.S2C, fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"n":%d}}`, i)})
		}
		lines = append(lines, line{s, tape.S2C, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"n":%d}}`, id, i)})
	}
	// want[s][k]: the answer and notifications of session s's k-th request.
	type reply struct{ ans, note string }
	want := map[string][]reply{}
	for i := range 2000 {
		s := sessions[i%3]
		r := reply{ans: fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"n":%d}}`, i/3, i)}
		if i%4 == 0 {
			r.note = fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"n":%d}}`, i)
		}
		want[s] = append(want[s], r)
	}

	var mu sync.Mutex // guards p
	var p published
	b := &builder{lazy: true, staged: true}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			seen := map[string]int{} // entries seen, by session
			answered := map[string]int{}
			for stop := false; !stop; {
				select {
				case <-done:
					stop = true // one more look, at the last publish
				default:
				}
				mu.Lock()
				for _, s := range sessions {
					es := p.sessions[s]
					if len(es) < seen[s] {
						t.Errorf("session %s: %d entries published, after %d", s, len(es), seen[s])
					}
					seen[s] = len(es)
					n := 0
					for k := range es {
						e := &es[k]
						if e.ans == 0 {
							continue
						}
						n++
						v := index{notes: p.notes, noteRuns: p.noteRuns, big: p.big, mem: p.mem}
						ans, _ := v.at(e.ans, -1, nil)
						var note string
						if ns := v.notesOf(e); len(ns) == 1 {
							msg, _ := v.at(ns[0].at, -1, nil)
							note = string(msg)
						} else if len(ns) > 1 {
							t.Errorf("session %s, entry %d: %d notifications, want at most 1", s, k, len(ns))
						}
						if got := (reply{string(ans), note}); got != want[s][k] {
							t.Errorf("session %s, entry %d: got %+v, want %+v", s, k, got, want[s][k])
						}
					}
					if n < answered[s] {
						t.Errorf("session %s: %d entries answered, after %d", s, n, answered[s])
					}
					answered[s] = n
				}
				mu.Unlock()
			}
			for _, s := range sessions {
				if answered[s] != len(want[s]) {
					t.Errorf("session %s: %d entries answered at the end, want %d", s, answered[s], len(want[s]))
				}
			}
		}()
	}
	for i, l := range lines {
		b.add(tape.Message{Seq: int64(i), Session: l.session, Dir: l.dir, Msg: []byte(l.msg)})
		if i%7 == 6 || i == len(lines)-1 {
			mu.Lock()
			b.publish(&p)
			mu.Unlock()
		}
	}
	close(done)
	wg.Wait()
	got, plain := b.index(), indexOf(lines)
	got.canonical() // the params' hashes a lazy builder leaves out
	for _, s := range sessions {
		if g, w := show(got, got.sessions[s]), show(plain, plain.sessions[s]); !reflect.DeepEqual(g, w) {
			t.Errorf("session %s: the staged builder's index differs from a plain one's:\n got %v\nwant %v", s, g, w)
		}
	}
}
