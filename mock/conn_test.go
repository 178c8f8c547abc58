package mock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// writeTape writes a tape of the given message lines, numbered from seq 0.
func writeTape(t *testing.T, lines []line) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"type":"header","format":"replayctl-tape","version":1}` + "\n")
	for i, l := range lines {
		fmt.Fprintf(&b, `{"type":"message","seq":%d,"t_us":%d,"session":%q,"dir":%q,"msg":%s}`+"\n", i, 10*i, l.session, l.dir, l.msg)
	}
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// ask sends msg and returns the n messages it gets back, or fails the test.
func ask(t *testing.T, c transport.Conn, msg string, n int) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Send(ctx, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	var got []string
	for range n {
		select {
		case in := <-c.Incoming():
			got = append(got, string(in.Msg))
		case <-ctx.Done():
			t.Fatalf("%s: got %d messages back, want %d", msg, len(got), n)
		}
	}
	return got
}

func TestRewindAnswersFromSeqOn(t *testing.T) {
	path := writeTape(t, []line{
		{"s1", tape.C2S, req1},  // 0
		{"s1", tape.S2C, noteA}, // 1
		{"s1", tape.S2C, ans1},  // 2
		{"s1", tape.S2C, noteB}, // 3
		{"s1", tape.C2S, req2},  // 4
		{"s1", tape.S2C, ans2},  // 5
	})
	c, err := New(path).Dial(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := c.(transport.Rewinder)
	const call, ping = `{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"a"}}`, `{"jsonrpc":"2.0","id":"p","method":"ping"}`
	steps := []struct {
		rewind int64 // -1: none
		send   string
		want   []string
	}{
		{-1, ping, []string{noteB, `{"jsonrpc":"2.0","id":"p","error":{"code":-1,"message":"no"}}`}},
		{-1, call, []string{noteA, `{"jsonrpc":"2.0","id":"c","result":{"r":1}}`}},
		{-1, ping, []string{`"code":-32601`}}, // asked already
		// From seq 4 on: the call is before it; noteB, at seq 3, too.
		{4, call, []string{`"code":-32601`}},
		{-1, ping, []string{`{"jsonrpc":"2.0","id":"p","error":{"code":-1,"message":"no"}}`}},
		// Back to the start: everything answers again.
		{0, call, []string{noteA, `{"jsonrpc":"2.0","id":"c","result":{"r":1}}`}},
		{-1, ping, []string{noteB, `{"jsonrpc":"2.0","id":"p","error":{"code":-1,"message":"no"}}`}},
		// Past the end: nothing to answer.
		{99, ping, []string{`"code":-32601`}},
	}
	for i, st := range steps {
		if st.rewind >= 0 {
			if err := r.Rewind(st.rewind); err != nil {
				t.Fatal(err)
			}
		}
		got := ask(t, c, st.send, len(st.want))
		for j := range got {
			if got[j] != st.want[j] && !(strings.HasPrefix(st.want[j], `"`) && strings.Contains(got[j], st.want[j])) {
				t.Errorf("step %d: got %q, want %q", i, got, st.want)
				break
			}
		}
	}
	c.Close()
	if err := r.Rewind(0); !errors.Is(err, ErrClosed) {
		t.Errorf("Rewind after Close: got %v, want ErrClosed", err)
	}
}

func TestVirtualCopiesAnswerAsTheRecordedSession(t *testing.T) {
	path := writeTape(t, []line{
		{"s1", tape.C2S, req1}, {"s1", tape.S2C, ans1}, {"s1", tape.C2S, req2}, {"s1", tape.S2C, ans2},
		{"s1#x", tape.C2S, req2}, {"s1#x", tape.S2C, `{"jsonrpc":"2.0","id":2,"result":"s1#x"}`},
	})
	var opens atomic.Int64
	m := FromSource(countedFile{File: tape.File(path), opens: &opens})
	const copies = 1000
	var wg sync.WaitGroup
	errs := make(chan error, copies)
	for k := range copies {
		wg.Go(func() {
			c, err := m.Dial(context.Background(), fmt.Sprintf("s1#%d", k))
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			// Each copy asks in its own order and gets every recorded answer.
			asks := []string{`{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"a"}}`, `{"jsonrpc":"2.0","id":"p","method":"ping"}`}
			wants := []string{`{"jsonrpc":"2.0","id":"c","result":{"r":1}}`, `{"jsonrpc":"2.0","id":"p","error":{"code":-1,"message":"no"}}`}
			if k%2 == 1 {
				asks[0], asks[1], wants[0], wants[1] = asks[1], asks[0], wants[1], wants[0]
			}
			for i := range asks {
				if err := c.Send(context.Background(), []byte(asks[i])); err != nil {
					errs <- err
					return
				}
				if got := string((<-c.Incoming()).Msg); got != wants[i] {
					errs <- fmt.Errorf("copy %d ask %d: got %s, want %s", k, i, got, wants[i])
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := opens.Load(); n != 1 {
		t.Errorf("the tape was opened %d times for %d copies, want once", n, copies)
	}
	// Not copies: "s1#x" is a session of its own, "s1#" and "s2" are not on the tape.
	tests := []struct{ session, want string }{
		{"s1#x", `{"jsonrpc":"2.0","id":"p","result":"s1#x"}`},
		{"s1#", `"code":-32601`},
		{"s2", `"code":-32601`},
	}
	for _, tt := range tests {
		c, err := m.Dial(context.Background(), tt.session)
		if err != nil {
			t.Fatal(err)
		}
		if got := ask(t, c, `{"jsonrpc":"2.0","id":"p","method":"ping"}`, 1)[0]; !strings.Contains(got, tt.want) {
			t.Errorf("session %s: got %s, want %s", tt.session, got, tt.want)
		}
		c.Close()
	}
}

func TestEveryDialGetsTheTapeError(t *testing.T) {
	path := writeTape(t, []line{{"s1", tape.C2S, req2}, {"s1", tape.S2C, ans2}})
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// A bad line (seq 1 again) in another session: the whole tape is
	// read, so it counts.
	fmt.Fprintln(f, `{"type":"message","seq":1,"t_us":0,"session":"s2","dir":"c2s","msg":{}}`)
	f.Close()
	var opens atomic.Int64
	m := FromSource(countedFile{File: tape.File(path), opens: &opens})
	for i := range 3 {
		c, err := m.Dial(context.Background(), "s1")
		var te *tape.Error
		if !errors.As(err, &te) {
			t.Errorf("dial %d: got %v, want a *tape.Error", i, err)
		}
		if c != nil {
			c.Close()
		}
	}
	if n := opens.Load(); n != 1 {
		t.Errorf("the tape was opened %d times for 3 dials, want once (its error kept)", n)
	}
	if _, err := New(filepath.Join(t.TempDir(), "missing.jsonl")).Dial(context.Background(), "s1"); err == nil {
		t.Error("dial with a missing tape: got no error")
	}
}

func TestCloseEndsIncoming(t *testing.T) {
	path := writeTape(t, []line{{"s1", tape.C2S, req2}, {"s1", tape.S2C, ans2}})
	tests := []struct {
		name string
		asks int // more than Incoming holds starts the pump
	}{
		{"nothing asked", 0},
		{"answers waiting in Incoming", 3},
		{"answers queued", 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(path).Dial(context.Background(), "s1")
			if err != nil {
				t.Fatal(err)
			}
			for range tt.asks {
				if err := c.Send(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
					t.Fatal(err)
				}
			}
			for range 2 {
				if err := c.Close(); err != nil {
					t.Fatal(err)
				}
			}
			for range c.Incoming() { // answers not taken may still be there; then it is closed
			}
			if err := c.Send(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); !errors.Is(err, ErrClosed) {
				t.Errorf("Send after Close: got %v, want ErrClosed", err)
			}
		})
	}
}

// SendAside answers like Send but uses up no recorded answer: the tape's
// own request still gets it; once it has, SendAside answers with it again.
func TestSendAsideKeepsTheAnswer(t *testing.T) {
	path := writeTape(t, []line{
		{"s1", tape.C2S, req1}, {"s1", tape.S2C, ans1}, {"s1", tape.C2S, req2}, {"s1", tape.S2C, ans2},
	})
	c, err := New(path).Dial(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	as := c.(transport.AsideSender)
	const call = `{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"a"}}`
	const other = `{"jsonrpc":"2.0","id":"o","method":"tools/call","params":{"name":"zzz"}}`
	wantCall := `{"jsonrpc":"2.0","id":"c","result":{"r":1}}`
	steps := []struct {
		aside      bool
		send, want string
	}{
		{true, call, wantCall},
		{true, call, wantCall},
		{false, call, wantCall}, // the tape's own: still there
		{true, call, wantCall},  // asked already: the last one asked
		{false, call, `"code":-32601`},
		{true, other, `"code":-32601`}, // nothing like it recorded
	}
	for i, st := range steps {
		send := c.Send
		if st.aside {
			send = as.SendAside
		}
		if err := send(context.Background(), []byte(st.send)); err != nil {
			t.Fatal(err)
		}
		got := string((<-c.Incoming()).Msg)
		if got != st.want && !(strings.HasPrefix(st.want, `"`) && strings.Contains(got, st.want)) {
			t.Errorf("step %d (aside %v): got %s, want %s", i, st.aside, got, st.want)
		}
	}
}
