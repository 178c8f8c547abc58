package record

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// echoServer answers each line with one naming it, then with a second,
// unasked line: more than the client reads in TestDialerCloseUnread.
func echoServer(_ context.Context, in io.ReadCloser, out io.WriteCloser) error {
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		for _, id := range []string{"1", "2"} {
			if _, err := io.WriteString(out, `{"jsonrpc":"2.0","method":"notifications/echo","params":{"n":`+id+`}}`+"\n"); err != nil {
				return err
			}
		}
	}
	return nil
}

// Dialer records both directions of each kept connection under the name
// DialSessions gives, in the order they passed, and leaves the others
// alone; a connection closed while its messages are unread ends (goleak
// in TestMain).
func TestDialerRecordsKeptSessions(t *testing.T) {
	var buf bytes.Buffer
	w, err := tape.NewWriter(&buf, tape.Header{})
	if err != nil {
		t.Fatal(err)
	}
	tap := NewTap(w)
	d := Dialer(transport.Pipe{Serve: echoServer}, tap, DialSessions(func(s string) (string, bool) {
		name, copy, _ := strings.Cut(s, "#")
		return name, copy == "1"
	}))
	ctx := t.Context()
	for _, session := range []string{"s1#1", "s1#2"} {
		c, err := d.Dial(ctx, session)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Send(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/ping"}`)); err != nil {
			t.Fatal(err)
		}
		<-c.Incoming() // the first answer; the second stays unread
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := tap.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := tape.OpenSource(tape.Bytes("t.jsonl", buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []string
	for {
		m, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, m.Session+" "+string(m.Dir)+" "+string(m.Msg))
	}
	want := []string{
		`s1 c2s {"jsonrpc":"2.0","method":"notifications/ping"}`,
		`s1 s2c {"jsonrpc":"2.0","method":"notifications/echo","params":{"n":1}}`,
	}
	// The second answer may have been read before Close: then it is on
	// the tape too, never handed on.
	if len(got) == 3 && got[2] == `s1 s2c {"jsonrpc":"2.0","method":"notifications/echo","params":{"n":2}}` {
		got = got[:2]
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("tape:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
