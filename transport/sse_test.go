package transport

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

func readAllEvents(r io.Reader) ([]SSEEvent, *SSEReader, error) {
	sr := NewSSEReader(r)
	var evs []SSEEvent
	for {
		ev, err := sr.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return evs, sr, err
		}
		evs = append(evs, ev)
	}
}

func TestSSEReader(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		want   []SSEEvent
		lastID string
		retry  int64
	}{
		{"empty", "", nil, "", 0},
		{"one event LF", "data: {\"a\":1}\n\n",
			[]SSEEvent{{Data: []byte(`{"a":1}`)}}, "", 0},
		{"CRLF", "id: 7\r\nevent: message\r\ndata: x\r\n\r\n",
			[]SSEEvent{{ID: "7", HasID: true, Event: "message", Data: []byte("x")}}, "7", 0},
		{"CR only", "data: x\rdata: y\r\r",
			[]SSEEvent{{Data: []byte("x\ny")}}, "", 0},
		{"mixed endings", "data: a\r\n\rdata: b\n\r\n",
			[]SSEEvent{{Data: []byte("a")}, {Data: []byte("b")}}, "", 0},
		{"multi-line data", "data: a\ndata:b\ndata:  c\n\n",
			[]SSEEvent{{Data: []byte("a\nb\n c")}}, "", 0},
		{"comments and unknown fields", ": ping\nfoo: bar\ndata: x\n: more\n\n",
			[]SSEEvent{{Data: []byte("x")}}, "", 0},
		{"BOM", "\xEF\xBB\xBFdata: x\n\n",
			[]SSEEvent{{Data: []byte("x")}}, "", 0},
		{"BOM only once", "\xEF\xBB\xBFdata: x\n\n\xEF\xBB\xBFdata: y\n\n",
			[]SSEEvent{{Data: []byte("x")}}, "", 0},
		{"retry", "retry: 1500\ndata: x\n\nretry: nope\ndata: y\n\n",
			[]SSEEvent{{Data: []byte("x"), Retry: 1500}, {Data: []byte("y")}}, "", 1500},
		{"empty data field dispatches (priming event)", "id: p1\ndata\n\n",
			[]SSEEvent{{ID: "p1", HasID: true, Data: []byte{}}}, "p1", 0},
		{"id without data", "id: p1\nretry: 10\n\ndata: x\n\n",
			[]SSEEvent{{Data: []byte("x")}}, "p1", 10},
		{"id with NUL ignored", "id: a\x00b\ndata: x\n\n",
			[]SSEEvent{{Data: []byte("x")}}, "", 0},
		{"field without colon", "data\ndata\n\n",
			[]SSEEvent{{Data: []byte("\n")}}, "", 0},
		{"unterminated last event dropped", "data: x\n\ndata: y\n",
			[]SSEEvent{{Data: []byte("x")}}, "", 0},
		{"unterminated last line dropped", "data: x\n\ndata: y",
			[]SSEEvent{{Data: []byte("x")}}, "", 0},
		{"event type reset after dispatch", "event: endpoint\ndata: /m\n\ndata: x\n\n",
			[]SSEEvent{{Event: "endpoint", Data: []byte("/m")}, {Data: []byte("x")}}, "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, chunked := range []bool{false, true} {
				var r io.Reader = strings.NewReader(tc.in)
				if chunked {
					r = iotest.OneByteReader(r)
				}
				got, sr, err := readAllEvents(r)
				if err != nil {
					t.Fatalf("chunked=%v: got error %v, want none", chunked, err)
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("chunked=%v: got %+v, want %+v", chunked, got, tc.want)
				}
				if sr.LastEventID() != tc.lastID || sr.RetryMS() != tc.retry {
					t.Errorf("chunked=%v: got last id %q retry %d, want %q %d",
						chunked, sr.LastEventID(), sr.RetryMS(), tc.lastID, tc.retry)
				}
			}
		})
	}
}

// A CR-terminated event is dispatched without waiting for the next byte.
func TestSSEReaderCRDoesNotWait(t *testing.T) {
	pr, pw := io.Pipe()
	sr := NewSSEReader(pr)
	go func() { _, _ = pw.Write([]byte("data: x\r\r")) }()
	ev, err := sr.Next()
	if err != nil || string(ev.Data) != "x" {
		t.Fatalf("got %q, %v; want \"x\", nil", ev.Data, err)
	}
	_ = pw.CloseWithError(io.ErrUnexpectedEOF)
	if _, err := sr.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("got %v, want the read error", err)
	}
}

func TestSSEReaderHugeLine(t *testing.T) {
	big := bytes.Repeat([]byte("a"), 3<<20)
	in := "data: " + string(big) + "\r\n\r\n"
	got, _, err := readAllEvents(iotest.HalfReader(strings.NewReader(in)))
	if err != nil || len(got) != 1 || !bytes.Equal(got[0].Data, big) {
		t.Fatalf("got %d events, err %v; want one event of %d bytes", len(got), err, len(big))
	}
}

func TestSSEReaderNoProgress(t *testing.T) {
	_, err := NewSSEReader(zeroReader{}).Next()
	if !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("got %v, want io.ErrNoProgress", err)
	}
}

type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

// FuzzSSEReader checks that decoding never panics and does not depend on
// how the input is split into reads.
func FuzzSSEReader(f *testing.F) {
	for _, s := range []string{
		"data: x\n\n", "id: 1\r\ndata: a\r\ndata: b\r\n\r\n", "\xEF\xBB\xBFevent: e\rdata\r\r",
		": c\nretry: 12\n\n", "data: {\"jsonrpc\":\"2.0\"}\n\nid: 9\n\n", "data:\n\n\n\r\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		whole, sr1, err1 := readAllEvents(bytes.NewReader(in))
		bytewise, sr2, err2 := readAllEvents(iotest.OneByteReader(bytes.NewReader(in)))
		if err1 != nil || err2 != nil {
			t.Fatalf("got errors %v, %v; want none", err1, err2)
		}
		if !reflect.DeepEqual(whole, bytewise) {
			t.Fatalf("got %+v read whole, %+v read bytewise; want equal", whole, bytewise)
		}
		if sr1.LastEventID() != sr2.LastEventID() || sr1.RetryMS() != sr2.RetryMS() {
			t.Fatalf("stream state differs by chunking")
		}
		for _, ev := range whole {
			if bytes.ContainsAny(ev.Data, "\r") {
				t.Fatalf("got data %q with a CR, want none", ev.Data)
			}
		}
	})
}

func BenchmarkSSEReader(b *testing.B) {
	for _, size := range []int{200, 64 << 10} {
		var stream bytes.Buffer
		msg := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", size) + `"}]}}`
		for i := range 100 {
			fmt.Fprintf(&stream, "id: %d\nevent: message\ndata: %s\n\n", i, msg)
		}
		in := stream.Bytes()
		b.Run(fmt.Sprintf("events=100/bytes=%d", size), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				n := 0
				sr := NewSSEReader(bytes.NewReader(in))
				for {
					if _, err := sr.Next(); err != nil {
						break
					}
					n++
				}
				if n != 100 {
					b.Fatalf("got %d events, want 100", n)
				}
			}
		})
	}
}

// TestSSEReaderSkipEvent: after an event over the limit, SkipEvent drops
// the rest of it, and Next goes on with the events after it, whatever the
// line endings, whether one line or many data lines made it too large, and
// however the stream is split into reads.
func TestSSEReaderSkipEvent(t *testing.T) {
	const limit = 100
	long := strings.Repeat("x", 3*limit)
	short := strings.Repeat("y", limit/4)
	tests := []struct {
		name string
		in   string
	}{
		{"one long line, LF", "data: a\n\ndata: " + long + "\nid: 9\n\ndata: b\n\n"},
		{"one long line, CRLF", "data: a\r\n\r\ndata: " + long + "\r\nid: 9\r\n\r\ndata: b\r\n\r\n"},
		{"one long line, CR", "data: a\r\rdata: " + long + "\rid: 9\r\rdata: b\r\r"},
		{"many data lines", "data: a\n\n" + strings.Repeat("data: "+short+"\n", 8) + "id: 9\n\ndata: b\n\n"},
		{"long last line of the event", "data: a\n\nevent: big\ndata: " + long + "\n\ndata: b\n\n"},
	}
	for _, tt := range tests {
		for _, split := range []struct {
			name string
			r    func(io.Reader) io.Reader
		}{{"whole", func(r io.Reader) io.Reader { return r }}, {"bytewise", iotest.OneByteReader}} {
			t.Run(tt.name+"/"+split.name, func(t *testing.T) {
				sr := NewSSEReader(split.r(strings.NewReader(tt.in)), MaxEventSize(limit))
				var got []string
				skipped := 0
				for {
					ev, err := sr.Next()
					var tl *TooLargeError
					if errors.As(err, &tl) {
						skipped++
						sr.SkipEvent()
						continue
					}
					if err != nil {
						if !errors.Is(err, io.EOF) {
							t.Fatalf("Next: %v", err)
						}
						break
					}
					got = append(got, string(ev.Data)+"|"+ev.ID+"|"+ev.Event)
				}
				if want := []string{"a||", "b||"}; skipped != 1 || !reflect.DeepEqual(got, want) {
					t.Errorf("got %q, %d skipped; want %q, 1 skipped", got, skipped, want)
				}
			})
		}
	}
}

// TestSSEReaderSkipEventAfterOtherErrors: SkipEvent does nothing after
// an error that is not an event over the limit.
func TestSSEReaderSkipEventAfterOtherErrors(t *testing.T) {
	sr := NewSSEReader(zeroReader{})
	if _, err := sr.Next(); !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("got %v, want io.ErrNoProgress", err)
	}
	sr.SkipEvent()
	if _, err := sr.Next(); !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("after SkipEvent: got %v, want io.ErrNoProgress still", err)
	}
}
