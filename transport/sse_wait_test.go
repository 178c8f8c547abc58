package transport

import (
	"errors"
	"io"
	"reflect"
	"testing"
)

// dripFeed hands out its input one chunk of n bytes at a time, with
// ErrWait between two chunks: a stream whose bytes are pushed.
type dripFeed struct {
	in    []byte
	n     int
	ready bool // a chunk may be read
}

func (d *dripFeed) Read(p []byte) (int, error) {
	if len(d.in) == 0 {
		return 0, io.EOF
	}
	if !d.ready {
		return 0, ErrWait
	}
	d.ready = false
	k := copy(p, d.in[:min(d.n, len(d.in))])
	d.in = d.in[k:]
	return k, nil
}

// TestSSEReaderWait parses streams pushed a few bytes at a time: Next
// says ErrWait between chunks and ends with the same events as a reader
// of the whole stream.
func TestSSEReaderWait(t *testing.T) {
	stream := "\xEF\xBB\xBFid: 1\r\nevent: message\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\n: comment\n\nretry: 300\rdata: x\r\rdata: last\n\n"
	want, _, err := readAllEvents(&dripFeed{in: []byte(stream), n: len(stream), ready: true})
	if err != nil || len(want) != 3 {
		t.Fatalf("whole: %d events, %v", len(want), err)
	}
	for _, n := range []int{1, 2, 3, 7, 64} {
		d := &dripFeed{in: []byte(stream), n: n}
		sr := NewSSEReader(d)
		var got []SSEEvent
		waits := 0
		for {
			ev, err := sr.Next()
			if errors.Is(err, ErrWait) {
				waits++
				d.ready = true
				continue
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("chunks of %d: %v", n, err)
			}
			got = append(got, ev)
		}
		if !reflect.DeepEqual(got, want) || waits < len(stream)/n {
			t.Errorf("chunks of %d: %+v after %d waits, want %+v", n, got, waits, want)
		}
	}
}

// FuzzSSEReaderWait: any stream pushed in chunks of any size, with
// ErrWait between them, gives the events a reader of the whole stream
// gives.
func FuzzSSEReaderWait(f *testing.F) {
	f.Add([]byte("id: 1\r\ndata: a\r\n\r\n"), uint8(1))
	f.Add([]byte("data: x\r\rdata: y\n\n: c\n\nretry: 9\ndata:\n\n"), uint8(3))
	f.Fuzz(func(t *testing.T, stream []byte, n uint8) {
		if n == 0 {
			n = 1
		}
		want, _, werr := readAllEvents(&dripFeed{in: stream, n: len(stream) + 1, ready: true})
		d := &dripFeed{in: stream, n: int(n)}
		sr := NewSSEReader(d)
		var got []SSEEvent
		var gerr error
		for {
			ev, err := sr.Next()
			if errors.Is(err, ErrWait) {
				d.ready = true
				continue
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				gerr = err
				break
			}
			got = append(got, ev)
		}
		if !reflect.DeepEqual(got, want) || (gerr == nil) != (werr == nil) {
			t.Fatalf("in chunks of %d: %+v, %v; whole: %+v, %v", n, got, gerr, want, werr)
		}
	})
}
