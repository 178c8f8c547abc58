package mock

import (
	"errors"
	"fmt"
	"io"
	"testing"
)

// streamWhole streams the tape at path as a replay takes it, to its end,
// and returns the mock.
func streamWhole(tb testing.TB, path string) *Mock {
	m, next, end := startStream(tb, path)
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

// reworded is call i of callsTape asked with the same params in other
// bytes: matched by the params' hash, not their bytes.
func reworded(i int) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":"r","method":"tools/call","params":{ "arguments":{"text":"call %d"}, "name":"echo" }}`, i)
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
