package mock

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/tape"
)

// streamWhole streams the tape at path as a replay takes it, to its end,
// and returns the mock.
func streamWhole(tb testing.TB, path string) *Mock {
	m := New(path)
	next, end, ok := m.StreamTape(tape.File(path))
	if !ok {
		tb.Fatal("StreamTape: not ok")
	}
	for {
		if _, err := next(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			tb.Fatal(err)
		}
	}
	end()
	return m
}

// unhashed counts the entries whose params are not hashed yet.
func unhashed(idx *index) int {
	n := 0
	for _, es := range idx.sessions {
		for i := range es {
			if es[i].req != 0 {
				n++
			}
		}
	}
	return n
}

// reworded is call i of callsTape asked with the same params in other
// bytes: matched by the params' hash, not their bytes.
func reworded(i int) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":"r","method":"tools/call","params":{ "arguments":{"text":"call %d"}, "name":"echo" }}`, i)
}

// TestFirstRewordedHashesNothing: a replay that streamed the tape asks
// a request whose params bytes no recorded request has: the mock
// answers it without hashing the params of the tape's entries then
// (they were hashed as the tape was read, beside the replay), where it
// hashed every entry's on that first request, a stall as long as the
// tape.
func TestFirstRewordedHashesNothing(t *testing.T) {
	const calls = 10_000
	m := streamWhole(t, tapeFile(t, callsTape(calls)))
	idx, err := m.index()
	if err != nil {
		t.Fatal(err)
	}
	c, err := m.Dial(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	before := unhashed(idx)
	if err := c.Send(t.Context(), reworded(calls/2)); err != nil {
		t.Fatal(err)
	}
	in := <-c.Incoming()
	if want := fmt.Sprintf(`"text":"Echo: call %d"`, calls/2); !strings.Contains(string(in.Msg), want) {
		t.Fatalf("answer %s, want the recorded one (%s)", in.Msg, want)
	}
	if hashed := before - unhashed(idx); hashed > 0 {
		t.Errorf("the first reworded request hashed %d entries' params, want none (of %d)", hashed, calls+1)
	}
}

// BenchmarkFirstReworded times the first request a streamed tape's mock
// matches by its params' hash, not their bytes (the tape read whole
// first, outside the timer).
func BenchmarkFirstReworded(b *testing.B) {
	path := tapeFile(b, callsTape(100_000))
	for b.Loop() {
		b.StopTimer()
		m := streamWhole(b, path)
		c, err := m.Dial(b.Context(), "s1")
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := c.Send(b.Context(), reworded(50_000)); err != nil {
			b.Fatal(err)
		}
		<-c.Incoming()
		b.StopTimer()
		c.Close()
		b.StartTimer()
	}
}
