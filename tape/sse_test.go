package tape_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// FuzzSplitSSE holds tape's parser of recorded event streams to the
// same events as transport.SSEReader, the live reader (tape cannot
// import transport, which imports tape; see splitSSE). The one allowed
// difference: an unterminated last event, which only tape keeps (tail).
func FuzzSplitSSE(f *testing.F) {
	for _, s := range []string{
		"id: e1\nevent: message\ndata: {\"a\":1}\n\n",
		"\xEF\xBB\xBFdata: a\r\ndata: b\r\n\r\n: comment\n\nretry: 500\nid: 2\ndata:c\n\n",
		"data: x\rid: 1\x00\r\rdata: y\n\ndata: cut",
		"event: e\n\nid\ndata\n\nretry: 12x\ndata: z\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, tail := tape.SplitSSE(body)
		if tail {
			got = got[:len(got)-1]
		}
		r := transport.NewSSEReader(bytes.NewReader(body))
		var want []tape.SSEEvent
		for {
			ev, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Skip(err) // over transport's size limit
			}
			want = append(want, tape.SSEEvent{ID: ev.ID, Event: ev.Event, Data: ev.Data, Retry: ev.Retry})
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d events, transport %d: %+v vs %+v", body, len(got), len(want), got, want)
		}
		for i := range got {
			g, w := got[i], want[i]
			if g.ID != w.ID || g.Event != w.Event || g.Retry != w.Retry || !bytes.Equal(g.Data, w.Data) {
				t.Fatalf("%q: event %d is %+v, transport %+v", body, i, g, w)
			}
		}
	})
}
