package mock

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
)

// TestSendParsedAnswersAsSend: a connection given each message with its
// parse (SendParsed, as the replay's actor does) answers what one given
// the bytes answers, message for message: in order, out of order, a
// miss, notifications; from a tape read whole and from one streamed.
func TestSendParsedAnswersAsSend(t *testing.T) {
	path := writeTape(t, []line{
		{"s1", tape.C2S, req1}, {"s1", tape.S2C, noteA}, {"s1", tape.S2C, ans1},
		{"s1", tape.C2S, cNote}, {"s1", tape.C2S, req2}, {"s1", tape.S2C, ans2},
		{"s1", tape.C2S, req1b}, {"s1", tape.S2C, ans1b},
	})
	asked := []string{
		req1, cNote, `{"jsonrpc":"2.0","id":"x-2","method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nothing"}}`,
		`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"b"}}`,
		req2,
	}
	answers := func(parsed, streamed bool) []string {
		m := New(path)
		if streamed {
			sm, next, end := startStream(t, path)
			m = sm
			defer end()
			go func() {
				for {
					if _, err := next(); err != nil {
						return
					}
				}
			}()
		}
		c, err := m.Dial(context.Background(), "s1")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for _, msg := range asked {
			var err error
			if parsed {
				req, perr := jsonrpc.Parse([]byte(msg))
				if perr != nil {
					t.Fatal(perr)
				}
				err = c.(interface {
					SendParsed(context.Context, jsonrpc.Message) error
				}).SendParsed(ctx, req)
			} else {
				err = c.Send(ctx, []byte(msg))
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		var got []string
		for len(got) < 6 { // a note, then an answer to each of the five requests
			select {
			case in := <-c.Incoming():
				got = append(got, string(in.Msg))
			case <-ctx.Done():
				t.Fatalf("%d answers, want 6: %q", len(got), got)
			}
		}
		return got
	}
	for _, streamed := range []bool{false, true} {
		want, got := answers(false, streamed), answers(true, streamed)
		if !slices.Equal(got, want) {
			t.Errorf("streamed %v: SendParsed answered\n%q\nSend\n%q", streamed, got, want)
		}
		if want[1] != ans1 {
			t.Errorf("streamed %v: first answer %s, want %s", streamed, want[1], ans1)
		}
	}
}

var _ interface {
	SendParsed(context.Context, jsonrpc.Message) error
} = (*conn)(nil)
